// Whether this host has a usable GPU, asked of the real driver loader: the
// device-memory tests run for real where it has one and skip, printing the
// loader's reason, where it does not. Nothing here imitates a GPU.
#ifndef XFER_TESTS_CUDA_GPU_HOST_H_
#define XFER_TESTS_CUDA_GPU_HOST_H_

#include <gtest/gtest.h>

#include "cuda/device_runtime.h"

#define XFER_SKIP_WITHOUT_GPU(runtime)                                       \
  do {                                                                       \
    const ::xfer::Status gpu_usable = (runtime).Available();                 \
    if (!gpu_usable.ok()) GTEST_SKIP() << "no usable GPU: " << gpu_usable.ToString(); \
  } while (false)

#endif  // XFER_TESTS_CUDA_GPU_HOST_H_
