// Writes TILE_DIM * 1000 + 7, so the PTX shows which value the define had.
__global__ void tile_marker(int* out) { out[0] = TILE_DIM * 1000 + 7; }
