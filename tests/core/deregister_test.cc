// DeregisterMemory revokes a region for every connected peer, on every
// transport: a later WRITE or READ from the peer fails, and memory the owner
// got back is never written, not even by a WRITE racing the deregistration.
// Two engines in this process, so the test can inspect the target's memory
// directly after the call (shm reaches caller-owned memory with
// process_vm_writev on this very process).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "support/connected_test_engines.h"
#include "support/transport_capabilities.h"
#include "support/verbs_test_env.h"
#include "xfer/engine.h"

namespace xfer {
namespace {

using namespace std::chrono_literals;

constexpr size_t kDeregisterRegion = 64 << 10;
constexpr uint8_t kTargetFill = 0x5a;
constexpr uint8_t kInitiatorFill = 0xc3;

bool AllBytesAre(const std::vector<uint8_t>& bytes, uint8_t value) {
  for (uint8_t b : bytes) {
    if (b != value) return false;
  }
  return true;
}

// The status a transfer into a deregistered region ends with, and whether
// that refusal fails the connection: the transport's promise
// (transport.h, Capabilities), never inferred from its name.
StatusCode RevokedCode(const std::string& transport) {
  return testing::CapabilitiesOf(transport).revoked_region_code;
}
bool RefusalFailsConnection(const std::string& transport) {
  return testing::CapabilitiesOf(transport).refusal_fails_connection;
}

class DeregisterTest : public ::testing::TestWithParam<std::string>,
                       protected testing::ConnectedTestEngines {
 protected:
  void SetUp() override {
    CreateEngines({.transport = GetParam()});
    if (HasFatalFailure() || IsSkipped()) return;
    local_ = Allocate(*initiator_, kDeregisterRegion);
    std::memset(local_.address, kInitiatorFill, kDeregisterRegion);
  }

  Status Transfer(OpCode op, uint64_t remote, size_t length) {
    const TransferEntry entry{local_.address, remote, length};
    return initiator_->Transfer(peer_, op, std::span(&entry, 1), 5s);
  }

  MemoryRegion local_;
};

TEST_P(DeregisterTest, TransfersIntoDeregisteredCallerMemoryFailAndLeaveItUntouched) {
  // Caller-owned, kept alive past DeregisterMemory so the test can look.
  std::vector<uint8_t> buffer(kDeregisterRegion, kTargetFill);
  auto region = target_->RegisterMemory(buffer.data(), kDeregisterRegion, {});
  ASSERT_TRUE(region.ok()) << region.status().ToString();
  ASSERT_NO_FATAL_FAILURE(ConnectEngines());
  const uint64_t remote = reinterpret_cast<uint64_t>(buffer.data());
  // The region works before it is deregistered.
  ASSERT_TRUE(Transfer(OpCode::kRead, remote, 4096).ok());
  std::memset(local_.address, kInitiatorFill, kDeregisterRegion);

  ASSERT_TRUE(target_->DeregisterMemory(*region).ok());

  Status write = Transfer(OpCode::kWrite, remote, kDeregisterRegion);
  EXPECT_EQ(write.code(), RevokedCode(GetParam())) << write.ToString();
  EXPECT_TRUE(AllBytesAre(buffer, kTargetFill)) << "a refused WRITE changed the owner's memory";
  // Where the refusal fails the connection (a verbs queue pair in the error
  // state), the READ meets the failed connection; elsewhere the same refusal.
  Status read = Transfer(OpCode::kRead, remote, kDeregisterRegion);
  EXPECT_EQ(read.code(), RefusalFailsConnection(GetParam()) ? StatusCode::kConnectionLost
                                                            : StatusCode::kOutOfRange)
      << read.ToString();
  std::vector<uint8_t> local(static_cast<uint8_t*>(local_.address),
                             static_cast<uint8_t*>(local_.address) + kDeregisterRegion);
  EXPECT_TRUE(AllBytesAre(local, kInitiatorFill)) << "a refused READ delivered bytes";
}

TEST_P(DeregisterTest, TransfersIntoDeregisteredEngineMemoryFail) {
  auto region = target_->AllocateMemory(kDeregisterRegion, {});
  ASSERT_TRUE(region.ok()) << region.status().ToString();
  const uint64_t remote = reinterpret_cast<uint64_t>(region->address);
  ASSERT_NO_FATAL_FAILURE(ConnectEngines());
  ASSERT_TRUE(Transfer(OpCode::kWrite, remote, kDeregisterRegion).ok());

  ASSERT_TRUE(target_->DeregisterMemory(*region).ok());

  Status write = Transfer(OpCode::kWrite, remote, kDeregisterRegion);
  EXPECT_EQ(write.code(), RevokedCode(GetParam())) << write.ToString();
  EXPECT_FALSE(Transfer(OpCode::kRead, remote, kDeregisterRegion).ok());
}

TEST_P(DeregisterTest, OtherRegionsKeepWorkingAfterADeregistration) {
  if (RefusalFailsConnection(GetParam())) {
    GTEST_SKIP() << GetParam() << ": a refused request fails the connection (capability)";
  }
  std::vector<uint8_t> gone(kDeregisterRegion, kTargetFill);
  std::vector<uint8_t> kept(kDeregisterRegion, kTargetFill);
  auto gone_region = target_->RegisterMemory(gone.data(), kDeregisterRegion, {});
  auto kept_region = target_->RegisterMemory(kept.data(), kDeregisterRegion, {});
  ASSERT_TRUE(gone_region.ok() && kept_region.ok());
  ASSERT_NO_FATAL_FAILURE(ConnectEngines());
  ASSERT_TRUE(target_->DeregisterMemory(*gone_region).ok());

  EXPECT_EQ(Transfer(OpCode::kWrite, reinterpret_cast<uint64_t>(gone.data()), 4096).code(),
            RevokedCode(GetParam()));
  EXPECT_TRUE(Transfer(OpCode::kWrite, reinterpret_cast<uint64_t>(kept.data()), 4096).ok());
  EXPECT_EQ(kept[0], kInitiatorFill);
  EXPECT_TRUE(AllBytesAre(gone, kTargetFill));
}

TEST_P(DeregisterTest, WritesRacingTheDeregistrationNeverLandAfterItReturns) {
  std::vector<uint8_t> buffer(kDeregisterRegion, kTargetFill);
  auto region = target_->RegisterMemory(buffer.data(), kDeregisterRegion, {});
  ASSERT_TRUE(region.ok()) << region.status().ToString();
  ASSERT_NO_FATAL_FAILURE(ConnectEngines());
  const uint64_t remote = reinterpret_cast<uint64_t>(buffer.data());

  // Writes back to back until one fails: the deregistration lands somewhere
  // in that stream. Each WRITE carries the next fill byte, so the buffer
  // shows which WRITE (if any) landed last.
  std::atomic<bool> writer_started{false};
  std::atomic<int> writes_ok{0};
  Status failure;
  std::thread writer([&] {
    uint8_t fill = 1;
    const auto give_up = std::chrono::steady_clock::now() + 10s;
    while (std::chrono::steady_clock::now() < give_up) {
      std::memset(local_.address, fill, kDeregisterRegion);
      writer_started.store(true, std::memory_order_release);
      Status status = Transfer(OpCode::kWrite, remote, kDeregisterRegion);
      if (!status.ok()) {
        failure = status;
        return;
      }
      writes_ok.fetch_add(1, std::memory_order_relaxed);
      fill = fill == 0xff ? 1 : fill + 1;
    }
    failure = Internal("every WRITE kept succeeding after the deregistration");
  });
  while (!writer_started.load(std::memory_order_acquire)) std::this_thread::yield();
  std::this_thread::sleep_for(20ms);
  ASSERT_TRUE(target_->DeregisterMemory(*region).ok());
  const std::vector<uint8_t> at_return = buffer;
  writer.join();
  // Give any straggling copy a chance to show itself.
  std::this_thread::sleep_for(20ms);

  EXPECT_GT(writes_ok.load(), 0) << "the writer never wrote before the deregistration";
  EXPECT_EQ(failure.code(), RevokedCode(GetParam())) << failure.ToString();
  EXPECT_EQ(std::memcmp(buffer.data(), at_return.data(), kDeregisterRegion), 0)
      << "a WRITE landed after DeregisterMemory returned";
}

INSTANTIATE_TEST_SUITE_P(Transports, DeregisterTest, ::testing::Values("shm", "tcp", "verbs"),
                         [](const auto& param) { return param.param; });

}  // namespace
}  // namespace xfer
