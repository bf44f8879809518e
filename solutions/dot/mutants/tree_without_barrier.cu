// mutant: the tree's steps have no barrier between them, so a step reads sums the previous step (in
// another warp) has not written yet
// expect: fail race
__global__ void dot(float* out, const float* a, const float* b, int n) {
  __shared__ float partial[BLOCK];
  int t = threadIdx.x;
  float sum = 0.0f;
  for (int i = t; i < n; i += BLOCK) sum += a[i] * b[i];
  partial[t] = sum;
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s /= 2)
    if (t < s) partial[t] += partial[t + s];  // expect here: race
  if (t == 0) out[0] = partial[0];
}
