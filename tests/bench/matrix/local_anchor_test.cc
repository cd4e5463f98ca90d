// Which anchors a run plans, and what measuring them gives on this host:
// figures where a GPU is, the CUDA loader's reason on every anchor where
// none is.
#include "bench/matrix/local_anchor.h"

#include <gtest/gtest.h>

#include "xfer/device.h"

namespace xfer::matrix {
namespace {

MatrixConfig Config(const std::vector<std::string>& directions) {
  MatrixConfig config;
  for (const std::string& name : directions) config.directions.push_back(*ParseDirection(name));
  config.block_sizes = {uint64_t{1} << 16, uint64_t{2} << 20};
  config.transfer_size = uint64_t{16} << 20;
  config.loops = 2;
  config.warmup = 1;
  return config;
}

TEST(LocalAnchorTest, HostOnlyRunsPlanNone) {
  EXPECT_TRUE(PlanAnchors(Config({"H2rH", "rH2H"})).empty());
}

TEST(LocalAnchorTest, DeviceRunsPlanEveryCopyAtEveryBlockInOrder) {
  const auto anchors = PlanAnchors(Config({"H2rH", "rD2H"}));
  ASSERT_EQ(anchors.size(), 6u);
  const LocalCopy order[] = {LocalCopy::kHostToDevice, LocalCopy::kDeviceToHost,
                             LocalCopy::kDeviceToDevice};
  for (size_t i = 0; i < anchors.size(); ++i) {
    EXPECT_EQ(anchors[i].copy, order[i / 2]) << i;
    EXPECT_EQ(anchors[i].block_size, i % 2 == 0 ? uint64_t{1} << 16 : uint64_t{2} << 20) << i;
    EXPECT_EQ(anchors[i].status, CellStatus::kNotRun);
  }
}

TEST(LocalAnchorTest, MeasuringGivesFiguresOrEveryAnchorTheSameReason) {
  const MatrixConfig config = Config({"D2rD"});
  auto anchors = PlanAnchors(config);
  MeasureAnchors(config, anchors);
  auto devices = ListCudaDevices();
  for (const AnchorResult& anchor : anchors) {
    if (devices.ok()) {
      ASSERT_EQ(anchor.status, CellStatus::kOk) << anchor.reason;
      EXPECT_EQ(anchor.sample_seconds.size(), config.loops);
      EXPECT_GT(anchor.median_gbps, 0);
      EXPECT_LE(anchor.min_gbps, anchor.median_gbps);
      EXPECT_GE(anchor.max_gbps, anchor.median_gbps);
    } else {
      EXPECT_EQ(anchor.status, CellStatus::kUnsupported);
      EXPECT_EQ(anchor.reason, devices.status().message());
      EXPECT_TRUE(anchor.sample_seconds.empty());
    }
  }
}

}  // namespace
}  // namespace xfer::matrix
