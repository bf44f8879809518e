// The prefix-sum exercise: each block scans its own chunk of chunk = BLOCK elements, out[first + t] =
// in[first] + ... + in[first + t] (an inclusive scan that restarts at every chunk). README.md explains
// the task. BLOCK is 32, 128 or 256.

__global__ void prefix_sum(int* out, const int* in, int n, int chunk) {
  // TODO: load the chunk into a shared tile and scan it in log2(BLOCK) steps, each a read, a barrier, an
  // add and a barrier. Until then out stays unwritten and the kernel uses no shared memory.
}
