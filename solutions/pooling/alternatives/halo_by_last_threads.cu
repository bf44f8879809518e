// An alternative layout: the tile holds the chunk at its front and the halo is fetched by each thread from
// the tile or, for the first two threads of the block, from global memory directly; blockDim.x sizes it.
__global__ void pooling(float* out, const float* in, int n) {
  __shared__ float chunk[BLOCK];
  const int t = threadIdx.x;
  const int i = blockIdx.x * blockDim.x + t;
  chunk[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  if (i >= n) return;
  const float before1 = t >= 1 ? chunk[t - 1] : (i >= 1 ? in[i - 1] : 0.0f);
  const float before2 = t >= 2 ? chunk[t - 2] : (i >= 2 ? in[i - 2] : 0.0f);
  out[i] = (before2 + before1) + chunk[t];
}
