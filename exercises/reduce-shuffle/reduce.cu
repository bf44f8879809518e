// The reduce-shuffle exercise: sums[b] = the sum of block b's tile of 2 * BLOCK elements of in (0 past n),
// as in reduce-first-add, with the additions done by warp shuffles in registers. README.md explains the
// task. BLOCK is 64, 128 or 256; tile is 2 * BLOCK.

__global__ void reduce(float* sums, const float* in, int n, int tile) {
  // TODO: the two-element load into a register; each warp adds its values with __shfl_down_sync; the warp
  // sums meet in a small shared array; warp 0 adds them the same way. Until then sums stays unwritten.
}
