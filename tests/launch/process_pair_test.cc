// --loopback's two processes report one outcome: the root cause, at once.
#include "launch/process_pair.h"

#include <gtest/gtest.h>

#include <chrono>

#include "bench/bench_runner.h"

namespace xfer::launch {

using bench::BenchObserver;
using bench::RunClient;
using bench::RunServer;
using bench::SilentObserver;
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
TEST(ProcessPair, AServerThatFailsAtOnceIsReportedAtOnceWithItsReason) {
  SilentObserver observer;
  const BenchRoles roles{
      [](const BenchParams&, Listener&, BenchObserver&) {
        return ResourceExhausted("no hugepages left for the server");
      },
      RunClient};
  const auto start = std::chrono::steady_clock::now();
  const Status status = RunProcessPair(TcpRun(), observer, roles);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
  EXPECT_EQ(status.code(), StatusCode::kResourceExhausted) << status.ToString();
  EXPECT_EQ(status.message(), "loopback server: no hugepages left for the server");
}

TEST(ProcessPair, AClientThatFailsOnItsOwnKeepsItsErrorAndEndsTheServer) {
  SilentObserver observer;
  const BenchRoles roles{RunServer, [](const BenchParams&, BenchObserver&) {
                              return InvalidArgument("the client's own problem");
                            }};
  const auto start = std::chrono::steady_clock::now();
  const Status status = RunProcessPair(TcpRun(), observer, roles);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << status.ToString();
  EXPECT_EQ(status.message(), "the client's own problem");
}

TEST(ProcessPair, ARunThatWorksReportsOk) {
  SilentObserver observer;
  const Status status = RunProcessPair(TcpRun(), observer, {RunServer, RunClient});
  EXPECT_TRUE(status.ok()) << status.ToString();
}

}  // namespace
}  // namespace xfer::launch
