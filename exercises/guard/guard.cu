// The guard exercise: out[i] = in[i] * in[i] for the n elements of in, with one block of BLOCK threads,
// where n may be smaller than BLOCK. README.md explains the task. BLOCK is 32 or 128.

__global__ void guard(float* out, const float* in, int n) {
  // TODO: square element threadIdx.x, but only in the threads that have one. Until then out stays
  // unwritten.
}
