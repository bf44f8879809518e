// An alternative: the reversal happens on the way into the tile (thread t stores its element at
// chunk - 1 - t), and the read of the tile is straight; indices come from the chunk parameter.
__global__ void reverse_chunks(float* out, const float* in, int n, int chunk) {
  __shared__ float tile[BLOCK];
  const int first = blockIdx.x * chunk;
  const int t = threadIdx.x;
  tile[chunk - 1 - t] = in[first + t];
  __syncthreads();
  out[first + t] = tile[t];
}
