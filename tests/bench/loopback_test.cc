// --loopback's two processes report one outcome: the root cause, at once.
#include "bench/loopback.h"

#include <gtest/gtest.h>

#include <chrono>

#include "bench/bench_runner.h"

namespace xfer::bench {
namespace {

using namespace std::chrono_literals;

BenchParams TcpRun() {
  BenchParams params;
  params.transport = "tcp";
  params.port = 0;
  params.size = 4096;
  params.iterations = 10;
  params.timeout = 10s;
  return params;
}

// Issue 9, defect 1: a server that fails before it accepts (its hugepages
// were taken) used to leave the client retrying a refused connect until
// --timeout, and the client's "connection refused" hid the reason.
TEST(Loopback, AServerThatFailsAtOnceIsReportedAtOnceWithItsReason) {
  SilentObserver observer;
  const LoopbackRoles roles{
      [](const BenchParams&, Listener&, BenchObserver&) {
        return ResourceExhausted("no hugepages left for the server");
      },
      RunBench};
  const auto start = std::chrono::steady_clock::now();
  const Status status = RunLoopback(TcpRun(), observer, roles);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
  EXPECT_EQ(status.code(), StatusCode::kResourceExhausted) << status.ToString();
  EXPECT_EQ(status.message(), "loopback server: no hugepages left for the server");
}

TEST(Loopback, AClientThatFailsOnItsOwnKeepsItsErrorAndEndsTheServer) {
  SilentObserver observer;
  const LoopbackRoles roles{RunServer, [](const BenchParams&, BenchObserver&) {
                              return InvalidArgument("the client's own problem");
                            }};
  const auto start = std::chrono::steady_clock::now();
  const Status status = RunLoopback(TcpRun(), observer, roles);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << status.ToString();
  EXPECT_EQ(status.message(), "the client's own problem");
}

TEST(Loopback, ARunThatWorksReportsOk) {
  SilentObserver observer;
  const Status status = RunLoopback(TcpRun(), observer);
  EXPECT_TRUE(status.ok()) << status.ToString();
}

}  // namespace
}  // namespace xfer::bench
