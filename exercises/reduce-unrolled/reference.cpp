// The reduction reference: the sum of each tile of in (elements past n count as zero), in double.
void reduce(float* sums, const float* in, int n, int tile) {
  for (int first = 0; first < n; first += tile) {
    double sum = 0;
    for (int i = first; i < first + tile && i < n; ++i) sum += in[i];
    sums[first / tile] = static_cast<float>(sum);
  }
}
