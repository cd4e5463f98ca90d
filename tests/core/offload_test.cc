// Offloaded requests (issue 43, item 15): over shm, whose posts copy with
// memcpy, a request of transport::Capabilities::offload_from_bytes or more
// is copied by the connection's thread in posts of at most 2 MiB. Submit
// returns before the copy is done, every byte lands, a deadline or a
// cancel stops the copy between posts and leaves the connection usable, a
// notification comes after the last byte, and requests on one stream still
// complete in posting order.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "support/byte_pattern.h"
#include "support/connected_test_engines.h"
#include "xfer/engine.h"

namespace xfer {
namespace {

using namespace std::chrono_literals;

constexpr size_t kBigBytes = size_t{64} << 20;

class OffloadTest : public ::testing::Test,
                    protected testing::ConnectedTestEngines {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(CreateEngines({.transport = "shm", .io_timeout = 10000ms}));
    local_ = Allocate(*initiator_, kBigBytes);
    remote_ = Allocate(*target_, kBigBytes);
    ASSERT_NO_FATAL_FAILURE(ConnectEngines());
  }
  uint8_t* local() { return static_cast<uint8_t*>(local_.address); }
  uint8_t* remote() { return static_cast<uint8_t*>(remote_.address); }
  TransferEntry Entry(size_t offset, size_t length) {
    return {local() + offset, reinterpret_cast<uint64_t>(remote()) + offset, length};
  }
  void ExpectUsable() {
    std::memset(local(), 0x5a, 4096);
    const TransferEntry entry = Entry(0, 4096);
    ASSERT_TRUE(initiator_->Transfer(peer_, OpCode::kWrite, std::span(&entry, 1), 10s).ok());
    EXPECT_EQ(remote()[4095], 0x5a);
  }

  MemoryRegion local_;
  MemoryRegion remote_;
};

// PeerInfo::max_inline_bytes says where offloading starts: a request of
// that many bytes is copied inside Submit (done when it returns).
TEST_F(OffloadTest, TheConnectionSaysWhatItCopiesInsideSubmit) {
  auto info = initiator_->GetPeerInfo(peer_);
  ASSERT_TRUE(info.ok());
  ASSERT_EQ(info->max_inline_bytes, (uint64_t{4} << 20) - 1);
  const TransferEntry entry = Entry(0, info->max_inline_bytes);
  TransferRequest request;
  ASSERT_TRUE(initiator_->Submit(peer_, OpCode::kWrite, std::span(&entry, 1), request).ok());
  EXPECT_TRUE(request.done());
  EXPECT_TRUE(request.Wait(1s).ok());
}

TEST_F(OffloadTest, ALargeWriteReturnsAtOnceAndEveryByteLands) {
  testing::FillPattern(local(), kBigBytes, 7);
  std::memset(remote(), 0, kBigBytes);
  const TransferEntry entry = Entry(0, kBigBytes);
  // A copy inside Submit is done at its return, every time; an offloaded
  // one is not, unless this thread stalled for the whole copy after
  // queueing it (a loaded host): a few tries tell them apart.
  bool returned_first = false;
  for (int attempt = 0; attempt < 5 && !returned_first; ++attempt) {
    TransferRequest request;
    ASSERT_TRUE(initiator_->Submit(peer_, OpCode::kWrite, std::span(&entry, 1), request).ok());
    returned_first = !request.done();
    ASSERT_TRUE(request.Wait(30s).ok()) << request.Test().ToString();
    EXPECT_EQ(request.bytes(), kBigBytes);
    EXPECT_EQ(std::memcmp(local(), remote(), kBigBytes), 0);
  }
  EXPECT_TRUE(returned_first) << "64 MiB copied inside Submit, five times out of five";
  // And back: a READ of it, offloaded the same way, lands whole.
  std::memset(local(), 0, kBigBytes);
  TransferRequest read;
  ASSERT_TRUE(initiator_->Submit(peer_, OpCode::kRead, std::span(&entry, 1), read).ok());
  ASSERT_TRUE(read.Wait(30s).ok());
  EXPECT_TRUE(testing::FirstPatternMismatch(local(), kBigBytes, 7) == kBigBytes);
}

// Many small entries of one large request gather into posts of 2 MiB;
// their order and offsets survive it.
TEST_F(OffloadTest, ManySmallEntriesOfALargeRequestLandInPlace) {
  testing::FillPattern(local(), kBigBytes, 11);
  std::memset(remote(), 0, kBigBytes);
  std::vector<TransferEntry> entries;
  // 6000 entries of 3 KiB + 5, every other 8 KiB stretch: 18 MiB in all,
  // entries that straddle the 2 MiB post boundaries.
  const size_t length = 3 * 1024 + 5;
  for (size_t i = 0; i < 6000; ++i) entries.push_back(Entry(i * 8192 + (i % 7), length));
  TransferRequest request;
  ASSERT_TRUE(initiator_->Submit(peer_, OpCode::kWrite, entries, request).ok());
  ASSERT_TRUE(request.Wait(30s).ok()) << request.Test().ToString();
  EXPECT_EQ(request.bytes(), entries.size() * length);
  for (size_t i = 0; i < entries.size(); ++i) {
    const size_t at = i * 8192 + (i % 7);
    ASSERT_EQ(std::memcmp(local() + at, remote() + at, length), 0) << "entry " << i;
    if (i % 7 != 0) {
      ASSERT_EQ(remote()[at - 1], 0) << "before entry " << i;
    }
    ASSERT_EQ(remote()[at + length], 0) << "after entry " << i;
  }
}

TEST_F(OffloadTest, ADeadlineStopsTheCopyAndTheConnectionCarriesOn) {
  const TransferEntry entry = Entry(0, kBigBytes);
  for (int attempt = 0; attempt < 3; ++attempt) {
    TransferRequest request;
    SubmitOptions options;
    options.timeout = 1ms;
    ASSERT_TRUE(
        initiator_->Submit(peer_, OpCode::kWrite, std::span(&entry, 1), request, options).ok());
    const Status status = request.Wait(30s);
    if (status.ok()) continue;  // the host copied 64 MiB within 1 ms: try again
    EXPECT_EQ(status.code(), StatusCode::kTimeout) << status.ToString();
    EXPECT_TRUE(initiator_->GetPeerInfo(peer_).ok()) << "the deadline closed the connection";
    ExpectUsable();
    return;
  }
  ADD_FAILURE() << "a 1 ms deadline never ended a 64 MiB copy";
}

TEST_F(OffloadTest, ACancelRightAfterSubmitEndsTheRequestAndTheConnectionCarriesOn) {
  const TransferEntry entry = Entry(0, kBigBytes);
  // Inside Submit the copy would be over before Cancel could find it
  // (NOT_FOUND), every time; a few tries allow for a stalled thread.
  for (int attempt = 0; attempt < 5; ++attempt) {
    TransferRequest request;
    ASSERT_TRUE(initiator_->Submit(peer_, OpCode::kWrite, std::span(&entry, 1), request).ok());
    const Status cancel = initiator_->Cancel(peer_, request);
    const Status status = request.Wait(30s);
    if (!cancel.ok()) continue;  // the copy ended first
    EXPECT_EQ(status.code(), StatusCode::kCancelled) << status.ToString();
    ExpectUsable();
    return;
  }
  ADD_FAILURE() << "Cancel right after Submit never found the 64 MiB copy running";
}

TEST_F(OffloadTest, ANotificationComesAfterTheLastByteAndOrderHolds) {
  testing::FillPattern(local(), kBigBytes, 3);
  std::memset(remote(), 0, kBigBytes);
  const TransferEntry big = Entry(0, kBigBytes - 4096);
  const TransferEntry small = Entry(kBigBytes - 4096, 4096);
  TransferRequest first;
  TransferRequest second;
  SubmitOptions notify;
  notify.notification = "all of it";
  ASSERT_TRUE(
      initiator_->Submit(peer_, OpCode::kWrite, std::span(&big, 1), first, notify).ok());
  // Below the offload size, but behind the large one on its stream.
  ASSERT_TRUE(initiator_->Submit(peer_, OpCode::kWrite, std::span(&small, 1), second).ok());
  ASSERT_TRUE(second.Wait(30s).ok());
  EXPECT_TRUE(first.done()) << "the later request completed first";
  const auto arrived = target_->GetNotifications(10s);
  ASSERT_EQ(arrived.size(), 1u);
  EXPECT_EQ(arrived.front().message, "all of it");
  EXPECT_EQ(testing::FirstPatternMismatch(remote(), kBigBytes, 3), kBigBytes)
      << "the notification came before every byte";
}

}  // namespace
}  // namespace xfer
