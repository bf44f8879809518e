// The reduce-interleaved exercise: sums[b] = the sum of block b's BLOCK elements of in (0 past n), added as
// a tree of neighbours. README.md explains the task. BLOCK (and tile) is 64 or 256.

__global__ void reduce(float* sums, const float* in, int n, int tile) {
  // TODO: load the block's elements into a shared tile, then for s = 1, 2, 4, ... add slot index + s into
  // slot index for index = 2 * s * t, with a barrier after every step; thread 0 writes sums[blockIdx.x].
  // Until then sums stays unwritten.
}
