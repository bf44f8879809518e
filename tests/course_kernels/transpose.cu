// Matrix transpose, the coalescing lesson: the naive kernel (reads coalesced, writes strided), a shared
// tile (both coalesced, but the column reads conflict in the banks), the tile padded by one column, and
// the tile walked by 32 x 8 threads that each move four rows.

#define TDIM 32
#define ROWS_PER_PASS 8

// Teaches: out (cols x rows) = transpose of in (rows x cols), straight from global memory.
__global__ void transpose_naive(const float* in, float* out, int rows, int cols) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < cols && y < rows) out[x * rows + y] = in[y * cols + x];
}

// Teaches: staging a 32 x 32 tile in shared memory so that the writes are coalesced too.
__global__ void transpose_shared(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[TDIM][TDIM];
  int x = blockIdx.x * TDIM + threadIdx.x;
  int y = blockIdx.y * TDIM + threadIdx.y;
  if (x < cols && y < rows) tile[threadIdx.y][threadIdx.x] = in[y * cols + x];
  __syncthreads();
  x = blockIdx.y * TDIM + threadIdx.x;
  y = blockIdx.x * TDIM + threadIdx.y;
  if (x < rows && y < cols) out[y * rows + x] = tile[threadIdx.x][threadIdx.y];  // @column_read
}

// Teaches: one column of padding puts a tile's column in 32 different banks.
__global__ void transpose_padded(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[TDIM][TDIM + 1];
  int x = blockIdx.x * TDIM + threadIdx.x;
  int y = blockIdx.y * TDIM + threadIdx.y;
  if (x < cols && y < rows) tile[threadIdx.y][threadIdx.x] = in[y * cols + x];
  __syncthreads();
  x = blockIdx.y * TDIM + threadIdx.x;
  y = blockIdx.x * TDIM + threadIdx.y;
  if (x < rows && y < cols) out[y * rows + x] = tile[threadIdx.x][threadIdx.y];
}

// Teaches: fewer threads than tile elements: blocks of 32 x 8, each thread moving TDIM / 8 rows.
__global__ void transpose_rows_per_thread(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[TDIM][TDIM + 1];
  int x = blockIdx.x * TDIM + threadIdx.x;
  int y = blockIdx.y * TDIM + threadIdx.y;
  for (int j = 0; j < TDIM; j += ROWS_PER_PASS)
    if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
  __syncthreads();
  x = blockIdx.y * TDIM + threadIdx.x;
  y = blockIdx.x * TDIM + threadIdx.y;
  for (int j = 0; j < TDIM; j += ROWS_PER_PASS)
    if (x < rows && y + j < cols) out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}
