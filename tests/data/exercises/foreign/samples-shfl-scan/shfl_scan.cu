// An inclusive scan of each block's elements, in place: each warp scans its values with __shfl_up_sync,
// the last lane of each warp leaves the warp's total in shared memory, warp 0 scans those totals with a
// shuffle over only as many lanes as there are warps, and every thread adds the totals of the warps
// before its own. The block's last thread writes the block's total.
__global__ void shfl_scan(int* data, int width, int* partial_sums) {
  extern __shared__ int warp_totals[];
  const int id = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = id % warpSize;
  const int warp = threadIdx.x / warpSize;
  const int warps = blockDim.x / warpSize;
  int value = data[id];
#pragma unroll
  for (int delta = 1; delta <= width; delta *= 2) {
    const int from_below = __shfl_up_sync(0xffffffffu, value, delta, width);
    if (lane >= delta) value += from_below;
  }
  if (threadIdx.x % warpSize == warpSize - 1) warp_totals[warp] = value;
  __syncthreads();
  if (warp == 0 && lane < warps) {
    int total = warp_totals[lane];
    const unsigned mask = (1u << warps) - 1;
    for (int delta = 1; delta <= warps; delta *= 2) {
      const int from_below = __shfl_up_sync(mask, total, delta, warps);
      if (lane >= delta) total += from_below;
    }
    warp_totals[lane] = total;
  }
  __syncthreads();
  if (warp > 0) value += warp_totals[warp - 1];
  data[id] = value;
  if (partial_sums != nullptr && threadIdx.x == blockDim.x - 1) partial_sums[blockIdx.x] = value;
}
