// The histogram exercise: bins[b] += the number of elements x of in with x % count == b, for b below count.
// bins starts at zero. README.md explains the task. (BLOCK, BINS) is (128, 64) or (64, 256); count equals
// BINS; the grid has at most four blocks, so each block loops over the input.

__global__ void histogram(unsigned* bins, const unsigned* in, int n, int count) {
  // TODO: zero a __shared__ unsigned local[BINS], count the block's share of in into it with shared
  // atomics, then add it to bins with one global atomic per bin. Until then every bin stays zero.
}
