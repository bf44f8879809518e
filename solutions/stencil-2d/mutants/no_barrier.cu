// mutant: no barrier between loading the tile and reading the neighbours, which other warps load
// expect: fail race
__device__ float cell(const float* in, int rows, int cols, int row, int column) {
  return row >= 0 && row < rows && column >= 0 && column < cols ? in[row * cols + column] : 0.0f;
}

__global__ void stencil(float* out, const float* in, int rows, int cols) {
  __shared__ float tile[BY + 2][BX + 2];
  int tx = threadIdx.x, ty = threadIdx.y;
  int column = blockIdx.x * BX + tx;
  int row = blockIdx.y * BY + ty;
  tile[ty + 1][tx + 1] = cell(in, rows, cols, row, column);  // expect here: race
  if (tx == 0) tile[ty + 1][0] = cell(in, rows, cols, row, column - 1);
  if (tx == BX - 1) tile[ty + 1][BX + 1] = cell(in, rows, cols, row, column + 1);
  if (ty == 0) tile[0][tx + 1] = cell(in, rows, cols, row - 1, column);
  if (ty == BY - 1) tile[BY + 1][tx + 1] = cell(in, rows, cols, row + 1, column);
  if (row < rows && column < cols)
    out[row * cols + column] = 4.0f * tile[ty + 1][tx + 1] - tile[ty][tx + 1] - tile[ty + 2][tx + 1] -  // expect here: race
                               tile[ty + 1][tx] - tile[ty + 1][tx + 2];
}
