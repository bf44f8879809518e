// mutant: assumes blocks of 32 threads, right at BLOCK = 32; larger blocks overlap and leave the tail unwritten
// expect: fail unwritten-output
__global__ void blocks(float* out, const float* in, int n) {
  int i = blockIdx.x * 32 + threadIdx.x;
  if (i < n) out[i] = in[i] + 10.0f;
}
