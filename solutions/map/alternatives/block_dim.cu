// An alternative map: blockDim.x and blockIdx.x instead of assuming one block, with a guard, as a kernel
// for any launch would be written. With the exercise's one block of n threads it does the same work.
__global__ void map(float* out, const float* in, int n, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __fadd_rn(in[i], static_cast<float>(k));
}
