// The map solution: thread t of the one block computes element t. Neighbouring lanes of a warp touch
// neighbouring floats, so each warp's load and store are one coalesced 128-byte request.
__global__ void map(float* out, const float* in, int n, int k) {
  int i = threadIdx.x;
  out[i] = in[i] + k;
}
