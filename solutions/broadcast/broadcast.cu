// The broadcast solution: a warp reads one b (broadcast to every lane) and a contiguous run of a.
__global__ void broadcast(float* out, const float* a, const float* b, int rows, int cols) {
  int column = threadIdx.x;
  int row = threadIdx.y;
  if (row < rows && column < cols) out[row * cols + column] = a[column] + b[row];
}
