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
#include "support/test_memory.h"
#include "support/verbs_test_env.h"
#include "transport/verbs/verbs_transport.h"

namespace xfer::transport::verbs::testing {

inline constexpr std::chrono::seconds kWait{10};

// Deterministic, position- and seed-dependent bytes.
inline uint8_t PatternByte(size_t i, uint32_t seed) {
  uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull + seed * 0xD1B54A32D192ED03ull;
  return static_cast<uint8_t>((x >> 29) ^ (x >> 47));
}

inline void FillPattern(void* data, size_t length, uint32_t seed) {
  auto* bytes = static_cast<uint8_t*>(data);
  for (size_t i = 0; i < length; ++i) bytes[i] = PatternByte(i, seed);
}

// Index of the first byte that differs from the pattern, or `length`.
inline size_t FirstPatternMismatch(const void* data, size_t length, uint32_t seed) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  for (size_t i = 0; i < length; ++i) {
    if (bytes[i] != PatternByte(i, seed)) return i;
  }
  return length;
}

inline uint8_t* Bytes(const LocalRegionView& region) {
  return static_cast<uint8_t*>(region.address);
}
inline uint64_t Addr(const void* p) { return reinterpret_cast<uint64_t>(p); }

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
