// The one dispatch above the two benchmark stacks: which stack a run gets.
#include "launch/run_benchmark.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "bench/bench_runner.h"
#include "support/verbs_test_env.h"

namespace xfer::launch {
namespace {

using bench::BenchParams;

using ClientFn = Status (*)(const BenchParams&, bench::BenchObserver&, const std::atomic<int>&);

class NoticeRecorder final : public bench::BenchObserver {
 public:
  void OnNotice(const std::string& notice) override { notices.push_back(notice); }
  void OnWaitingForClient() override {}
  void OnStart(const bench::RunInfo&) override {}
  void OnBandwidth(const bench::BwResult&) override {}
  void OnLatency(const bench::LatResult&) override {}
  void OnLatencyDuration(const bench::LatDurationResult&) override {}
  std::vector<std::string> notices;
};

bool IsEngineStack(const BenchRoles& roles) {
  const ClientFn* client = roles.run_client.target<ClientFn>();
  return client != nullptr && *client == &bench::RunClient;
}

// The wire picks the stack, not the transport's name (issue 28, item 1):
// xfer's wire runs the engine on every transport, its verbs one included.
TEST(ChooseStack, XfersWireRunsTheEngineWhateverTheTransportAndTheHost) {
  for (const char* transport : {"shm", "tcp", "verbs", ""}) {
    BenchParams params;
    params.transport = transport;
    params.wire = bench::Wire::kXfer;
    params.verbs.typed = {"-d mlx5_0"};
    NoticeRecorder observer;
    auto roles = ChooseStack(params, observer);
    ASSERT_TRUE(roles.ok()) << roles.status().ToString();
    EXPECT_TRUE(IsEngineStack(*roles)) << transport;
    EXPECT_TRUE(observer.notices.empty());  // the CLI notes flags a decided wire ignores
  }
}

TEST(ChooseStack, NoTransportWithoutAnRdmaDeviceRunsTheEngineAndNotesIgnoredVerbsFlags) {
  if (testing::HasVerbsDevice()) GTEST_SKIP() << "this host has an RDMA device";
  BenchParams params;
  params.verbs.typed = {"-d mlx5_0", "-x 3"};
  NoticeRecorder observer;
  auto roles = ChooseStack(params, observer);
  ASSERT_TRUE(roles.ok()) << roles.status().ToString();
  EXPECT_TRUE(IsEngineStack(*roles));
  if (testing::kBuiltWithVerbs) {
    EXPECT_EQ(observer.notices,
              (std::vector<std::string>{
                  "-d mlx5_0: RDMA verbs flag; no RDMA device on this host, ignored",
                  "-x 3: RDMA verbs flag; no RDMA device on this host, ignored"}));
  }
}

TEST(ChooseStack, PerftestsWireRunsPerftestsStackWithHostOrDeviceMemory) {
  if (!testing::kBuiltWithVerbs) GTEST_SKIP() << testing::VerbsSkipReason();
  BenchParams params;
  params.wire = bench::Wire::kPerftest;
  NoticeRecorder observer;
  auto roles = ChooseStack(params, observer);
  ASSERT_TRUE(roles.ok()) << roles.status().ToString();
  EXPECT_FALSE(IsEngineStack(*roles));
  // --use_cuda on verbs registers the device buffer with the NIC, as stock
  // perftest does (issue 29, §4): perftest's stack takes it.
  params.cuda_device = 0;
  auto cuda = ChooseStack(params, observer);
  ASSERT_TRUE(cuda.ok()) << cuda.status().ToString();
  EXPECT_FALSE(IsEngineStack(*cuda));
}

}  // namespace
}  // namespace xfer::launch
