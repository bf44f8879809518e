// The blocks solution: the global index from the block and the thread, guarded for the last block.
__global__ void blocks(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + 10.0f;
}
