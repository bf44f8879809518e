// The reduce-first-add exercise: sums[b] = the sum of block b's tile of 2 * BLOCK elements of in (0 past
// n), with BLOCK threads that each add two elements during the load. README.md explains the task. BLOCK is
// 64 or 256; tile is 2 * BLOCK.

__global__ void reduce(float* sums, const float* in, int n, int tile) {
  // TODO: thread t loads in[first + t] + in[first + t + BLOCK] (each guarded) into partial[t], then the
  // sequential tree; thread 0 writes sums[blockIdx.x]. Until then sums stays unwritten.
}
