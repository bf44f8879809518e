// An alternative: a grid-stride loop, correct for any grid; with ceil_div(n, BLOCK) blocks each thread
// makes at most one trip.
__global__ void blocks(float* out, const float* in, int n) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) out[i] = in[i] + 10.0f;
}
