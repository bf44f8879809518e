// mutant: no barrier between the load into the tile and the reversed read: right with one warp per block,
// a race with more
// expect: fail race
__global__ void reverse_chunks(float* out, const float* in, int n, int chunk) {
  __shared__ float tile[BLOCK];
  int first = blockIdx.x * chunk;
  tile[threadIdx.x] = in[first + threadIdx.x];  // expect here: race
  out[first + threadIdx.x] = tile[BLOCK - 1 - threadIdx.x];  // expect here: race
}
