// The prefix-sum reference: a running sum that restarts at the start of every chunk.
void prefix_sum(int* out, const int* in, int n, int chunk) {
  int sum = 0;
  for (int i = 0; i < n; ++i) {
    if (i % chunk == 0) sum = 0;
    sum += in[i];
    out[i] = sum;
  }
}
