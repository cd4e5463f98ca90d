// --loopback's two processes report one outcome: the root cause, at once.
#include "launch/process_pair.h"

#include <gtest/gtest.h>

#include <fmt/format.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <string>
#include <vector>

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
      [](const BenchParams&, Listener&, BenchObserver&, const std::atomic<int>&) {
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
  const BenchRoles roles{RunServer,
                         [](const BenchParams&, BenchObserver&, const std::atomic<int>&) {
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

// Raises the stop flag, as StopSignal would on Ctrl-C, once `after` rows
// have been reported.
class InterruptAfterRows final : public BenchObserver {
 public:
  InterruptAfterRows(std::atomic<int>& stop, size_t after) : stop_(stop), after_(after) {}
  void OnNotice(const std::string&) override {}
  void OnWaitingForClient() override {}
  void OnStart(const bench::RunInfo&) override {}
  void OnBandwidth(const bench::BwResult& row) override {
    sizes.push_back(row.size);
    if (sizes.size() == after_) stop_.store(SIGINT);
  }
  void OnLatency(const bench::LatResult&) override {}
  void OnLatencyDuration(const bench::LatDurationResult&) override {}
  std::vector<uint64_t> sizes;

 private:
  std::atomic<int>& stop_;
  size_t after_;
};

// Issue 27, defect 4: Ctrl-C used to kill both processes mid-size and lose
// every row. The run now ends between sizes: the finished rows stand, the
// error says where it stopped, and the forked server (which ignores the
// signal) leaves on the client's Abort instead of waiting out --timeout.
TEST(ProcessPair, AnInterruptedRunStopsBetweenSizesKeepingTheFinishedOnes) {
  BenchParams params = TcpRun();
  params.all_sizes = true;  // 2 B .. 8 MiB: 23 sizes
  const BenchRoles roles{RunServer, RunClient};
  auto server = LoopbackServer::Launch(params, roles);
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  std::atomic<int> stop{0};
  InterruptAfterRows observer(stop, 3);
  const auto start = std::chrono::steady_clock::now();
  const Status status = server->RunClient(params, observer, roles, stop);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition) << status.ToString();
  EXPECT_EQ(status.message(),
            fmt::format("interrupted by SIGINT after 3 of {} sizes", params.Sizes().size()));
  EXPECT_EQ(observer.sizes, (std::vector<uint64_t>{2, 4, 8}));
}

}  // namespace
}  // namespace xfer::launch
