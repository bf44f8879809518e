// mutant: gives lane t element (t * 8) % n + (t * 8) / n, a permutation that still covers every element
// once, but spreads each warp's 32 accesses over 8 times as many sectors
// expect: fail uncoalesced
__global__ void map(float* out, const float* in, int n, int k) {
  int t = threadIdx.x;
  int i = (t * 8) % n + (t * 8) / n;
  out[i] = in[i] + k;  // expect here: uncoalesced
}
