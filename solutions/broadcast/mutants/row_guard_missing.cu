// mutant: guards the column only, so the threads below the last row read b and write out past their ends
// expect: fail out-of-bounds
__global__ void broadcast(float* out, const float* a, const float* b, int rows, int cols) {
  int column = threadIdx.x;
  int row = threadIdx.y;
  if (column < cols) out[row * cols + column] = a[column] + b[row];  // expect here: out-of-bounds
}
