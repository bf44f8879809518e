// The broadcast exercise: out[r * cols + c] = a[c] + b[r] for a rows x cols output, in one block of
// BLOCK x BLOCK threads (rows, cols <= BLOCK). README.md explains the task. BLOCK is 16 or 32.

__global__ void broadcast(float* out, const float* a, const float* b, int rows, int cols) {
  // TODO: each thread with an element of out adds the a of its column and the b of its row. Until then
  // out stays unwritten.
}
