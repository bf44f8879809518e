// The map exercise: out[i] = in[i] + k for the n elements of in, one thread each, in one block of n
// threads. README.md explains the task. n equals BLOCK, which the grader sets (-DBLOCK=32, 64, 256).

__global__ void map(float* out, const float* in, int n, int k) {
  // TODO: thread threadIdx.x computes element threadIdx.x. Until then nothing is written, and the grader
  // reports every element of out as unwritten.
}
