// An inclusive scan of each section of blockDim.x elements on its own.
void kogge_stone_scan(float* X, float* Y, unsigned n, const gpugrade::Launch& launch) {
  const unsigned section = launch.block.x;
  double sum = 0;
  for (unsigned i = 0; i < n; ++i) {
    if (i % section == 0) sum = 0;
    sum += X[i];
    Y[i] = static_cast<float>(sum);
  }
}
