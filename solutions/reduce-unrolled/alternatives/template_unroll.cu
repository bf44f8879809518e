// An alternative: the warp's ending fully unrolled by the compiler from a constexpr loop, reading through
// a volatile pointer and ordered by __syncwarp() between every load and store; blockDim.x for the loop.
__global__ void reduce(float* sums, const float* in, int n, int tile) {
  __shared__ float partial[BLOCK];
  const int t = threadIdx.x;
  const int first = blockIdx.x * tile;
  const int a = first + t, b = first + t + static_cast<int>(blockDim.x);
  partial[t] = (a < n ? in[a] : 0.0f) + (b < n ? in[b] : 0.0f);
  __syncthreads();
  for (int s = blockDim.x / 2; s > 32; s >>= 1) {
    if (t < s) partial[t] += partial[t + s];
    __syncthreads();
  }
  if (t >= 32) return;
  volatile float* warp = partial;
  float v = warp[t] + warp[t + 32];
#pragma unroll
  for (int offset = 16; offset >= 1; offset >>= 1) {
    __syncwarp();
    warp[t] = v;
    __syncwarp();
    v += warp[t + offset];
  }
  if (t == 0) sums[blockIdx.x] = v;
}
