// The matmul exercise: c = a * b for row-major a (m x k), b (k x n) and c (m x n), one thread per element
// of c in blocks of BX x BY threads. README.md explains the task. (BX, BY) is (16, 16) or (32, 4).

__global__ void matmul(float* c, const float* a, const float* b, int m, int k, int n) {
  // TODO: compute element (row, column) of c as the dot product of row `row` of a and column `column`
  // of b. Until then c stays unwritten.
}
