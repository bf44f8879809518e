void transpose(float* odata, float* idata, int width, int height) {
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) odata[x * height + y] = idata[y * width + x];
}
