// Convolutions and stencils with halos: a 1-D convolution with its mask in constant memory, the 1-D
// stencil whose edge threads also load the halo, a 1-D convolution whose whole block loads a tile plus
// halo, a 2-D convolution over shared tiles with halos, and a Jacobi sweep of the 5-point stencil.

#define MASK_WIDTH 5
#define MASK_RADIUS (MASK_WIDTH / 2)

// A smoothing mask, set at compile time (a course sets it with cudaMemcpyToSymbol).
__constant__ float kMask[MASK_WIDTH] = {0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f};

// Teaches: a convolution reading its mask from constant memory; outside the input counts as zero.
__global__ void conv1d_constant_mask(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float sum = 0.0f;
  for (int j = 0; j < MASK_WIDTH; ++j) {
    int k = i - MASK_RADIUS + j;
    if (k >= 0 && k < n) sum += in[k] * kMask[j];
  }
  out[i] = sum;
}

#define RADIUS 3
#define STENCIL_BLOCK 64

// Teaches: a 1-D stencil (sum of the 2 x RADIUS + 1 neighbours) where the first RADIUS threads of a block
// also load the halo on both sides.
__global__ void stencil1d_halo(const int* in, int* out, int n) {
  __shared__ int temp[STENCIL_BLOCK + 2 * RADIUS];
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  int s = threadIdx.x + RADIUS;
  temp[s] = g < n ? in[g] : 0;
  if (threadIdx.x < RADIUS) {
    int left = g - RADIUS, right = g + STENCIL_BLOCK;
    temp[s - RADIUS] = left >= 0 && left < n ? in[left] : 0;
    temp[s + STENCIL_BLOCK] = right < n ? in[right] : 0;
  }
  __syncthreads();
  if (g < n) {
    int sum = 0;
    for (int off = -RADIUS; off <= RADIUS; ++off) sum += temp[s + off];
    out[g] = sum;
  }
}

// Teaches: a tiled 1-D convolution where each block's threads cover tile and halo together (blockDim.x =
// output tile + 2 x radius); only the inner threads write. The mask comes from global memory.
__global__ void conv1d_tiled_halo(const float* in, const float* mask, float* out, int n, int width) {
  extern __shared__ float tile[];
  int radius = width / 2;
  int out_tile = blockDim.x - 2 * radius;
  int i = blockIdx.x * out_tile + threadIdx.x - radius;
  tile[threadIdx.x] = (i >= 0 && i < n) ? in[i] : 0.0f;
  __syncthreads();
  int t = threadIdx.x - radius;
  if (t >= 0 && t < out_tile && i < n) {
    float sum = 0.0f;
    for (int j = 0; j < width; ++j) sum += tile[t + j] * mask[j];
    out[i] = sum;
  }
}

#define OUT_TILE 14
#define IN_TILE (OUT_TILE + 2)

// Teaches: a 2-D 3 x 3 convolution; blocks of IN_TILE x IN_TILE threads load a tile with its halo, the
// inner OUT_TILE x OUT_TILE compute.
__global__ void conv2d_tiled_halo(const float* in, const float* mask3x3, float* out, int height, int width) {
  __shared__ float tile[IN_TILE][IN_TILE];
  int row = blockIdx.y * OUT_TILE + threadIdx.y - 1;
  int col = blockIdx.x * OUT_TILE + threadIdx.x - 1;
  tile[threadIdx.y][threadIdx.x] = (row >= 0 && row < height && col >= 0 && col < width) ? in[row * width + col] : 0.0f;
  __syncthreads();
  int ty = threadIdx.y - 1, tx = threadIdx.x - 1;
  if (ty >= 0 && ty < OUT_TILE && tx >= 0 && tx < OUT_TILE && row < height && col < width) {
    float sum = 0.0f;
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) sum += mask3x3[r * 3 + c] * tile[ty + r][tx + c];
    out[row * width + col] = sum;
  }
}

// Teaches: one Jacobi sweep of Laplace's equation: interior points become the mean of their four
// neighbours; the boundary keeps its values.
__global__ void jacobi_5point(const float* u, float* u_next, int nx, int ny) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny) return;
  int idx = y * nx + x;
  if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1)
    u_next[idx] = u[idx];
  else
    u_next[idx] = 0.25f * (u[idx - 1] + u[idx + 1] + u[idx - nx] + u[idx + nx]);
}
