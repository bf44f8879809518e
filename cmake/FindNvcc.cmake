# Finds nvcc the way CUDA users expect: CUDACXX, then CUDA_HOME, then PATH, then /usr/local/cuda.
# The grader runs nvcc at grading time (to PTX only), so configure only needs to know where it is.
set(_nvcc_hints)
if(DEFINED ENV{CUDACXX} AND NOT "$ENV{CUDACXX}" STREQUAL "")
  set(GPUGRADE_NVCC "$ENV{CUDACXX}" CACHE FILEPATH "nvcc used to compile submissions to PTX")
endif()
if(DEFINED ENV{CUDA_HOME} AND NOT "$ENV{CUDA_HOME}" STREQUAL "")
  list(APPEND _nvcc_hints "$ENV{CUDA_HOME}/bin")
endif()
find_program(GPUGRADE_NVCC nvcc HINTS ${_nvcc_hints} PATHS /usr/local/cuda/bin
             DOC "nvcc used to compile submissions to PTX")
if(NOT GPUGRADE_NVCC OR NOT EXISTS "${GPUGRADE_NVCC}")
  message(FATAL_ERROR "gpugrade needs nvcc: not found in CUDACXX, CUDA_HOME/bin, PATH or /usr/local/cuda/bin "
                      "(install the CUDA toolkit or set CUDACXX=/path/to/nvcc)")
endif()
get_filename_component(GPUGRADE_CUDA_ROOT "${GPUGRADE_NVCC}" DIRECTORY)
get_filename_component(GPUGRADE_CUDA_ROOT "${GPUGRADE_CUDA_ROOT}" DIRECTORY)
# The driver API header and its link stub, so the GPU backend builds on machines without a GPU.
find_path(GPUGRADE_CUDA_INCLUDE cuda.h HINTS "${GPUGRADE_CUDA_ROOT}/include" NO_DEFAULT_PATH)
find_library(GPUGRADE_CUDA_DRIVER_STUB cuda HINTS "${GPUGRADE_CUDA_ROOT}/lib64/stubs"
             "${GPUGRADE_CUDA_ROOT}/targets/x86_64-linux/lib/stubs" NO_DEFAULT_PATH)
if(NOT GPUGRADE_CUDA_INCLUDE OR NOT GPUGRADE_CUDA_DRIVER_STUB)
  message(FATAL_ERROR "gpugrade needs cuda.h and the libcuda stub under ${GPUGRADE_CUDA_ROOT} "
                      "(a complete CUDA toolkit)")
endif()
# NVRTC, the toolkit's runtime compiler, beside nvcc: the compile worker links it (grader/compile/compile_worker.*).
find_path(GPUGRADE_NVRTC_INCLUDE nvrtc.h HINTS "${GPUGRADE_CUDA_ROOT}/include" NO_DEFAULT_PATH)
find_library(GPUGRADE_NVRTC_LIBRARY nvrtc HINTS "${GPUGRADE_CUDA_ROOT}/lib64"
             "${GPUGRADE_CUDA_ROOT}/targets/x86_64-linux/lib" NO_DEFAULT_PATH)
if(NOT GPUGRADE_NVRTC_INCLUDE OR NOT GPUGRADE_NVRTC_LIBRARY)
  message(FATAL_ERROR "gpugrade needs NVRTC (nvrtc.h and libnvrtc.so) under ${GPUGRADE_CUDA_ROOT}, beside nvcc "
                      "(install the toolkit's cuda-nvrtc-dev package, or point CUDACXX at a complete toolkit)")
endif()
message(STATUS "nvcc: ${GPUGRADE_NVCC}; nvrtc: ${GPUGRADE_NVRTC_LIBRARY}")
