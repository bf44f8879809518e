// The matmul-tiled exercise: c = a * b for row-major a (m x k), b (k x n) and c (m x n), one thread per
// element of c in blocks of TILE x TILE threads, with both operands staged through shared tiles. README.md
// explains the task. TILE is 8 or 16.

__global__ void matmul(float* c, const float* a, const float* b, int m, int k, int n) {
  // TODO: loop over the k dimension a tile at a time: load a tile of a and a tile of b into shared memory
  // (zeros outside the matrices), wait, accumulate TILE products, wait. Until then c stays unwritten and
  // the kernel uses no shared memory.
}
