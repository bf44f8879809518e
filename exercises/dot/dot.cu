// The dot exercise: out[0] = a[0] * b[0] + ... + a[n - 1] * b[n - 1], computed by one block of BLOCK
// threads. README.md explains the task. BLOCK is 64 or 256; n is 1, 100 or 3001.

__global__ void dot(float* out, const float* a, const float* b, int n) {
  // TODO: each thread sums its strided share of the products in a register; the block adds the BLOCK
  // sums in a shared tree; thread 0 writes out[0]. Until then out stays unwritten.
}
