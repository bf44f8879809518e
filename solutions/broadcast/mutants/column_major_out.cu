// mutant: stores out column-major, out[c * rows + r]: the sums land in the wrong places, and each warp's
// store walks down a column, a sector per lane
// expect: fail wrong-output uncoalesced
__global__ void broadcast(float* out, const float* a, const float* b, int rows, int cols) {
  int column = threadIdx.x;
  int row = threadIdx.y;
  if (row < rows && column < cols) out[column * rows + row] = a[column] + b[row];  // expect here: uncoalesced
}
