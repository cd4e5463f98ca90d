// Engine::Cancel and per-request deadlines (SubmitOptions::timeout) on
// every transport: what has not started never runs, a cancelled or
// expired request completes with its own code once nothing of it can touch
// memory, and a stalled or dead peer cannot hold a request past its
// deadline.
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/request_access.h"
#include "core/deadline_watcher.h"
#include "support/connected_test_engines.h"
#include "support/transport_capabilities.h"
#include "support/verbs_test_env.h"
#include "two_process.h"
#include "xfer/engine.h"

namespace xfer {
namespace {

using namespace std::chrono_literals;
using testing::TargetProcess;

constexpr size_t kCancelRegion = size_t{48} << 20;
constexpr size_t kBig = size_t{20} << 20;

bool AllZero(const uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (p[i] != 0) return false;
  }
  return true;
}

class CancelTest : public ::testing::TestWithParam<std::string>,
                   protected testing::ConnectedTestEngines {
 protected:
  void SetUp() override {
    if (GetParam() == "verbs" && !testing::HasVerbsDevice()) {
      GTEST_SKIP() << testing::VerbsSkipReason();
    }
  }
  // Two engines in this process; the initiator stages every buffer when
  // `staged`, so that requests queue in its pipeline.
  void Connect(DevicePath path) {
    ASSERT_NO_FATAL_FAILURE(
        CreateEngines({.transport = GetParam(), .initiator_path = path, .io_timeout = 5000ms}));
    local_ = Allocate(*initiator_, kCancelRegion);
    remote_ = Allocate(*target_, kCancelRegion);
    ASSERT_NO_FATAL_FAILURE(ConnectEngines());
  }
  uint8_t* local() { return static_cast<uint8_t*>(local_.address); }
  uint8_t* remote() { return static_cast<uint8_t*>(remote_.address); }
  uint64_t remote_address() const { return reinterpret_cast<uint64_t>(remote_.address); }

  // The connection still moves bytes.
  void ExpectUsable() {
    const TransferEntry entry{local(), remote_address(), 4096};
    EXPECT_TRUE(initiator_->Transfer(peer_, OpCode::kWrite, std::span(&entry, 1), 10s).ok());
  }

  MemoryRegion local_;
  MemoryRegion remote_;
};

// Staged requests run one at a time: the last of three is still queued
// when it is cancelled, so not a byte of it may move.
TEST_P(CancelTest, ACancelledQueuedStagedRequestMovesNothingAndTheOthersComplete) {
  ASSERT_NO_FATAL_FAILURE(Connect(DevicePath::kStaged));
  std::memset(local(), 0x77, kCancelRegion);
  std::memset(remote(), 0, kCancelRegion);
  const TransferEntry first{local(), remote_address(), kBig};
  const TransferEntry second{local() + kBig, remote_address() + kBig, kBig};
  const TransferEntry last{local() + 2 * kBig, remote_address() + 2 * kBig, 4096};
  TransferRequest a, b, c;
  ASSERT_TRUE(initiator_->Submit(peer_, OpCode::kWrite, std::span(&first, 1), a).ok());
  ASSERT_TRUE(initiator_->Submit(peer_, OpCode::kWrite, std::span(&second, 1), b).ok());
  ASSERT_TRUE(initiator_->Submit(peer_, OpCode::kWrite, std::span(&last, 1), c).ok());
  ASSERT_TRUE(initiator_->Cancel(peer_, c).ok());
  EXPECT_EQ(c.Wait(10s).code(), StatusCode::kCancelled);
  EXPECT_TRUE(a.Wait(10s).ok());
  EXPECT_TRUE(b.Wait(10s).ok());
  EXPECT_TRUE(AllZero(remote() + 2 * kBig, 4096)) << "a cancelled queued request moved bytes";
  EXPECT_EQ(initiator_->Cancel(peer_, c).code(), StatusCode::kNotFound) << "not in flight";
  ExpectUsable();
}

// A running staged request stops between chunks: it completes cancelled,
// having moved at most what was in flight, and the connection carries on.
TEST_P(CancelTest, ACancelledRunningStagedRequestEndsAndTheConnectionCarriesOn) {
  ASSERT_NO_FATAL_FAILURE(Connect(DevicePath::kStaged));
  const TransferEntry entry{local(), remote_address(), kCancelRegion};
  TransferRequest request;
  ASSERT_TRUE(initiator_->Submit(peer_, OpCode::kWrite, std::span(&entry, 1), request).ok());
  ASSERT_TRUE(initiator_->Cancel(peer_, request).ok());
  const Status status = request.Wait(10s);
  EXPECT_EQ(status.code(), StatusCode::kCancelled) << status.ToString();
  ExpectUsable();
}

// A direct request is with the transport from Submit on: cancelling it
// only changes how it reports, and never breaks the connection.
TEST_P(CancelTest, ADirectRequestCancelledReportsCancelledOrItsOwnStatus) {
  ASSERT_NO_FATAL_FAILURE(Connect(DevicePath::kAuto));
  const TransferEntry entry{local(), remote_address(), kBig};
  TransferRequest request;
  ASSERT_TRUE(initiator_->Submit(peer_, OpCode::kRead, std::span(&entry, 1), request).ok());
  const Status cancel = initiator_->Cancel(peer_, request);
  const Status status = request.Wait(10s);
  if (cancel.ok()) {
    EXPECT_TRUE(status.ok() || status.code() == StatusCode::kCancelled) << status.ToString();
  } else {
    EXPECT_EQ(cancel.code(), StatusCode::kNotFound) << "completed inside Submit: " << cancel.ToString();
    EXPECT_TRUE(status.ok());
  }
  ExpectUsable();
  EXPECT_EQ(initiator_->Cancel(peer_ + 1000, request).code(), StatusCode::kNotFound);
}

// A queued staged request past its deadline is dropped, not a byte moved,
// and the connection carries on.
TEST_P(CancelTest, AQueuedStagedRequestPastItsDeadlineIsDroppedWithTimeout) {
  ASSERT_NO_FATAL_FAILURE(Connect(DevicePath::kStaged));
  std::memset(local(), 0x33, kCancelRegion);
  std::memset(remote(), 0, kCancelRegion);
  const TransferEntry first{local(), remote_address(), 2 * kBig};
  const TransferEntry last{local() + 2 * kBig, remote_address() + 2 * kBig, 4096};
  TransferRequest a, c;
  ASSERT_TRUE(initiator_->Submit(peer_, OpCode::kWrite, std::span(&first, 1), a).ok());
  SubmitOptions options;
  options.timeout = 1ns;
  ASSERT_TRUE(initiator_->Submit(peer_, OpCode::kWrite, std::span(&last, 1), c, options).ok());
  const Status status = c.Wait(10s);
  // Dropped in the queue, or, if the first request was that quick, ended
  // with its connection: never completed OK past its deadline.
  EXPECT_EQ(status.code(), StatusCode::kTimeout) << status.ToString();
  if (a.Wait(10s).ok()) {
    EXPECT_TRUE(AllZero(remote() + 2 * kBig, 4096)) << "an expired queued request moved bytes";
    ExpectUsable();
  }
}

TEST_P(CancelTest, ABadTimeoutIsRefusedAndARequestThatMeetsItsDeadlineIsUntouched) {
  ASSERT_NO_FATAL_FAILURE(Connect(DevicePath::kAuto));
  const TransferEntry entry{local(), remote_address(), 4096};
  SubmitOptions options;
  options.timeout = -1ns;
  TransferRequest request;
  EXPECT_EQ(initiator_->Submit(peer_, OpCode::kWrite, std::span(&entry, 1), request, options).code(),
            StatusCode::kInvalidArgument);
  options.timeout = 10s;
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(
        initiator_->Submit(peer_, OpCode::kWrite, std::span(&entry, 1), request, options).ok());
    ASSERT_TRUE(request.Wait(10s).ok());
  }
}

// The peer is stopped (SIGSTOP) or killed with a READ in flight: the
// request ends by its deadline, well before io_timeout, whatever the
// transport. Where the transport had the work in hand (tcp: the peer's
// process answers READs), the engine closed the connection to end it.
class DeadlinePeerTest : public ::testing::TestWithParam<std::string> {};

void ExpectEndsByItsDeadline(const std::string& transport, int signal) {
  TargetProcess target({transport}, kCancelRegion, Access::kRemoteReadWrite, 0x11);
  auto engine = testing::MakeTestEngine(transport, "initiator", "",
                                        testing::TestVerbsDevices().initiator, DevicePath::kAuto,
                                        30000ms);
  ASSERT_TRUE(engine);
  auto local = engine->AllocateMemory(kCancelRegion, {});
  ASSERT_TRUE(local.ok());
  ConnectOptions options;
  options.transport = transport;
  auto peer = engine->Connect(target.address(), options);
  ASSERT_TRUE(peer.ok()) << peer.status().ToString();
  if (signal == SIGKILL) {
    target.Kill();  // reaped, so that its destructor writes to no dead pipe
  } else {
    ASSERT_EQ(kill(target.pid(), signal), 0);
  }
  const TransferEntry entry{local->address, target.region().address, kCancelRegion};
  SubmitOptions submit;
  submit.timeout = 300ms;
  TransferRequest request;
  const auto start = std::chrono::steady_clock::now();
  const Status posted = engine->Submit(*peer, OpCode::kRead, std::span(&entry, 1), request, submit);
  Status status = posted;
  if (posted.ok()) status = request.Wait(20s);
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_LT(took, 5s) << "the deadline did not end the request: " << status.ToString();
  // Over shm the copy is the engine's own, offloaded to the connection's
  // thread above 4 MiB: the deadline stops it between posts and the
  // connection stays (issue 43, item 15). Elsewhere the transport holds
  // the work, and only closing the connection stops it.
  if (status.code() == StatusCode::kTimeout && transport == "shm") {
    EXPECT_TRUE(engine->GetPeerInfo(*peer).ok()) << "a stopped copy closed the connection";
  } else if (status.code() == StatusCode::kTimeout) {
    const Status gone = engine->GetPeerInfo(*peer).status();
    EXPECT_EQ(gone.code(), StatusCode::kNotFound)
        << "a request with its work in the transport timed out and its connection stayed";
    // Issue 43, item 16: a later call says why the peer is gone and what to
    // do, not only "no peer N".
    // (A dead peer's connection may close before the deadline does.)
    if (signal == SIGSTOP) {
      EXPECT_NE(gone.message().find("deadline"), std::string::npos) << gone.ToString();
      EXPECT_NE(gone.message().find("connect again"), std::string::npos) << gone.ToString();
      TransferRequest again;
      const Status submit_again =
          engine->Submit(*peer, OpCode::kRead, std::span(&entry, 1), again);
      EXPECT_NE(submit_again.message().find("deadline"), std::string::npos)
          << submit_again.ToString();
    }
  }
  if (signal == SIGSTOP) kill(target.pid(), SIGCONT);
}

TEST_P(DeadlinePeerTest, AReadFromAStalledPeerEndsByItsDeadline) {
  if (GetParam() == "verbs" && !testing::HasVerbsDevice()) {
    GTEST_SKIP() << testing::VerbsSkipReason();
  }
  ExpectEndsByItsDeadline(GetParam(), SIGSTOP);
}

TEST_P(DeadlinePeerTest, AReadFromADeadPeerEndsByItsDeadline) {
  if (GetParam() == "verbs" && !testing::HasVerbsDevice()) {
    GTEST_SKIP() << testing::VerbsSkipReason();
  }
  ExpectEndsByItsDeadline(GetParam(), SIGKILL);
}

INSTANTIATE_TEST_SUITE_P(Transports, CancelTest, ::testing::ValuesIn(testing::BuiltTransports()),
                         [](const auto& param_info) { return param_info.param; });
INSTANTIATE_TEST_SUITE_P(Transports, DeadlinePeerTest,
                         ::testing::ValuesIn(testing::BuiltTransports()),
                         [](const auto& param_info) { return param_info.param; });

}  // namespace
}  // namespace xfer

namespace xfer::core {
namespace {

// Requests that meet their deadline leave an entry behind until it passes;
// the watcher drops them once they pile up, so memory follows the
// requests in flight, not the rate times the deadline.
TEST(DeadlineWatcherTest, EntriesOfRequestsThatMetTheirDeadlineDoNotPileUp) {
  DeadlineWatcher watcher([](PeerId, TransferRequest&) { return false; }, [](PeerId) {});
  for (int i = 0; i < 20000; ++i) {
    TransferRequest request;
    auto entry = watcher.Arm(request, 1, std::chrono::hours(1));
    ASSERT_TRUE(entry.ok());
    internal::RequestAccess::Start(request, 1);
    watcher.Start(*entry);
    internal::RequestAccess::Complete(request, Status::Ok(), 0);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (watcher.held() > 2048 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_LE(watcher.held(), 2048u);
}

// A request whose deadline passes in flight is handed to Expire, while in
// flight, and to Close when Expire says so.
TEST(DeadlineWatcherTest, AnExpiredRequestIsEndedWhileStillInFlight) {
  std::atomic<int> expired{0}, closed{0};
  TransferRequest request;
  DeadlineWatcher watcher(
      [&](PeerId peer, TransferRequest& r) {
        EXPECT_EQ(peer, 7u);
        EXPECT_FALSE(r.done());
        ++expired;
        internal::RequestAccess::Preempt(r, Timeout("deadline"));
        return true;
      },
      [&](PeerId peer) {
        EXPECT_EQ(peer, 7u);
        ++closed;
        internal::RequestAccess::Complete(request, ConnectionLost("closed"), 0);
      });
  auto entry = watcher.Arm(request, 7, std::chrono::milliseconds(20));
  ASSERT_TRUE(entry.ok());
  internal::RequestAccess::Start(request, 1);
  watcher.Start(*entry);
  EXPECT_EQ(request.Wait(std::chrono::seconds(10)).code(), StatusCode::kTimeout);
  EXPECT_TRUE(request.done());
  EXPECT_EQ(expired.load(), 1);
  EXPECT_EQ(closed.load(), 1);
}

}  // namespace
}  // namespace xfer::core
