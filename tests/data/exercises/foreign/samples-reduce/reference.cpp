// Each block's sum of the elements its grid-stride pairs visit.
void reduce(const float* g_idata, float* g_odata, unsigned n, const gpugrade::Launch& launch) {
  const unsigned block = launch.block.x, grid = launch.grid.x;
  for (unsigned b = 0; b < grid; ++b) {
    double sum = 0;
    for (unsigned t = 0; t < block; ++t)
      for (unsigned i = b * block * 2 + t; i < n; i += block * 2 * grid) {
        sum += g_idata[i];
        if (i + block < n) sum += g_idata[i + block];
      }
    g_odata[b] = static_cast<float>(sum);
  }
}
