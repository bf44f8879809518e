// The reduce-sequential exercise: sums[b] = the sum of block b's BLOCK elements of in (0 past n), added by
// folding the upper half of the tile onto the lower half. README.md explains the task. BLOCK is 64 or 256.

__global__ void reduce(float* sums, const float* in, int n, int tile) {
  // TODO: load the tile, then for s = BLOCK / 2, BLOCK / 4, ... 1 let threads t < s add partial[t + s]
  // into partial[t], with a barrier after every round; thread 0 writes sums[blockIdx.x]. Until then sums
  // stays unwritten.
}
