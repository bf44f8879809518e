// Shared memory basics: reversing an array through a static and through a dynamic shared array, and
// one dynamic allocation carved into two arrays of different types.

#define REVERSE_MAX 256

// Teaches: a static shared array and the barrier between writing it and reading it back reversed.
__global__ void reverse_static_shared(int* d, int n) {
  __shared__ int s[REVERSE_MAX];
  int t = threadIdx.x;
  s[t] = d[t];
  __syncthreads();
  d[t] = s[n - t - 1];
}

// Teaches: the same with `extern __shared__`, sized by the launch's third parameter.
__global__ void reverse_dynamic_shared(int* d, int n) {
  extern __shared__ int s[];
  int t = threadIdx.x;
  s[t] = d[t];
  __syncthreads();
  d[t] = s[n - t - 1];
}

// Teaches: one dynamic allocation holding a float array then an int array (floats first for alignment):
// per block, the values and how many are above the block's first value.
__global__ void carve_dynamic_shared(const float* in, float* scaled, int* above_first) {
  extern __shared__ unsigned char pool[];
  float* values = reinterpret_cast<float*>(pool);
  int* flags = reinterpret_cast<int*>(values + blockDim.x);
  int t = threadIdx.x;
  values[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  flags[t] = values[t] > values[0] ? 1 : 0;
  scaled[blockIdx.x * blockDim.x + t] = values[t] / (values[0] == 0.0f ? 1.0f : values[0]);
  __syncthreads();
  if (t == 0) {
    int count = 0;
    for (int k = 0; k < blockDim.x; ++k) count += flags[k];
    above_first[blockIdx.x] = count;
  }
}
