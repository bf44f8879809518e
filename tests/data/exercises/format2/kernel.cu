__global__ void first(float*, float*, const float*, const int*, const unsigned char*, float, int) {}
__global__ void second(float*, float*, unsigned long long*, int) {}
