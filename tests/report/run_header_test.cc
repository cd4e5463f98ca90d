#include "report/run_header.h"

#include <gtest/gtest.h>

namespace xfer::report {
namespace {

using bench::Kind;
using bench::Role;
using bench::Verb;

TEST(TestInfo, MakeTestInfoTakesWhatTheRunSettledOnNotRawFlags) {
  bench::BenchParams params;
  params.verb = Verb::kSend;
  params.role = Role::kServer;
  params.qps = 3;
  params.tx_depth = 128;
  params.cq_mod = 100;
  params.post_list = 2;
  params.rx_depth = 511;
  params.units = bench::BwUnits::kGbps;
  params.duration_s = 10;
  bench::RunInfo run;
  run.transport = "tcp";
  run.qps = 3;
  run.tx_depth = 64;
  run.cq_mod = 2;
  run.post_list = 2;
  run.rx_depth = 512;
  const TestInfo info = MakeTestInfo(params, run);
  EXPECT_EQ(info.verb, Verb::kSend);
  EXPECT_EQ(info.role, Role::kServer);
  EXPECT_EQ(info.transport, "tcp");
  EXPECT_EQ(info.qps, 3u);
  EXPECT_EQ(info.tx_depth, 64u);
  EXPECT_EQ(info.cq_mod, 2u);
  EXPECT_EQ(info.rx_depth, 512u);
  EXPECT_EQ(info.post_list, 2u);
  EXPECT_EQ(info.units, bench::BwUnits::kGbps);
  EXPECT_EQ(info.duration_s, 10.0);
}

TEST(TestInfo, TitlesMatchPerftest) {
  TestInfo info;
  EXPECT_EQ(TestTitle(info), "RDMA_Write BW Test");
  info.verb = Verb::kRead;
  info.kind = Kind::kLatency;
  EXPECT_EQ(TestTitle(info), "RDMA_Read Latency Test");
  info.post_list = 8;  // "Post List " is a BW-only word
  EXPECT_EQ(TestTitle(info), "RDMA_Read Latency Test");
  info.verb = Verb::kSend;
  info.kind = Kind::kBandwidth;
  EXPECT_EQ(TestTitle(info), "Send Post List BW Test");
}

TEST(TestInfo, DepthLinesFollowTheRole) {
  TestInfo info;
  info.role = Role::kClient;
  EXPECT_TRUE(ShowsTxDepth(info));
  EXPECT_FALSE(ShowsRxDepth(info));
  info.role = Role::kServer;
  EXPECT_FALSE(ShowsTxDepth(info));
  EXPECT_FALSE(ShowsRxDepth(info));  // WRITE: nothing is received
  info.verb = Verb::kSend;
  EXPECT_TRUE(ShowsRxDepth(info));
  info.role = Role::kLoopback;
  EXPECT_TRUE(ShowsTxDepth(info));
  EXPECT_TRUE(ShowsRxDepth(info));
}

}  // namespace
}  // namespace xfer::report
