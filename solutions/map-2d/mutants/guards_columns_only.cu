// mutant: checks the column but not the row, so threads below the matrix index past its end
// expect: fail out-of-bounds
__global__ void map_2d(float* out, const float* in, int rows, int cols) {
  int column = threadIdx.x;
  int row = threadIdx.y;
  if (column < cols) out[row * cols + column] = 2.0f * in[row * cols + column];  // expect here: out-of-bounds
}
