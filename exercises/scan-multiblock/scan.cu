// The scan-multiblock exercise: out[i] = in[0] + in[1] + ... + in[i] for the whole array, one thread per
// element in ceil_div(n, BLOCK) blocks of BLOCK threads. README.md explains the task. BLOCK is 128 or 256.

__global__ void scan(int* out, const int* in, int n) {
  // TODO: the sum of everything before this block's chunk (a block reduction), then the chunk's own scan
  // in log steps, then each output plus that sum. Until then out stays unwritten.
}
