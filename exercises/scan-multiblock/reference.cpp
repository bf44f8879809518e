// The scan-multiblock reference: one running sum over the whole array.
void scan(int* out, const int* in, int n) {
  int sum = 0;
  for (int i = 0; i < n; ++i) out[i] = sum += in[i];
}
