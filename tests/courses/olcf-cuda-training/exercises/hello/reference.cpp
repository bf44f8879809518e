#include <cstdio>

// The lines every thread of the launch prints, in launch order (compared in any order).
void hello(const gpugrade::Launch& launch) {
  for (unsigned block = 0; block < launch.grid.x; ++block)
    for (unsigned thread = 0; thread < launch.block.x; ++thread)
      std::printf("Hello from block: %u, thread: %u\n", block, thread);
}
