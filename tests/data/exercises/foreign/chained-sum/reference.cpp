// The inclusive prefix of the block sums, and the whole sum, in double.
void chained_sum(float* prefix, float* total, const float* in, int n, const gpugrade::Launch& launch) {
  const int block = static_cast<int>(launch.block.x);
  double running = 0.0;
  for (int b = 0; b * block < n; ++b) {
    for (int i = b * block; i < n && i < (b + 1) * block; ++i) running += in[i];
    prefix[b] = static_cast<float>(running);
  }
  total[0] = static_cast<float>(running);
}
