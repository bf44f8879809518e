// An alternative: the offset by warp shuffles (each warp sums its share, lane 0 stores it, one thread adds
// the warp sums), and the chunk scanned with __shfl_up_sync inside each warp plus a scan of the warp totals;
// blockDim.x throughout.
__global__ void scan(int* out, const int* in, int n) {
  __shared__ int warp_totals[32];
  __shared__ int block_offset;
  const int t = threadIdx.x, lane = t % 32, warp = t / 32, warps = blockDim.x / 32;
  const int first = blockIdx.x * blockDim.x;
  int before = 0;
  for (int j = t; j < first; j += blockDim.x) before += in[j];
  for (int d = 16; d > 0; d /= 2) before += __shfl_down_sync(0xffffffffu, before, d);
  if (lane == 0) warp_totals[warp] = before;
  __syncthreads();
  if (t == 0) {
    int sum = 0;
    for (int w = 0; w < warps; ++w) sum += warp_totals[w];
    block_offset = sum;
  }
  __syncthreads();
  const int i = first + t;
  int v = i < n ? in[i] : 0;
  for (int d = 1; d < 32; d *= 2) {
    const int up = __shfl_up_sync(0xffffffffu, v, d);
    if (lane >= d) v += up;
  }
  if (lane == 31) warp_totals[warp] = v;
  __syncthreads();
  int carry = block_offset;
  for (int w = 0; w < warp; ++w) carry += warp_totals[w];
  if (i < n) out[i] = v + carry;
}
