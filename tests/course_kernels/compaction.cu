// Stream compaction (keep the positive elements): each kept element takes a slot from one global
// atomic counter, so the output's order depends on the schedule; and the warp-aggregated version, where a
// warp's leader takes one slot for all its kept lanes (__ballot_sync, __popc, a shuffle of the base).

// Teaches: an atomic counter hands out output slots; the kept set is fixed, its order is not.
__global__ void compact_atomic_counter(const int* in, int* out, int* count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && in[i] > 0) {
    int slot = atomicAdd(count, 1);
    out[slot] = in[i];
  }
}

// Teaches: warp-aggregated atomics: one atomicAdd per warp instead of one per kept element.
__global__ void compact_warp_aggregated(const int* in, int* out, int* count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x % warpSize;
  bool keep = i < n && in[i] > 0;
  unsigned int votes = __ballot_sync(0xffffffff, keep);
  int base = 0;
  if (lane == 0 && votes != 0) base = atomicAdd(count, __popc(votes));
  base = __shfl_sync(0xffffffff, base, 0);
  if (keep) out[base + __popc(votes & ((1u << lane) - 1))] = in[i];
}
