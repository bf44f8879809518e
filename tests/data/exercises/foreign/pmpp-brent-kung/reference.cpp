// An inclusive scan of each section of 2 * blockDim.x elements on its own.
void brent_kung_scan(float* X, float* Y, unsigned n, const gpugrade::Launch& launch) {
  const unsigned section = 2 * launch.block.x;
  double sum = 0;
  for (unsigned i = 0; i < n; ++i) {
    if (i % section == 0) sum = 0;
    sum += X[i];
    Y[i] = static_cast<float>(sum);
  }
}
