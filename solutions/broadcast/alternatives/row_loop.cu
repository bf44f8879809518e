// An alternative broadcast: each thread keeps its column's a in a register and walks down the rows in
// steps of blockDim.y, so a is read once per thread however the block is shaped.
__global__ void broadcast(float* out, const float* a, const float* b, int rows, int cols) {
  const int column = threadIdx.x;
  if (column >= cols) return;
  const float mine = a[column];
  for (int row = threadIdx.y; row < rows; row += blockDim.y) out[row * cols + column] = mine + b[row];
}
