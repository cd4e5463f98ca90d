// Registration at scale on every transport: regions registered before the
// connection, large enough that verbs registers them side by side on
// several threads, and (verbs) in pieces of 8 MiB, are all reachable; an
// entry running across pieces, cut at different places on each side, lands
// byte for byte both ways; a region registered after the connection is
// registered on first use while posts on another region go on, and every
// byte lands.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "support/byte_pattern.h"
#include "support/test_engine.h"
#include "support/transport_capabilities.h"
#include "support/verbs_test_env.h"
#include "xfer/engine.h"

namespace xfer {
namespace {

using namespace std::chrono_literals;

constexpr size_t kLargeRegion = size_t{40} << 20;  // three make 120 MiB: registered side by side
constexpr size_t kLargeRegions = 3;
// verbs registers each large region in pieces of this size: 5 each.
constexpr size_t kRegistrationPiece = size_t{8} << 20;

EngineOptions WithSmallPieces(EngineOptions options) {
  if (options.transports == std::vector<std::string>{"verbs"}) {
    options.transport_options["verbs"]["registration_piece"] = std::to_string(kRegistrationPiece);
  }
  return options;
}

class RegistrationTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "verbs" && !testing::HasVerbsDevice()) {
      GTEST_SKIP() << testing::VerbsSkipReason();
    }
    const auto devices = testing::TestVerbsDevices();
    target_ = testing::MakeTestEngine(WithSmallPieces(
        testing::TestEngineOptions(GetParam(), "target", "127.0.0.1:0", devices.target)));
    initiator_ = testing::MakeTestEngine(
        WithSmallPieces(testing::TestEngineOptions(GetParam(), "initiator", "", devices.initiator)));
    ASSERT_TRUE(target_ && initiator_);
    for (size_t i = 0; i < kLargeRegions; ++i) {
      auto theirs = target_->AllocateMemory(kLargeRegion, {});
      auto mine = initiator_->AllocateMemory(kLargeRegion, {});
      ASSERT_TRUE(theirs.ok() && mine.ok());
      remote_.push_back(*theirs);
      local_.push_back(*mine);
    }
    ConnectOptions options;
    options.transport = GetParam();
    options.streams = 2;
    auto peer = initiator_->Connect(target_->listen_address(), options);
    ASSERT_TRUE(peer.ok()) << peer.status().ToString();
    peer_ = *peer;
  }

  static uint64_t Addr(const MemoryRegion& r) { return reinterpret_cast<uint64_t>(r.address); }

  std::unique_ptr<Engine> target_;
  std::unique_ptr<Engine> initiator_;
  std::vector<MemoryRegion> local_;
  std::vector<MemoryRegion> remote_;
  PeerId peer_ = 0;
};

TEST_P(RegistrationTest, EveryLargeRegionRegisteredBeforeConnectingIsReachable) {
  for (size_t i = 0; i < kLargeRegions; ++i) {
    const auto fill = static_cast<uint8_t>(0x40 + i);
    std::memset(local_[i].address, fill, kLargeRegion);
    // The first and the last MiB of each: both ends of every registration.
    for (uint64_t offset : {uint64_t{0}, uint64_t{kLargeRegion - (1 << 20)}}) {
      auto* src = static_cast<uint8_t*>(local_[i].address) + offset;
      const TransferEntry entry{src, Addr(remote_[i]) + offset, 1 << 20};
      ASSERT_TRUE(initiator_->Transfer(peer_, OpCode::kWrite, std::span(&entry, 1), 10s).ok())
          << "region " << i << " at " << offset;
      const auto* landed = static_cast<const uint8_t*>(remote_[i].address) + offset;
      EXPECT_EQ(landed[0], fill);
      EXPECT_EQ(landed[(1 << 20) - 1], fill);
    }
  }
}

// The connection says what registering this side's memory with its device
// cost: over verbs the three regions held at connect, five pieces each;
// nothing on transports without a NIC.
TEST_P(RegistrationTest, PeerInfoSaysWhatConnectingRegisteredWithTheDevice) {
  auto info = initiator_->GetPeerInfo(peer_);
  ASSERT_TRUE(info.ok());
  const DeviceRegistration& registration = info->registration;
  if (info->data_mover != DataMover::kNic) {
    EXPECT_EQ(registration.bytes, 0u);
    EXPECT_EQ(registration.memory_registrations, 0u);
    EXPECT_EQ(registration.duration.count(), 0);
    return;
  }
  EXPECT_EQ(registration.bytes, kLargeRegions * kLargeRegion);
  EXPECT_EQ(registration.memory_registrations, kLargeRegions * (kLargeRegion / kRegistrationPiece));
  EXPECT_GT(registration.duration.count(), 0);
}

// 20 MiB from 3 MiB + 123 bytes into a local region to 5 MiB + 4567 bytes
// into a remote one: over verbs it crosses two local and three remote piece
// boundaries, at different offsets of the entry.
TEST_P(RegistrationTest, AnEntryAcrossRegistrationPiecesLandsByteForByteBothWays) {
  constexpr uint64_t kLocalOffset = (uint64_t{3} << 20) + 123;
  constexpr uint64_t kRemoteOffset = (uint64_t{5} << 20) + 4567;
  constexpr uint64_t kLength = uint64_t{20} << 20;
  auto* source = static_cast<uint8_t*>(local_[0].address) + kLocalOffset;
  testing::FillPattern(source, kLength, 11);
  const TransferEntry write{source, Addr(remote_[0]) + kRemoteOffset, kLength};
  ASSERT_TRUE(initiator_->Transfer(peer_, OpCode::kWrite, std::span(&write, 1), 10s).ok());
  const auto* landed = static_cast<const uint8_t*>(remote_[0].address) + kRemoteOffset;
  EXPECT_EQ(testing::FirstPatternMismatch(landed, kLength, 11), kLength);
  // Read back into another region, at another offset.
  auto* back = static_cast<uint8_t*>(local_[2].address) + (uint64_t{7} << 20) + 77;
  const TransferEntry read{back, Addr(remote_[0]) + kRemoteOffset, kLength};
  ASSERT_TRUE(initiator_->Transfer(peer_, OpCode::kRead, std::span(&read, 1), 10s).ok());
  EXPECT_EQ(testing::FirstPatternMismatch(back, kLength, 11), kLength);
  // One byte either side of the written span was left alone.
  EXPECT_EQ(landed[-1], 0);
  EXPECT_EQ(landed[kLength], 0);
}

// A region registered after the connection: its first post registers it
// with the transport (verbs: ibv_reg_mr) while another thread keeps
// posting on a region registered before, which must not wait for it.
TEST_P(RegistrationTest, ARegionRegisteredAfterConnectingIsUsableWhileOthersPost) {
  auto late = initiator_->AllocateMemory(kLargeRegion, {});
  ASSERT_TRUE(late.ok());
  std::memset(late->address, 0x7e, kLargeRegion);
  std::atomic<bool> stop{false};
  std::atomic<int> failures{0};
  std::atomic<int> posted{0};
  std::thread other([&] {
    const TransferEntry entry{local_[0].address, Addr(remote_[0]), 4096};
    while (!stop.load()) {
      if (!initiator_->Transfer(peer_, OpCode::kWrite, std::span(&entry, 1), 10s).ok()) ++failures;
      ++posted;
    }
  });
  // The late region's first post starts only once the other thread posts:
  // shm copies 40 MiB inside Submit, which can end before a thread that
  // has not yet been scheduled posts anything.
  const auto started_by = std::chrono::steady_clock::now() + 10s;
  while (posted.load() == 0 && std::chrono::steady_clock::now() < started_by) {
    std::this_thread::yield();
  }
  if (posted.load() == 0) {
    stop = true;
    other.join();
    FAIL() << "the other thread never posted";
  }
  const TransferEntry entry{late->address, Addr(remote_[1]), kLargeRegion};
  const Status wrote = initiator_->Transfer(peer_, OpCode::kWrite, std::span(&entry, 1), 30s);
  stop = true;
  other.join();
  ASSERT_TRUE(wrote.ok()) << wrote.ToString();
  EXPECT_EQ(failures.load(), 0);
  const auto* landed = static_cast<const uint8_t*>(remote_[1].address);
  EXPECT_EQ(landed[0], 0x7e);
  EXPECT_EQ(landed[kLargeRegion - 1], 0x7e);
}

INSTANTIATE_TEST_SUITE_P(Transports, RegistrationTest,
                         ::testing::ValuesIn(testing::BuiltTransports()),
                         [](const auto& param_info) { return param_info.param; });

}  // namespace
}  // namespace xfer
