// Control-flow kernels: nested branches, loops whose trip count differs per lane (with break and
// continue), early return, and a switch, each checked after the warp reconverges.

__device__ int thread_index() { return blockIdx.x * blockDim.x + threadIdx.x; }

// path[i] records which arms ran (one bit each); value[i] what they computed; joined[i] is a ballot
// taken after every branch closed, which must see the whole warp again.
extern "C" __global__ void nested_branches(const int* v, unsigned* path, int* value, unsigned* joined) {
  const int i = thread_index();
  const int x = v[i];
  unsigned bits = 0;
  int acc = x;
  if (x > 0) {
    bits |= 1;
    if (x % 3 == 0) {
      bits |= 2;
      acc = acc * 5 + 1;
    } else if (x % 3 == 1) {
      bits |= 4;
      acc -= 7;
      if (acc < 0) {
        bits |= 8;
        acc = -acc;
      }
    } else {
      bits |= 16;
      acc ^= 0x55;
    }
  } else {
    bits |= 32;
    switch (-x % 5) {
      case 0:
        acc += 100;
        break;
      case 1:
        acc *= 3;
        break;
      case 2:
        acc = ~acc;
        break;
      case 3:
        acc <<= 2;
        break;
      default:
        acc = 12345;
        break;
    }
  }
  path[i] = bits;
  value[i] = acc;
  joined[i] = __ballot_sync(0xffffffffu, acc & 1);
}

// Lane i loops n[i] times (0 to 70): every 3rd iteration is skipped with continue, and the loop breaks
// early when the running hash hits a pattern. Inner loops vary per iteration as well.
extern "C" __global__ void divergent_loops(const int* n, unsigned* hash, int* trips, unsigned* joined) {
  const int i = thread_index();
  const int count = n[i];
  unsigned h = 2166136261u;
  int k = 0;
  for (; k < count; ++k) {
    if (k % 3 == 2) continue;
    h = (h ^ static_cast<unsigned>(k)) * 16777619u;
    for (int j = 0; j < (k & 3); ++j) h += h >> (j + 1);
    if ((h & 0xff) == 0x5a) break;
  }
  hash[i] = h;
  trips[i] = k;
  joined[i] = __ballot_sync(0xffffffffu, k > 10);
}

// Odd lanes write and return at once; the even ones go on to shuffle among themselves (member mask of
// the even lanes) and record who is still active. Warp 1 returns entirely except lane 31.
extern "C" __global__ void early_return(const int* v, int* out, unsigned* mask) {
  const int i = thread_index();
  const int lane = threadIdx.x % 32;
  const int x = v[i];
  if (lane & 1) {
    out[i] = -x;
    mask[i] = 0;
    return;
  }
  if (threadIdx.x / 32 == 1 && lane != 30) {
    out[i] = x * 2;
    mask[i] = 1;
    return;
  }
  const unsigned active = __activemask();
  out[i] = __shfl_xor_sync(active, x, active == 0x55555555u ? 2 : 0);
  mask[i] = active;
}
