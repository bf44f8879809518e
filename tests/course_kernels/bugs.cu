// The bugs a course's first assignments are full of, each in an otherwise correct kernel; the simulator
// must name each at its line: a missing bounds check, an off-by-one write past a shared tile, a missing
// barrier, a barrier inside a branch only some threads take, and a tile read before it is filled.

// Teaches (as a bug): no `if (i < n)`: the last block reads and writes past the arrays.
__global__ void scale_without_guard(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = 2.0f * in[i];  // @no_guard
}

#define BUG_TILE 64

// Teaches (as a bug): the halo loaded one element too far: the last thread writes past the tile.
__global__ void stencil_tile_off_by_one(const float* in, float* out, int n) {
  __shared__ float tile[BUG_TILE + 2];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x + 1] = i < n ? in[i] : 0.0f;
  if (threadIdx.x == 0) tile[0] = i > 0 ? in[i - 1] : 0.0f;
  if (threadIdx.x == blockDim.x - 1) tile[threadIdx.x + 3] = i + 1 < n ? in[i + 1] : 0.0f;  // @off_by_one
  __syncthreads();
  if (i < n) out[i] = tile[threadIdx.x] + tile[threadIdx.x + 1] + tile[threadIdx.x + 2];
}

// Teaches (as a bug): reversing through shared memory without the barrier between write and read.
__global__ void reverse_without_barrier(int* d, int n) {
  __shared__ int s[256];
  int t = threadIdx.x;
  s[t] = d[t];
  d[t] = s[n - t - 1];  // @no_barrier
}

// Teaches (as a bug): __syncthreads() where only some threads of the block arrive.
__global__ void barrier_in_branch(float* data, int n) {
  __shared__ float s[128];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {  // @barrier_branch
    s[threadIdx.x] = data[i];
    __syncthreads();  // @divergent_barrier
    data[i] = s[(threadIdx.x + 1) % blockDim.x];
  }
}

// Teaches (as a bug): only half the tile is loaded, the other half read anyway.
__global__ void half_loaded_tile(const float* in, float* out) {
  __shared__ float tile[64];
  if (threadIdx.x < 32) tile[threadIdx.x] = in[blockIdx.x * 64 + threadIdx.x];
  __syncthreads();
  out[blockIdx.x * 64 + threadIdx.x] = tile[63 - threadIdx.x];  // @uninitialized
}

// Teaches (as a bug): a barrier inside a strided loop whose trip count differs between threads (n is not a
// multiple of the block): the threads that leave early wait at the next barrier while the others loop.
__global__ void barrier_in_strided_loop(const float* in, float* out, int n) {
  __shared__ float partial[64];
  int t = threadIdx.x;
  partial[t] = 0.0f;
  for (int i = t; i < n; i += blockDim.x) {  // @strided_loop
    partial[t] += in[i];
    __syncthreads();  // @loop_barrier
  }
  __syncthreads();  // @after_loop_barrier
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (t < s) partial[t] += partial[t + s];
    __syncthreads();
  }
  if (t == 0) out[0] = partial[0];
}

// Teaches (as a bug): the threads past the end return before the block's barrier.
__global__ void return_before_barrier(const float* in, float* out, int n) {
  __shared__ float tile[64];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;  // @early_return
  tile[threadIdx.x] = in[i];
  __syncthreads();
  out[i] = tile[threadIdx.x] + tile[(threadIdx.x + 1) % blockDim.x];
}
