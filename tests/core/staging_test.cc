// Staging (EngineOptions::device_path = kStaged) on every transport: the
// initiator's buffers bounce through its connection's staging memory, in
// chunks, and the bytes land exactly as a direct transfer lands them. Host
// memory stands in for device memory here (the GPU check runs the device
// cases); the pipeline is the same code either way. Two engines in this
// process, so the test reads the target's memory directly.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <vector>

#include "support/byte_pattern.h"
#include "support/connected_test_engines.h"
#include "support/transport_capabilities.h"
#include "support/verbs_test_env.h"
#include "xfer/engine.h"

namespace xfer {
namespace {

using namespace std::chrono_literals;

// More than the staging pipeline's four 2 MiB slots hold, so that slots
// are reused within one request.
constexpr size_t kStagingRegion = size_t{12} << 20;

using testing::FillPattern;
using testing::FirstPatternMismatch;

class StagingTest : public ::testing::TestWithParam<std::string>,
                    protected testing::ConnectedTestEngines {
 protected:
  void SetUp() override {
    CreateEngines({.transport = GetParam(), .initiator_path = DevicePath::kStaged});
    if (HasFatalFailure() || IsSkipped()) return;
    local_ = Allocate(*initiator_, kStagingRegion);
    remote_ = Allocate(*target_, kStagingRegion);
    ASSERT_NO_FATAL_FAILURE(ConnectEngines(2));
  }

  uint8_t* local() { return static_cast<uint8_t*>(local_.address); }
  uint8_t* remote() { return static_cast<uint8_t*>(remote_.address); }
  uint64_t remote_address() { return reinterpret_cast<uint64_t>(remote_.address); }

  MemoryRegion local_;
  MemoryRegion remote_;
};

TEST_P(StagingTest, PeerInfoSaysEveryLocalBufferIsStaged) {
  auto info = initiator_->GetPeerInfo(peer_);
  ASSERT_TRUE(info.ok());
  EXPECT_TRUE(info->staged);
  EXPECT_EQ(info->transport, GetParam());
  // The staging thread reads a request's sources after Submit returns.
  EXPECT_EQ(info->max_inline_bytes, 0u);
}

TEST_P(StagingTest, StagedWritesAndReadsLandByteForByteAcrossChunks) {
  uint32_t seed = 1;
  // One byte; an odd size; a chunk and three bytes; more chunks than slots.
  for (size_t size : {size_t{1}, size_t{4097}, (size_t{2} << 20) + 3, size_t{9} << 20}) {
    const size_t offset = 5;
    FillPattern(local(), size, seed);
    std::memset(remote(), 0xee, size + 2 * offset);
    const TransferEntry entry{local(), remote_address() + offset, size};
    Status wrote = initiator_->Transfer(peer_, OpCode::kWrite, std::span(&entry, 1), 10s);
    ASSERT_TRUE(wrote.ok()) << size << ": " << wrote.ToString();
    EXPECT_EQ(FirstPatternMismatch(remote() + offset, size, seed), size) << size;
    EXPECT_EQ(remote()[offset - 1], 0xee) << "wrote before the range";
    EXPECT_EQ(remote()[offset + size], 0xee) << "wrote past it";

    FillPattern(remote() + offset, size, seed + 50);
    std::memset(local(), 0, size + 1);
    Status read = initiator_->Transfer(peer_, OpCode::kRead, std::span(&entry, 1), 10s);
    ASSERT_TRUE(read.ok()) << size << ": " << read.ToString();
    EXPECT_EQ(FirstPatternMismatch(local(), size, seed + 50), size) << size;
    EXPECT_EQ(local()[size], 0) << "read past the end";
    ++seed;
  }
}

TEST_P(StagingTest, ABatchCompletesOnceWithEveryEntrysBytes) {
  FillPattern(local(), kStagingRegion, 3);
  std::memset(remote(), 0, kStagingRegion);
  // Out of order and of uneven sizes, one entry longer than two chunks.
  const std::vector<std::pair<size_t, size_t>> pieces = {
      {size_t{6} << 20, (size_t{5} << 20) + 11}, {0, 4096}, {4096, 100}, {4196, (size_t{1} << 20)}};
  std::vector<TransferEntry> batch;
  size_t total = 0;
  for (auto [offset, length] : pieces) {
    batch.push_back({local() + offset, remote_address() + offset, length});
    total += length;
  }
  TransferRequest request;
  ASSERT_TRUE(initiator_->Submit(peer_, OpCode::kWrite, batch, request).ok());
  ASSERT_TRUE(request.Wait(10s).ok());
  EXPECT_EQ(request.bytes(), total);
  for (auto [offset, length] : pieces) {
    EXPECT_EQ(std::memcmp(remote() + offset, local() + offset, length), 0) << offset;
  }
}

TEST_P(StagingTest, RequestsOnOneStreamCompleteInPostingOrder) {
  constexpr size_t kRequests = 8;
  constexpr size_t kEach = size_t{1} << 20;
  FillPattern(local(), kRequests * kEach, 9);
  std::vector<TransferRequest> requests(kRequests);
  std::vector<TransferEntry> entries;
  for (size_t i = 0; i < kRequests; ++i) {
    entries.push_back({local() + i * kEach, remote_address() + i * kEach, kEach});
  }
  for (size_t i = 0; i < kRequests; ++i) {
    ASSERT_TRUE(
        initiator_->Submit(peer_, OpCode::kWrite, std::span(&entries[i], 1), requests[i], 1).ok());
  }
  ASSERT_TRUE(requests.back().Wait(10s).ok());
  for (size_t i = 0; i < kRequests; ++i) {
    EXPECT_TRUE(requests[i].done()) << "request " << i << " is still in flight after the last";
    EXPECT_TRUE(requests[i].Wait(1s).ok());
  }
  EXPECT_EQ(std::memcmp(remote(), local(), kRequests * kEach), 0);
}

TEST_P(StagingTest, ARangeThePeerRevokedFailsTheRequestNotTheSubmit) {
  ASSERT_TRUE(target_->DeregisterMemory(remote_).ok());
  const TransferEntry entry{local(), remote_address(), size_t{3} << 20};
  TransferRequest request;
  // The engine's own check passes (the peer's table is the handshake's);
  // the transport refuses the first chunk, and the request carries it.
  ASSERT_TRUE(initiator_->Submit(peer_, OpCode::kWrite, std::span(&entry, 1), request).ok());
  const Status status = request.Wait(10s);
  EXPECT_EQ(status.code(), testing::CapabilitiesOf(GetParam()).revoked_region_code)
      << status.ToString();
  EXPECT_EQ(request.bytes(), 0u);
}

TEST_P(StagingTest, DisconnectEndsQueuedAndRunningStagedRequests) {
  constexpr size_t kRequests = 6;
  std::vector<TransferRequest> requests(kRequests);
  const TransferEntry entry{local(), remote_address(), size_t{8} << 20};
  for (auto& request : requests) {
    ASSERT_TRUE(initiator_->Submit(peer_, OpCode::kWrite, std::span(&entry, 1), request).ok());
  }
  ASSERT_TRUE(initiator_->Disconnect(peer_).ok());
  // Disconnect returned: the staging thread is gone, so every request has
  // its final status already, OK for those that finished first.
  bool lost = false;
  for (auto& request : requests) {
    ASSERT_TRUE(request.done());
    const Status status = request.Test();
    EXPECT_TRUE(status.ok() || status.code() == StatusCode::kConnectionLost) << status.ToString();
    lost = lost || !status.ok();
  }
  EXPECT_TRUE(lost) << "48 MiB staged in the time Disconnect took: the queue never held a request";
}

TEST_P(StagingTest, ABufferOutsideRegisteredMemoryIsRefusedAtSubmit) {
  std::vector<uint8_t> unregistered(4096);
  const TransferEntry entry{unregistered.data(), remote_address(), unregistered.size()};
  TransferRequest request;
  const Status status = initiator_->Submit(peer_, OpCode::kWrite, std::span(&entry, 1), request);
  EXPECT_EQ(status.code(), StatusCode::kOutOfRange) << status.ToString();
  EXPECT_TRUE(request.done()) << "a refused Submit armed the request";
}

INSTANTIATE_TEST_SUITE_P(Transports, StagingTest, ::testing::Values("shm", "tcp", "verbs"),
                         [](const auto& param) { return param.param; });

TEST(DevicePathTest, NamesParseBackAndOthersAreRefusedNamingTheChoices) {
  for (DevicePath path : {DevicePath::kAuto, DevicePath::kDirect, DevicePath::kStaged}) {
    auto parsed = ParseDevicePath(DevicePathName(path));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, path);
  }
  auto bad = ParseDevicePath("gpudirect");
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("auto, direct or staged"), std::string::npos);
}

}  // namespace
}  // namespace xfer
