// mutant: no barrier between filling the tile and reading the windows: each warp's first two threads read
// what the previous warp writes
// expect: fail race
__global__ void pooling(float* out, const float* in, int n) {
  __shared__ float tile[BLOCK + 2];
  int t = threadIdx.x;
  int i = blockIdx.x * BLOCK + t;
  tile[t + 2] = i < n ? in[i] : 0.0f;
  if (t < 2) tile[t] = i - 2 >= 0 && i - 2 < n ? in[i - 2] : 0.0f;
  if (i < n) out[i] = tile[t] + tile[t + 1] + tile[t + 2];  // expect here: race
}
