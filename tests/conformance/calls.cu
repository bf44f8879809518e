// Function-call kernels: __noinline__ device functions (.func with .param passing), a struct returned
// by value, a call made by some lanes only, a callee with its own local array, and recursion.

struct Pair {
  int sum;
  long long product;
};

__device__ __noinline__ int mix(int a, int b, float scale) {
  return static_cast<int>(static_cast<float>(a ^ b) * scale) + (a >> 3);
}

__device__ __noinline__ Pair combine(int a, int b) { return Pair{a + b, static_cast<long long>(a) * b}; }

__device__ __noinline__ void store_twice(int* p, int v) {
  p[0] = v;
  p[1] = v * 2;
}

__device__ __noinline__ int scramble(int seed) {
  int a[12];
  for (int k = 0; k < 12; ++k) a[k] = seed * (k + 1);
  return a[seed & 7] - a[(seed >> 3) & 7] + a[11];
}

// Iterative: the simulator inlines calls and refuses recursion with a clear error (harness/sim/kernel.cc).
__device__ __noinline__ int fib(int n) {
  int previous = 0, current = 1;
  for (int k = 0; k < n; ++k) {
    int next = previous + current;
    previous = current;
    current = next;
  }
  return previous;
}

// out[op * 64 + i]; pairs[2 * i] and pairs[2 * i + 1] are written by store_twice.
extern "C" __global__ void device_calls(const int* a, const int* b, int* out, long long* products,
                                        int* pairs) {
  constexpr int kCount = 64;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int x = a[i], y = b[i];
  out[0 * kCount + i] = mix(x, y, 0.75f);
  const Pair p = combine(x, y);
  out[1 * kCount + i] = p.sum;
  products[i] = p.product;
  out[2 * kCount + i] = (x & 1) ? scramble(x) : -1;
  out[3 * kCount + i] = fib(y & 15);
  store_twice(pairs + 2 * i, x - y);
}
