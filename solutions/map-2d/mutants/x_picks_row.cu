// mutant: threadIdx.x picks the row, so a warp's lanes walk down a column, a sector each
// expect: fail uncoalesced
__global__ void map_2d(float* out, const float* in, int rows, int cols) {
  int row = threadIdx.x;
  int column = threadIdx.y;
  if (row < rows && column < cols) out[row * cols + column] = 2.0f * in[row * cols + column];  // expect here: uncoalesced
}
