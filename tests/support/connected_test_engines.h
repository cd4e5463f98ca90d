// Two engines of one transport in this process, the initiator connected to
// the target's listener: the ground engine-level tests share. A fixture
// derives from it beside its gtest base, allocates its regions between
// CreateEngines and ConnectEngines (a region the peer is to see must exist
// before the connection is made), and inspects the target's memory
// directly:
//
//   class MyTest : public ::testing::TestWithParam<std::string>,
//                  protected testing::ConnectedTestEngines {
//     void SetUp() override {
//       CreateEngines({.transport = GetParam(), .initiator_path = DevicePath::kStaged});
//       if (HasFatalFailure() || IsSkipped()) return;
//       local_ = Allocate(*initiator_, kBytes);
//       ASSERT_NO_FATAL_FAILURE(ConnectEngines(2));
//     }
//   };
#ifndef XFER_TESTS_SUPPORT_CONNECTED_TEST_ENGINES_H_
#define XFER_TESTS_SUPPORT_CONNECTED_TEST_ENGINES_H_

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "support/test_engine.h"
#include "support/verbs_test_env.h"
#include "xfer/engine.h"

namespace xfer::testing {

struct TestEnginePairOptions {
  std::string transport;
  // The initiator's; the target always takes kAuto.
  DevicePath initiator_path = DevicePath::kAuto;
  // Both engines'.
  std::chrono::milliseconds io_timeout = std::chrono::milliseconds(2000);
};

class ConnectedTestEngines {
 protected:
  // Creates both engines: "target" listening on loopback, "initiator" not
  // listening; over verbs, on the test environment's devices. Skips the
  // test where the transport has no device here; fails it when an engine
  // cannot be created.
  void CreateEngines(const TestEnginePairOptions& options) {
    transport_ = options.transport;
    if (transport_ == "verbs" && !HasVerbsDevice()) GTEST_SKIP() << VerbsSkipReason();
    const VerbsTestDevices devices = TestVerbsDevices();
    target_ = MakeTestEngine(transport_, "target", "127.0.0.1:0", devices.target, DevicePath::kAuto,
                             options.io_timeout);
    initiator_ = MakeTestEngine(transport_, "initiator", "", devices.initiator,
                                options.initiator_path, options.io_timeout);
    ASSERT_TRUE(target_ && initiator_);
  }

  // A region of `bytes` on `engine`; fails the test (and returns an empty
  // region) when it cannot be allocated.
  static MemoryRegion Allocate(Engine& engine, size_t bytes,
                               Access access = Access::kRemoteReadWrite) {
    auto region = engine.AllocateMemory(bytes, {.access = access});
    EXPECT_TRUE(region.ok()) << region.status().ToString();
    return region.ok() ? *region : MemoryRegion{};
  }

  // Connects the initiator to the target over the transport under test,
  // with `streams` and `rails` (ConnectOptions), and waits for the target
  // to accept: `peer_` is the target as the initiator names it,
  // `accepted_` the initiator as the target names it.
  void ConnectEngines(uint32_t streams = 1, uint32_t rails = 0) {
    ConnectOptions options;
    options.transport = transport_;
    options.streams = streams;
    options.rails = rails;
    auto connected = initiator_->Connect(target_->listen_address(), options);
    ASSERT_TRUE(connected.ok()) << connected.status().ToString();
    peer_ = *connected;
    auto waited = target_->WaitForPeer(std::chrono::seconds(3));
    ASSERT_TRUE(waited.ok()) << waited.status().ToString();
    accepted_ = *waited;
  }

  std::unique_ptr<Engine> target_;
  std::unique_ptr<Engine> initiator_;
  PeerId peer_ = 0;
  PeerId accepted_ = 0;

 private:
  std::string transport_;
};

}  // namespace xfer::testing

#endif  // XFER_TESTS_SUPPORT_CONNECTED_TEST_ENGINES_H_
