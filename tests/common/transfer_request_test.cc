// TransferRequest's completion protocol (src/common/transfer_request.cc):
// how transports arm and finish a request, and what its owner sees. The
// waits cover all three of Wait's phases (spin, yield, futex sleep), and
// the completing thread races the owner's destruction as it does in
// production; this folder runs under ThreadSanitizer too.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <thread>

#include "common/request_access.h"
#include "xfer/transfer.h"

namespace xfer {
namespace {

using internal::RequestAccess;
using namespace std::chrono_literals;

TEST(TransferRequest, ANewRequestIsDoneAndOk) {
  const TransferRequest request;
  EXPECT_TRUE(request.done());
  EXPECT_TRUE(request.Test().ok());
  EXPECT_TRUE(request.Wait(0ns).ok());
  EXPECT_EQ(request.bytes(), 0u);
}

TEST(TransferRequest, AnArmedRequestIsInProgressUntilCompleted) {
  TransferRequest request;
  RequestAccess::Start(request, 1);
  EXPECT_FALSE(request.done());
  EXPECT_TRUE(RequestAccess::InFlight(request));
  EXPECT_EQ(request.Test().code(), StatusCode::kInProgress);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(request.Wait(20ms).code(), StatusCode::kTimeout);
  EXPECT_GE(std::chrono::steady_clock::now() - start, 20ms);
  RequestAccess::Complete(request, Status::Ok(), 4096);
  EXPECT_TRUE(request.done());
  EXPECT_TRUE(request.Wait(0ns).ok());
  EXPECT_EQ(request.bytes(), 4096u);
}

TEST(TransferRequest, PartsAddTheirBytesAndTheFirstErrorWins) {
  TransferRequest request;
  RequestAccess::Start(request, 3);
  RequestAccess::FinishPart(request, Status::Ok(), 100);
  RequestAccess::FinishPart(request, OutOfRange("part two"), 0);
  EXPECT_FALSE(request.done());  // one part still out
  RequestAccess::FinishPart(request, ConnectionLost("part three"), 50);
  ASSERT_TRUE(request.done());
  EXPECT_EQ(request.Test().ToString(), "out of range: part two");
  EXPECT_EQ(request.bytes(), 150u);
}

TEST(TransferRequest, ReArmingClearsTheLastError) {
  TransferRequest request;
  RequestAccess::Start(request, 1);
  RequestAccess::Complete(request, ConnectionLost("gone"), 0);
  EXPECT_EQ(request.Test().code(), StatusCode::kConnectionLost);
  RequestAccess::Start(request, 1);
  EXPECT_EQ(request.Test().code(), StatusCode::kInProgress);
  RequestAccess::Complete(request, Status::Ok(), 8);
  EXPECT_TRUE(request.Test().ok());
  EXPECT_EQ(request.bytes(), 8u);
}

// Two posts, one request (a transfer and its notification): each
// transport's Start joins the engine's hold, and the request completes only
// once the hold is released and every part finished, with every part's
// bytes, whichever order they come in.
TEST(TransferRequest, AHeldRequestCompletesAfterTheHoldAndEveryJoinedPart) {
  TransferRequest request;
  RequestAccess::Hold(request);
  RequestAccess::Start(request, 2);  // the transfer: two parts
  RequestAccess::Start(request, 1);  // the notification
  RequestAccess::Complete(request, Status::Ok(), 0);  // a one-part completer
  RequestAccess::FinishPart(request, Status::Ok(), 100);
  RequestAccess::FinishPart(request, Status::Ok(), 28);
  EXPECT_FALSE(request.done()) << "completed before the hold was released";
  RequestAccess::Release(request, Status::Ok());
  ASSERT_TRUE(request.done());
  EXPECT_TRUE(request.Test().ok());
  EXPECT_EQ(request.bytes(), 128u);
}

TEST(TransferRequest, TheLastPartOfAHeldRequestKeepsTheOthersBytesAndError) {
  TransferRequest request;
  RequestAccess::Hold(request);
  RequestAccess::Start(request, 1);
  RequestAccess::Release(request, NotSupported("the notification was refused"));
  EXPECT_FALSE(request.done());
  // The last part, on the one-part fast path: must add, not overwrite.
  RequestAccess::Complete(request, Status::Ok(), 4096);
  ASSERT_TRUE(request.done());
  EXPECT_EQ(request.Test().code(), StatusCode::kNotSupported);
  EXPECT_EQ(request.bytes(), 4096u);
}

TEST(TransferRequest, AnAbandonedHoldLeavesTheRequestIdleAndReusable) {
  TransferRequest request;
  RequestAccess::Hold(request);
  EXPECT_EQ(request.Test().code(), StatusCode::kInProgress);
  RequestAccess::Abandon(request);
  EXPECT_TRUE(request.done());
  EXPECT_TRUE(request.Test().ok());
  RequestAccess::Start(request, 1);
  RequestAccess::Complete(request, Status::Ok(), 8);
  EXPECT_EQ(request.bytes(), 8u);
}

// The owner asleep in Wait (past the spin and yield phases) is woken by a
// completion on another thread at once, not at its timeout.
TEST(TransferRequest, ASleepingWaiterIsWokenByTheCompletion) {
  TransferRequest request;
  RequestAccess::Start(request, 1);
  std::thread completer([&request] {
    std::this_thread::sleep_for(50ms);
    RequestAccess::Complete(request, Status::Ok(), 64);
  });
  const auto start = std::chrono::steady_clock::now();
  const Status status = request.Wait(30s);
  const auto waited = std::chrono::steady_clock::now() - start;
  completer.join();
  EXPECT_TRUE(status.ok()) << status.ToString();
  EXPECT_EQ(request.bytes(), 64u);
  EXPECT_LT(waited, 10s);
}

// The owner may destroy the request as soon as it sees it done, while the
// completing thread is still returning from MarkDone: nothing after the
// final exchange may touch the request.
TEST(TransferRequest, TheOwnerMayDestroyTheRequestTheMomentItIsDone) {
  for (int round = 0; round < 200; ++round) {
    auto request = std::make_unique<TransferRequest>();
    RequestAccess::Start(*request, 2);
    std::thread first([&request] { RequestAccess::FinishPart(*request, Status::Ok(), 1); });
    std::thread second([&request] { RequestAccess::FinishPart(*request, Status::Ok(), 1); });
    ASSERT_TRUE(request->Wait(10s).ok());
    EXPECT_EQ(request->bytes(), 2u);
    request.reset();
    first.join();
    second.join();
  }
}

}  // namespace
}  // namespace xfer
