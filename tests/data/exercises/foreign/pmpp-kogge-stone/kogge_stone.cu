// A section's inclusive scan, Kogge-Stone: at each stride every thread past it adds the element that far
// below, read into a register between two barriers so that no thread overwrites what another still reads.
__global__ void kogge_stone_scan(float* X, float* Y, unsigned n) {
  __shared__ float XY[SECTION_SIZE];
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  XY[threadIdx.x] = i < n ? X[i] : 0.0f;
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    __syncthreads();
    float temp = 0.0f;
    if (threadIdx.x >= stride) temp = XY[threadIdx.x] + XY[threadIdx.x - stride];
    __syncthreads();
    if (threadIdx.x >= stride) XY[threadIdx.x] = temp;
  }
  if (i < n) Y[i] = XY[threadIdx.x];
}
