// mutant: takes a per row and b per column, which overruns the shorter vector when the matrix is not square
// expect: fail out-of-bounds
__global__ void broadcast(float* out, const float* a, const float* b, int rows, int cols) {
  int column = threadIdx.x;
  int row = threadIdx.y;
  if (row < rows && column < cols) out[row * cols + column] = a[row] + b[column];  // expect here: out-of-bounds
}
