// mutant: no barrier between loading the tile and reading the neighbour: right at 32x1 (one warp),
// wrong wherever a block has a second warp
// expect: fail race
__global__ void differences(float* out, const float* in, int n) {
  __shared__ float tile[BLOCK];
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n) tile[threadIdx.x] = in[i];
  if (i >= n) return;
  // Thread 0's neighbour lies in the previous block's tile, which this block never loaded.
  float left = threadIdx.x > 0 ? tile[threadIdx.x - 1] : (i > 0 ? in[i - 1] : 0.0f);
  out[i] = tile[threadIdx.x] - left;
}
