// The reduce-unrolled exercise: sums[b] = the sum of block b's tile of 2 * BLOCK elements of in (0 past
// n), as in reduce-first-add, with the last six rounds done by one warp without block barriers. README.md
// explains the task. BLOCK is 64, 128 or 256; tile is 2 * BLOCK.

__global__ void reduce(float* sums, const float* in, int n, int tile) {
  // TODO: the two-element load, the block-wide tree while s > 32, then the first warp alone adds the last
  // 64 sums with __syncwarp() between its steps. Until then sums stays unwritten.
}
