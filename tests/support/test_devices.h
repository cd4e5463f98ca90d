// The CUDA runtime the transport tests hand their endpoints: the host's
// real loader (host memory only in these tests, so it is never asked for
// more than what a pointer is). One per test process; it outlives every
// endpoint a test makes.
#ifndef XFER_TESTS_SUPPORT_TEST_DEVICES_H_
#define XFER_TESTS_SUPPORT_TEST_DEVICES_H_

#include "cuda/device_runtime.h"

namespace xfer::testing {

inline cuda::DeviceRuntime& TestDevices() {
  static const auto devices = cuda::DeviceRuntime::Create();
  return *devices;
}

}  // namespace xfer::testing

#endif  // XFER_TESTS_SUPPORT_TEST_DEVICES_H_
