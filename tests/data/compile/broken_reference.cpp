// A reference with an error on line 4.
void scale(float* out, const float* in, int n) {
  for (int i = 0; i < n; ++i)
    out[i] = in[i] * undeclared_factor;
}
