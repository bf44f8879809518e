// The 1-D convolution reference: each output is the mask's weighted sum of its neighbourhood, elements outside
// the array counting as zero, summed in double. The mask comes as a pointer (the kernel reads it from constant
// memory); its width is the variant's MASK_WIDTH.
void convolution_1d(float* out, const float* in, int n, const float* mask, const gpugrade::Launch& launch) {
  const long long width = launch.define("MASK_WIDTH");
  for (int i = 0; i < n; ++i) {
    double sum = 0;
    for (long long j = 0; j < width; ++j) {
      const long long k = i + j - width / 2;
      if (k >= 0 && k < n) sum += static_cast<double>(mask[j]) * in[k];
    }
    out[i] = static_cast<float>(sum);
  }
}
