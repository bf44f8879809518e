// mutant: uses threadIdx.x alone, so every block writes the first BLOCK elements and the rest stay unwritten
// expect: fail unwritten-output
__global__ void blocks(float* out, const float* in, int n) {
  int i = threadIdx.x;
  if (i < n) out[i] = in[i] + 10.0f;
}
