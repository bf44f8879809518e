// mutant: reverses straight from global memory: correct, but not the technique the exercise teaches
// expect: fail missing-requirement
__global__ void reverse_chunks(float* out, const float* in, int n, int chunk) {  // expect here: missing-requirement
  int first = blockIdx.x * chunk;
  out[first + threadIdx.x] = in[first + chunk - 1 - threadIdx.x];
}
