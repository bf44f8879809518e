// mutant: reads tile[BLOCK - t] instead of tile[BLOCK - 1 - t], so thread 0 reads one past the tile
// expect: fail out-of-bounds
__global__ void reverse_chunks(float* out, const float* in, int n, int chunk) {
  __shared__ float tile[BLOCK];
  int first = blockIdx.x * chunk;
  tile[threadIdx.x] = in[first + threadIdx.x];
  __syncthreads();
  out[first + threadIdx.x] = tile[BLOCK - threadIdx.x];  // expect here: out-of-bounds
}
