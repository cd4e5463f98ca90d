// The anchor table and its JSON from a run with hand-made anchors.
#include "report/matrix/anchor_table.h"

#include <gtest/gtest.h>

#include "bench/matrix/direction.h"

namespace xfer::report {
namespace {

using matrix::AnchorResult;
using matrix::CellStatus;

matrix::MatrixRun RunWithAnchors() {
  matrix::MatrixRun run;
  run.config.directions = {*matrix::ParseDirection("D2rD")};
  run.config.block_sizes = {uint64_t{16} << 10, uint64_t{2} << 20};
  run.config.cuda_device = 1;
  run.anchors = matrix::PlanAnchors(run.config);
  for (AnchorResult& anchor : run.anchors) {
    if (anchor.copy == LocalCopy::kDeviceToDevice) {
      anchor.status = CellStatus::kFailed;
      anchor.reason = "internal: cuMemcpyAsync: CUDA_ERROR_ILLEGAL_ADDRESS (700)";
    } else {
      anchor.status = CellStatus::kOk;
      anchor.sample_seconds = {0.01, 0.02};
      anchor.median_gbps = anchor.block_size == (uint64_t{16} << 10) ? 12.5 : 55.25;
      anchor.min_gbps = 10;
      anchor.max_gbps = 60;
    }
  }
  return run;
}

TEST(AnchorTableTest, RowsPerBlockColumnsPerCopyAndOneNotePerReason) {
  std::string text;
  AppendAnchorTable(RunWithAnchors(), text);
  EXPECT_NE(text.find("--- local copies on CUDA device 1 (copy engine, CUDA events; no transport) ---"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(" Block        H2D        D2H        D2D\n"), std::string::npos) << text;
  EXPECT_NE(text.find("   16K     12.500     12.500     failed\n"), std::string::npos) << text;
  EXPECT_NE(text.find("    2M     55.250     55.250     failed\n"), std::string::npos) << text;
  EXPECT_NE(text.find(" failed  D2D: internal: cuMemcpyAsync: CUDA_ERROR_ILLEGAL_ADDRESS (700)\n"),
            std::string::npos)
      << text;
}

TEST(AnchorTableTest, UnsupportedAnchorsShareOneNote) {
  matrix::MatrixRun run = RunWithAnchors();
  for (AnchorResult& anchor : run.anchors) {
    anchor.status = CellStatus::kUnsupported;
    anchor.reason = "no NVIDIA driver: cannot load libcuda.so.1";
  }
  std::string text;
  AppendAnchorTable(run, text);
  EXPECT_NE(text.find(" n/a  H2D D2H D2D: no NVIDIA driver: cannot load libcuda.so.1\n"),
            std::string::npos)
      << text;
}

TEST(AnchorTableTest, ARunWithoutAnchorsPrintsNothingAndHasNullJson) {
  matrix::MatrixRun run;
  std::string text;
  AppendAnchorTable(run, text);
  EXPECT_TRUE(text.empty());
  EXPECT_TRUE(AnchorsJson(run).is_null());
}

TEST(AnchorTableTest, JsonKeepsEverySampleAndNullsWhereNothingWasMeasured) {
  const nlohmann::json json = AnchorsJson(RunWithAnchors());
  EXPECT_EQ(json["device"], 1);
  ASSERT_EQ(json["cells"].size(), 6u);
  const auto& h2d = json["cells"][0];
  EXPECT_EQ(h2d["copy"], "H2D");
  EXPECT_EQ(h2d["block_size"], 16384);
  EXPECT_EQ(h2d["status"], "ok");
  EXPECT_EQ(h2d["median_gbps"], 12.5);
  EXPECT_EQ(h2d["sample_seconds"].size(), 2u);
  EXPECT_TRUE(h2d["reason"].is_null());
  const auto& d2d = json["cells"][5];
  EXPECT_EQ(d2d["copy"], "D2D");
  EXPECT_EQ(d2d["status"], "failed");
  EXPECT_TRUE(d2d["median_gbps"].is_null());
  EXPECT_FALSE(d2d["reason"].get<std::string>().empty());
}

}  // namespace
}  // namespace xfer::report
