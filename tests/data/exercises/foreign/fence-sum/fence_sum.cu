// Test fixture (issue 28), the pattern of cuda-samples threadFenceReduction: each block writes its
// partial, fences, takes a ticket; the last block overwrites out[0] with the total.
__device__ unsigned int retired = 0;
__global__ void fence_sum(float* out, const float* in, int n) {
  __shared__ float part[BLOCK];
  __shared__ bool last;
  int t = threadIdx.x;
  int i = blockIdx.x * BLOCK + t;
  part[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s >>= 1) {
    if (t < s) part[t] += part[t + s];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = part[0];
  __threadfence();
  if (t == 0) {
    unsigned int ticket = atomicInc(&retired, gridDim.x);
    last = ticket == gridDim.x - 1;
  }
  __syncthreads();
  if (last) {
    float sum = 0.0f;
    for (int b = t; b < gridDim.x; b += BLOCK) sum += out[b];
    part[t] = sum;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
      if (t < s) part[t] += part[t + s];
      __syncthreads();
    }
    if (t == 0) { out[0] = part[0]; retired = 0; }
  }
}
