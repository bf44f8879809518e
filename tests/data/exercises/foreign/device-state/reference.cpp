// What report writes after tally, when both start from the module's initializers: the blocks counted from
// 5, the input's sum from 0, and table[b % 4] (from {2, 3, 5, 7}) one more for each block b.
void tally(const int* in, int n, int* out, const gpugrade::Launch& launch) {
  const long long block = launch.define("BLOCK");
  const int blocks = static_cast<int>((n + block - 1) / block);
  int sum = 0;
  for (int i = 0; i < n; ++i) sum += in[i];
  int table[4] = {2, 3, 5, 7};
  for (int b = 0; b < blocks; ++b) ++table[b % 4];
  out[0] = 5 + blocks;
  out[1] = sum;
  for (int k = 0; k < 4; ++k) out[2 + k] = table[k];
}
