// Helpers shared by the verbs transport tests that need a device: the
// skipping fixture, transports on the configured devices, byte patterns.
#ifndef XFER_TESTS_TRANSPORT_VERBS_VERBS_TEST_UTIL_H_
#define XFER_TESTS_TRANSPORT_VERBS_VERBS_TEST_UTIL_H_

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <memory>

#include "support/endpoint_pair.h"
#include "support/byte_pattern.h"
#include "support/test_memory.h"
#include "support/verbs_test_env.h"
#include "transport/verbs/verbs_transport.h"

namespace xfer::transport::verbs::testing {

inline constexpr std::chrono::seconds kWait{10};

using xfer::testing::Addr;
using xfer::testing::Bytes;
using xfer::testing::FillPattern;
using xfer::testing::FirstPatternMismatch;
using xfer::testing::PatternByte;

// Options for the initiator's or the target's side (XFER_TEST_VERBS_DEVICES).
inline VerbsTransportOptions SideOptions(bool initiator) {
  const auto devices = xfer::testing::TestVerbsDevices();
  VerbsTransportOptions options;
  options.device.device = initiator ? devices.initiator : devices.target;
  return options;
}

// Every test of a fixture deriving from this one is skipped, with the
// reason, on a host without an RDMA device.
class VerbsDeviceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string why = xfer::testing::VerbsSkipReason();
    if (!why.empty()) GTEST_SKIP() << why;
  }
};

}  // namespace xfer::transport::verbs::testing

#endif  // XFER_TESTS_TRANSPORT_VERBS_VERBS_TEST_UTIL_H_
