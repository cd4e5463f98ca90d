// The --markdown report: the golden rendering of the sample run, the
// seed's column order, and text from the run that must not break the table.
#include "report/matrix/matrix_markdown.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "report/matrix/matrix_fixture.h"

namespace xfer::report {
namespace {

using matrix::CellStatus;
using testing::Lines;
using testing::SampleRun;

std::vector<std::string> TableLines(const std::string& text) {
  std::vector<std::string> rows;
  for (const std::string& line : Lines(text)) {
    if (line.starts_with("|")) rows.push_back(line);
  }
  return rows;
}

// Cells of a table row: the text between unescaped '|'.
std::vector<std::string> Cells(const std::string& row) {
  std::vector<std::string> cells;
  std::string cell;
  for (size_t i = 1; i < row.size(); ++i) {
    if (row[i] == '\\' && i + 1 < row.size() && row[i + 1] == '|') {
      cell += "\\|";
      ++i;
    } else if (row[i] == '|') {
      cells.push_back(cell.substr(1, cell.size() - 2));
      cell.clear();
    } else {
      cell += row[i];
    }
  }
  return cells;
}

TEST(MatrixMarkdownTest, MatchesGolden) {
  testing::ExpectGolden("matrix_markdown.golden", RenderMatrixMarkdown(SampleRun()));
}

TEST(MatrixMarkdownTest, OneTableDirectionMajorAsTheSeed) {
  const std::vector<std::string> rows = TableLines(RenderMatrixMarkdown(SampleRun()));
  ASSERT_EQ(rows.size(), 2u + 3u);  // header, alignment, 3 blocks
  const std::vector<std::string> header = Cells(rows[0]);
  ASSERT_EQ(header.size(), 1u + 8u * 2u);
  EXPECT_EQ(header[0], "Block");
  EXPECT_EQ(header[1], "D2rD<br>shm");
  EXPECT_EQ(header[2], "D2rD<br>tcp");
  EXPECT_EQ(header[3], "D2rH<br>shm");
  EXPECT_EQ(header[16], "rD2H<br>tcp");
  for (const std::string& row : rows) EXPECT_EQ(Cells(row).size(), header.size()) << row;
  for (const std::string& cell : Cells(rows[1])) EXPECT_EQ(cell, "---:");
}

TEST(MatrixMarkdownTest, CellsUseTheSameTextAsTheTerminal) {
  const std::vector<std::string> rows = TableLines(RenderMatrixMarkdown(SampleRun()));
  const std::vector<std::string> row_64k = Cells(rows[3]);
  const std::vector<std::string> row_2m = Cells(rows[4]);
  EXPECT_EQ(row_64k[0], "64K");
  EXPECT_EQ(row_64k[1], "n/a");
  EXPECT_EQ(row_64k[5], "9.800");    // H2rH shm
  EXPECT_EQ(row_64k[6], "2.300");    // H2rH tcp
  EXPECT_EQ(row_64k[14], "failed");  // rH2H tcp
  EXPECT_EQ(row_2m[6], "3.050");
  EXPECT_EQ(row_2m[14], "—");  // rH2H tcp, not run
}

TEST(MatrixMarkdownTest, HowToReadStatesUnitsSamplesAndLabels) {
  const std::string text = RenderMatrixMarkdown(SampleRun());
  EXPECT_NE(text.find("GB/s (10^9 bytes/s)"), std::string::npos);
  EXPECT_NE(text.find("median of 5 samples after 1 warm-up"), std::string::npos);
  EXPECT_NE(text.find("128 MiB (134217728 bytes)"), std::string::npos);
  EXPECT_NE(text.find("16K = 16 KiB"), std::string::npos);
  EXPECT_NE(text.find("median of 5 samples after 1 warm-up (not counted)"), std::string::npos);
  // The examples show both memory classes.
  EXPECT_NE(text.find("D2rH writes local device memory into remote host memory"),
            std::string::npos);
  EXPECT_NE(text.find("rH2D reads remote host memory into local device memory"), std::string::npos);
  // Everything explanatory comes before the table.
  EXPECT_LT(text.find("How to read"), text.find("| Block |"));
}

TEST(MatrixMarkdownTest, FirstLineNamesBothMachines) {
  matrix::MatrixRun run = SampleRun();
  EXPECT_EQ(Lines(RenderMatrixMarkdown(run))[0],
            "xfer matrix between initiator node-a and target node-b (xfer 0.1.0), started "
            "2026-12-01T20:19:28Z.");
  run.target.xfer_version = "0.2.0";
  run.target.hostname.clear();
  run.start_time.clear();
  EXPECT_EQ(Lines(RenderMatrixMarkdown(run))[0],
            "xfer matrix between initiator node-a and target unknown (xfer 0.1.0 on the "
            "initiator, 0.2.0 on the target).");
}

TEST(MatrixMarkdownTest, HowToReadFollowsTheConfig) {
  matrix::MatrixRun run = SampleRun();
  run.config.batch = 4;
  run.config.warmup = 0;
  run.config.loops = 1;
  run.config.memory = "hugepage";
  const std::string text = RenderMatrixMarkdown(run);
  EXPECT_NE(text.find("the median of 1 sample, without warm-up.\n"), std::string::npos) << text;
  EXPECT_NE(text.find("/ Block entries, in 4 requests in flight.\n"), std::string::npos) << text;
  EXPECT_NE(text.find("H is hugepage on the initiator and host on the target"), std::string::npos);
}

TEST(MatrixMarkdownTest, ReasonsFollowTheTable) {
  const std::string text = RenderMatrixMarkdown(SampleRun());
  const size_t table_end = text.rfind("| 2M |");
  const size_t device = text.find(
      "- n/a D2rD, D2rH, H2rD, rD2D, rH2D, rD2H: device memory: CUDA device memory on device 0: "
      "no NVIDIA driver: cannot load libcuda.so.1\n");
  const size_t failed =
      text.find("- failed rH2H tcp@64K: timeout: sample 3 took longer than 10 s\n");
  ASSERT_NE(device, std::string::npos) << text;
  ASSERT_NE(failed, std::string::npos) << text;
  EXPECT_GT(device, table_end);
  EXPECT_GT(failed, device);
  EXPECT_NE(text.find("- not usable here: verbs: no RDMA device: libibverbs lists none\n"),
            std::string::npos);
}

TEST(MatrixMarkdownTest, RunTextCannotBreakTheTable) {
  matrix::MatrixRun run = SampleRun();
  run.transports[1] = "t|cp";
  for (matrix::CellResult& cell : run.cells) {
    if (cell.status == CellStatus::kFailed) cell.reason = "a | b\n<script>";
  }
  const std::string text = RenderMatrixMarkdown(run);
  const std::vector<std::string> rows = TableLines(text);
  for (const std::string& row : rows) EXPECT_EQ(Cells(row).size(), 17u) << row;
  EXPECT_NE(text.find("D2rD<br>t\\|cp"), std::string::npos);
  EXPECT_NE(text.find(": a \\| b &lt;script>\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("<script>"), std::string::npos);
}

}  // namespace
}  // namespace xfer::report
