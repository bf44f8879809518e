// The kernel's pointers start past the halo; the launch gives the number of outputs.
void stencil_1d(int* in, int* out, const gpugrade::Launch& launch) {
  const long long radius = launch.define("RADIUS");
  const long long n = static_cast<long long>(launch.grid.x) * launch.block.x;
  for (long long i = 0; i < n; ++i) {
    int sum = 0;
    for (long long k = -radius; k <= radius; ++k) sum += in[i + k];
    out[i] = sum;
  }
}
