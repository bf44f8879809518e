// The axis-sum exercise: out[r] = in[r * cols] + ... + in[r * cols + cols - 1] for each row r of a
// row-major rows x cols matrix, one block of BLOCK threads per row. README.md explains the task. BLOCK is
// 64 or 256.

__global__ void axis_sum(float* out, const float* in, int rows, int cols) {
  // TODO: the block's threads share the row (interleaved, not in pieces), each sums its share in a
  // register, and a shared tree adds the BLOCK sums. Until then out stays unwritten.
}
