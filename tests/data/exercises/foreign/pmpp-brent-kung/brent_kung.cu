// A section's inclusive scan, Brent-Kung: each thread loads two elements, a reduction tree builds partial
// sums up to the section's total, and a reverse tree hands them down; a barrier before every step.
__global__ void brent_kung_scan(float* X, float* Y, unsigned n) {
  __shared__ float XY[SECTION_SIZE];
  const unsigned i = 2 * blockIdx.x * blockDim.x + threadIdx.x;
  XY[threadIdx.x] = i < n ? X[i] : 0.0f;
  XY[threadIdx.x + blockDim.x] = i + blockDim.x < n ? X[i + blockDim.x] : 0.0f;
  for (unsigned stride = 1; stride <= blockDim.x; stride *= 2) {
    __syncthreads();
    const unsigned index = (threadIdx.x + 1) * 2 * stride - 1;
    if (index < SECTION_SIZE) XY[index] += XY[index - stride];
  }
  for (int stride = SECTION_SIZE / 4; stride > 0; stride /= 2) {
    __syncthreads();
    const unsigned index = (threadIdx.x + 1) * stride * 2 - 1;
    if (index + stride < SECTION_SIZE) XY[index + stride] += XY[index];
  }
  __syncthreads();
  if (i < n) Y[i] = XY[threadIdx.x];
  if (i + blockDim.x < n) Y[i + blockDim.x] = XY[threadIdx.x + blockDim.x];
}
