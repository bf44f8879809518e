// Tree reduction in shared memory with sequential addressing: 256 threads per block, one element each,
// each block writes the sum of its 256 elements. Stresses shared loads and stores and 9 barriers a block.
__global__ void reduce_shared(int *partial, const int *in, int n)
{
  __shared__ int sums[256];
  unsigned t = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + t;
  sums[t] = i < n ? in[i] : 0;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (t < stride) sums[t] += sums[t + stride];
    __syncthreads();
  }
  if (t == 0) partial[blockIdx.x] = sums[0];
}
