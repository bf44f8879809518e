// The residue reference: sums[b] is the sum of in[b * tile] ... in[b * tile + tile - 1], the elements
// past n counting as zero. It adds in double so the reference itself adds no rounding worth naming.
void block_sums(float* sums, const float* in, int n, int tile) {
  for (int first = 0; first < n; first += tile) {
    double sum = 0;
    for (int i = first; i < first + tile && i < n; ++i) sum += in[i];
    sums[first / tile] = static_cast<float>(sum);
  }
}
