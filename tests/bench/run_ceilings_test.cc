// Which ceiling a perftest-style run records, by what moves its bytes.
#include "bench/run_ceilings.h"

#include <gtest/gtest.h>

#include <vector>

namespace xfer::bench {
namespace {

PeerInfo Path(DataMover mover, const char* transport) {
  PeerInfo info;
  info.transport = transport;
  info.data_mover = mover;
  return info;
}

BenchParams Bandwidth() {
  BenchParams params;
  params.kind = Kind::kBandwidth;
  params.verb = Verb::kWrite;
  return params;
}

const std::vector<uint64_t> kSizes = {4096, 65536};

TEST(RunCeilings, CpuCopyIsMeasuredForEverySize) {
  const auto ceilings = RunCeilings(Bandwidth(), Path(DataMover::kCpuCopy, "shm"), kSizes);
  ASSERT_EQ(ceilings.size(), kSizes.size());
  for (uint64_t size : kSizes) {
    const Ceiling& ceiling = ceilings.at(size);
    ASSERT_TRUE(ceiling.bytes_per_s.has_value()) << ceiling.source;
    EXPECT_GT(*ceiling.bytes_per_s, 1e8);
    EXPECT_NE(ceiling.source.find("memcpy"), std::string::npos);
  }
}

TEST(RunCeilings, KernelAndNicPathsAreUnknownWithTheReason) {
  const auto tcp = RunCeilings(Bandwidth(), Path(DataMover::kKernel, "tcp"), kSizes);
  ASSERT_EQ(tcp.size(), kSizes.size());
  EXPECT_FALSE(tcp.at(4096).bytes_per_s.has_value());
  EXPECT_NE(tcp.at(4096).source.find("socket stack"), std::string::npos);
  const auto nic = RunCeilings(Bandwidth(), Path(DataMover::kNic, "verbs"), kSizes);
  EXPECT_FALSE(nic.at(65536).bytes_per_s.has_value());
  EXPECT_NE(nic.at(65536).source.find("xfer doctor"), std::string::npos);
}

TEST(RunCeilings, BidirectionalAndDeviceMemoryHaveNoSingleCoreCeiling) {
  BenchParams both = Bandwidth();
  both.bidirectional = true;
  const auto duplex = RunCeilings(both, Path(DataMover::kCpuCopy, "shm"), kSizes);
  EXPECT_FALSE(duplex.at(4096).bytes_per_s.has_value());
  EXPECT_NE(duplex.at(4096).source.find("bidirectional"), std::string::npos);
  BenchParams gpu = Bandwidth();
  gpu.cuda_device = 0;
  const auto device = RunCeilings(gpu, Path(DataMover::kCpuCopy, "shm"), kSizes);
  EXPECT_FALSE(device.at(4096).bytes_per_s.has_value());
  EXPECT_NE(device.at(4096).source.find("CUDA"), std::string::npos);
}

TEST(RunCeilings, LatencyTestsRecordNone) {
  BenchParams latency = Bandwidth();
  latency.kind = Kind::kLatency;
  EXPECT_TRUE(RunCeilings(latency, Path(DataMover::kCpuCopy, "shm"), kSizes).empty());
}

TEST(Ceiling, EfficiencyIsTheMeasuredFraction) {
  const Ceiling known{2e9, "test"};
  ASSERT_TRUE(known.Efficiency(1.5e9).has_value());
  EXPECT_DOUBLE_EQ(*known.Efficiency(1.5e9), 0.75);
  EXPECT_FALSE(Ceiling::Unknown("why").Efficiency(1e9).has_value());
}

}  // namespace
}  // namespace xfer::bench
