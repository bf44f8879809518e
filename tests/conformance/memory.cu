// Memory kernels: local arrays indexed at run time, vector loads and stores, dynamic and static shared
// memory with barriers, constant and module-scope global variables with initializers.

__device__ int thread_index() { return blockIdx.x * blockDim.x + threadIdx.x; }

// A per-thread array indexed by values from memory lives in local memory (.local depot).
extern "C" __global__ void local_array(const int* idx, int* out) {
  const int i = thread_index();
  int a[24];
  for (int k = 0; k < 24; ++k) a[k] = i * 100 + k;
  for (int k = 0; k < 8; ++k) a[idx[(i + k) % 64] % 24] += k + 1;
  int acc = 0;
  for (int k = 0; k < 4; ++k) acc = acc * 31 + a[idx[(i * 3 + k) % 64] % 24];
  out[i] = acc;
}

// float4, int2, double2 and uchar4 loads and stores (ld/st .v2/.v4), with a non-vector check sum.
extern "C" __global__ void vector_access(const float4* f4, const int2* i2, const double2* d2,
                                         const uchar4* c4, float4* of4, int2* oi2, double2* od2,
                                         uchar4* oc4) {
  const int i = thread_index();
  const float4 a = f4[i];
  of4[i] = make_float4(a.w, a.z * 2.0f, a.y + 1.0f, a.x - a.w);
  const int2 b = i2[i];
  oi2[i] = make_int2(b.y ^ b.x, b.x - b.y);
  const double2 c = d2[i];
  od2[i] = make_double2(c.y * 0.5, c.x + c.y);
  const uchar4 d = c4[i];
  oc4[i] = make_uchar4(d.w, static_cast<unsigned char>(d.z + 1), d.y, static_cast<unsigned char>(d.x * 3));
}

// Dynamic shared memory (launched with 1088 bytes): each block reverses its 256 floats through it,
// keeps a 16-word integer histogram beside them, and reports %dynamic_smem_size.
extern "C" __global__ void dynamic_shared(const float* in, float* out, unsigned* hist) {
  extern __shared__ unsigned char smem[];
  float* values = reinterpret_cast<float*>(smem);
  unsigned* counts = reinterpret_cast<unsigned*>(smem + 256 * sizeof(float));
  const unsigned t = threadIdx.x;
  const int i = thread_index();
  values[t] = in[i];
  if (t < 16) counts[t] = 0;
  __syncthreads();
  out[i] = values[255 - t];
  atomicAdd(&counts[__float_as_uint(values[t]) % 16], 1u);
  __syncthreads();
  if (t < 16) hist[blockIdx.x * 17 + t] = counts[t];
  if (t == 16) {
    unsigned size;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(size));
    hist[blockIdx.x * 17 + 16] = size;
  }
}

// A 16x16 tile transposed through a padded static shared array, grid of 2x3 tiles of a 32x48 matrix.
extern "C" __global__ void shared_transpose(const int* in, int* out) {
  __shared__ int tile[16][17];
  const int cols = 32, rows = 48;
  const int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = in[y * cols + x];
  __syncthreads();
  const int tx = blockIdx.y * 16 + threadIdx.x, ty = blockIdx.x * 16 + threadIdx.y;
  out[ty * rows + tx] = tile[threadIdx.x][threadIdx.y];
}

__constant__ int kTable[16] = {3, -1, 4, -1, 5, -9, 2, -6, 5, 3, -5, 8, 9, -7, 9, 3};
__constant__ double kScale = 0.375;
__device__ int gOffsets[4] = {1000, 2000, 3000, 4000};

// Constant-bank lookups indexed per thread and a module-scope global read.
extern "C" __global__ void constants(const int* idx, int* out, double* scaled) {
  const int i = thread_index();
  const int k = idx[i];
  out[i] = kTable[k & 15] + gOffsets[(k >> 4) & 3];
  scaled[i] = kTable[(k >> 2) & 15] * kScale;
}
