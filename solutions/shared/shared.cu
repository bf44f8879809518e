// The shared solution: a coalesced load into the tile, a barrier, a reversed read of the tile and a
// coalesced store.
__global__ void reverse_chunks(float* out, const float* in, int n, int chunk) {
  __shared__ float tile[BLOCK];
  int first = blockIdx.x * chunk;
  tile[threadIdx.x] = in[first + threadIdx.x];
  __syncthreads();
  out[first + threadIdx.x] = tile[BLOCK - 1 - threadIdx.x];
}
