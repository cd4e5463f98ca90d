// The terminal tables of `xfer matrix`: the golden rendering of the sample
// run, and the rules behind it checked one by one.
#include "report/matrix/matrix_table.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bench/matrix/block_size.h"

#include "report/matrix/matrix_fixture.h"

namespace xfer::report {
namespace {

using matrix::CellResult;
using matrix::CellStatus;
using testing::Lines;
using testing::SampleRun;

bool HasLine(const std::string& text, const std::string& line) {
  for (const std::string& l : Lines(text)) {
    if (l == line) return true;
  }
  return false;
}

TEST(MatrixTableTest, MatchesGolden) {
  testing::ExpectGolden("matrix_table.golden", RenderMatrixTables(SampleRun()));
}

TEST(MatrixTableTest, FixtureHasTheCellsTheGoldenFilesShow) {
  const matrix::MatrixRun run = SampleRun();
  ASSERT_EQ(run.cells.size(), 2u * 8u * 3u);
  EXPECT_EQ(run.cells[run.CellIndex(0, 6, 2)].direction.Name(), "rH2H");
  EXPECT_EQ(run.cells[run.CellIndex(1, 6, 1)].status, CellStatus::kFailed);
  EXPECT_EQ(run.cells[run.CellIndex(1, 6, 2)].status, CellStatus::kNotRun);
}

TEST(MatrixTableTest, HeadingStatesUnitsAndMethod) {
  const std::string text = RenderMatrixTables(SampleRun());
  EXPECT_EQ(Lines(text).front(),
            " xfer matrix: GB/s = 10^9 B/s, median of 5 samples after 1 warm-up, 128 MiB per "
            "sample");
}

TEST(MatrixTableTest, MethodTextFollowsTheConfig) {
  matrix::MatrixConfig config;
  config.loops = 1;
  config.warmup = 0;
  config.transfer_size = 3 * 1024;
  config.batch = 4;
  EXPECT_EQ(MethodText(config), "median of 1 sample, no warm-up, 3 KiB per sample in 4 requests");
  config.loops = 9;
  config.warmup = 2;
  config.transfer_size = uint64_t{1} << 30;
  config.batch = 1;
  EXPECT_EQ(MethodText(config), "median of 9 samples after 2 warm-ups, 1 GiB per sample");
}

TEST(MatrixTableTest, SizeTextIsExact) {
  EXPECT_EQ(SizeText(128u << 20), "128 MiB");
  EXPECT_EQ(SizeText(1536 * 1024), "1536 KiB");
  EXPECT_EQ(SizeText(1000), "1000 bytes");
  EXPECT_EQ(SizeText(1), "1 byte");
}

TEST(MatrixTableTest, OneTablePerTransportNamingThePath) {
  const std::string text = RenderMatrixTables(SampleRun());
  EXPECT_TRUE(HasLine(text, "--- shm (path: shm, 1 stream) ---")) << text;
  EXPECT_TRUE(HasLine(text, "--- tcp (path: tcp, 1 stream) ---")) << text;
  size_t headers = 0;
  for (const std::string& line : Lines(text)) {
    if (line.starts_with(" Block")) ++headers;
  }
  EXPECT_EQ(headers, 2u);
}

TEST(MatrixTableTest, PathTextReportsWhatRanNotWhatWasAsked) {
  matrix::MatrixRun run = SampleRun();
  for (CellResult& cell : run.cells) {
    if (cell.transport == "shm") cell.path_streams = 2;
  }
  EXPECT_EQ(PathText(run, 0), "path: shm, 2 streams");
  run.cells[run.CellIndex(1, 2, 0)].path_transport = "shm";
  EXPECT_EQ(PathText(run, 1), "paths: shm, 1 stream; tcp, 1 stream");  // first seen first
  for (CellResult& cell : run.cells) {
    if (cell.status == CellStatus::kOk) cell.status = CellStatus::kNotRun;
  }
  EXPECT_EQ(PathText(run, 0), "path: not measured");
}

TEST(MatrixTableTest, CellsKeepThreeDecimalsAndStatusesDiffer) {
  CellResult cell;
  cell.status = CellStatus::kOk;
  cell.median_gbps = 2.0;
  EXPECT_EQ(CellText(cell, "-"), "2.000");
  cell.median_gbps = 31.97;
  EXPECT_EQ(CellText(cell, "-"), "31.970");
  cell.median_gbps = 1234.5678;
  EXPECT_EQ(CellText(cell, "-"), "1234.568");
  cell.status = CellStatus::kUnsupported;
  EXPECT_EQ(CellText(cell, "-"), "n/a");
  cell.status = CellStatus::kFailed;
  EXPECT_EQ(CellText(cell, "-"), "failed");
  cell.status = CellStatus::kNotRun;
  EXPECT_EQ(CellText(cell, "-"), "-");
  EXPECT_EQ(CellText(cell, "—"), "—");
}

TEST(MatrixTableTest, RowsAreRightAlignedPerDirection) {
  const std::vector<std::string> lines = Lines(RenderMatrixTables(SampleRun()));
  size_t i = 0;
  while (i < lines.size() && lines[i] != "--- tcp (path: tcp, 1 stream) ---") ++i;
  ASSERT_LT(i + 4, lines.size());
  const std::string& header = lines[i + 1];
  const std::string& row_64k = lines[i + 3];
  const std::string& row_2m = lines[i + 4];
  EXPECT_EQ(header.size(), row_64k.size());
  EXPECT_EQ(header.size(), row_2m.size());
  const size_t rh2h_end = header.find("rH2H") + 4;
  EXPECT_EQ(row_64k.substr(rh2h_end - 6, 6), "failed");
  EXPECT_EQ(row_2m.substr(rh2h_end - 1, 1), "-");
  EXPECT_EQ(row_2m.substr(0, 6), "    2M");
}

TEST(MatrixTableTest, NotesListEachReasonOnceWithItsDirections) {
  const std::string text = RenderMatrixTables(SampleRun());
  const std::string device_note =
      " n/a  D2rD D2rH H2rD rD2D rH2D rD2H: device memory: CUDA device memory on device 0: no "
      "NVIDIA driver: cannot load libcuda.so.1";
  size_t count = 0;
  for (const std::string& line : Lines(text)) {
    if (line == device_note) ++count;
  }
  EXPECT_EQ(count, 2u) << text;  // once under each table
  EXPECT_TRUE(HasLine(text, " failed  rH2H@64K: timeout: sample 3 took longer than 10 s")) << text;
}

TEST(MatrixTableTest, CellNotesAcrossTransportsNameTheColumns) {
  matrix::MatrixRun run = SampleRun();
  run.cells[run.CellIndex(0, 2, 0)].status = CellStatus::kFailed;
  run.cells[run.CellIndex(0, 2, 0)].reason = "timeout: sample 3 took longer than 10 s";
  const size_t both[] = {0, 1};
  const std::vector<CellNote> notes = CellNotes(run, both);
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[0].status, CellStatus::kUnsupported);
  EXPECT_EQ(notes[0].where,
            (std::vector<std::string>{"D2rD", "D2rH", "H2rD", "rD2D", "rH2D", "rD2H"}));
  EXPECT_EQ(notes[1].status, CellStatus::kFailed);
  EXPECT_EQ(notes[1].where, (std::vector<std::string>{"H2rH shm@16K", "rH2H tcp@64K"}));
}

TEST(MatrixTableTest, CellNotesSplitDistinctReasonsAndKeepOneLine) {
  matrix::MatrixRun run = SampleRun();
  for (size_t b = 0; b < 3; ++b) {
    run.cells[run.CellIndex(1, 0, b)].reason = "first line\nsecond line";
  }
  const size_t tcp[] = {1};
  const std::vector<CellNote> notes = CellNotes(run, tcp);
  ASSERT_EQ(notes.size(), 3u);
  EXPECT_EQ(notes[0].reason, "first line second line");
  EXPECT_EQ(notes[0].where, std::vector<std::string>{"D2rD"});
  EXPECT_EQ(notes[1].where, (std::vector<std::string>{"D2rH", "H2rD", "rD2D", "rH2D", "rD2H"}));
  EXPECT_EQ(notes[2].status, CellStatus::kFailed);
}

TEST(MatrixTableTest, TailLinesSaySkippedVerifiedAndOutcome) {
  const std::string text = RenderMatrixTables(SampleRun());
  EXPECT_TRUE(HasLine(text, " not usable here: verbs: no RDMA device: libibverbs lists none"));
  EXPECT_TRUE(HasLine(text,
                      " verify: 9 of 10 measured cells verified byte for byte; did not match: "
                      "shm rH2H 2M"))
      << text;
  EXPECT_TRUE(HasLine(text, " run failed: tcp rH2H 64K: timeout: sample 3 took longer than 10 s"));
}

TEST(MatrixTableTest, CompleteRunWithoutVerifyHasNoTail) {
  matrix::MatrixRun run = SampleRun();
  run.config.verify = false;
  run.skipped.clear();
  run.outcome = matrix::RunOutcome::kComplete;
  run.error.clear();
  const std::string text = RenderMatrixTables(run);
  EXPECT_EQ(text.find("verify"), std::string::npos);
  EXPECT_EQ(text.find("not usable"), std::string::npos);
  EXPECT_EQ(text.find(" run "), std::string::npos);
  EXPECT_TRUE(text.ends_with("longer than 10 s\n")) << text;
}

TEST(MatrixTableTest, ShortGridPrintsMissingCellsAsNotRun) {
  matrix::MatrixRun run = SampleRun();
  run.cells.resize(run.cells.size() - 3);
  const std::string text = RenderMatrixTables(run);
  const std::vector<std::string> lines = Lines(text);
  size_t i = 0;
  while (i < lines.size() && lines[i] != "--- tcp (path: tcp, 1 stream) ---") ++i;
  ASSERT_LT(i + 2, lines.size());
  EXPECT_TRUE(lines[i + 2].ends_with("       -")) << lines[i + 2];
  EXPECT_EQ(CellAt(run, 1, 7, 0), nullptr);
  EXPECT_NE(CellAt(run, 1, 6, 2), nullptr);
}

}  // namespace
}  // namespace xfer::report

namespace xfer::report {
namespace {

TEST(MatrixTableTest, EfficiencyFollowsEachTableWithItsSource) {
  matrix::MatrixRun run = testing::SampleRun();
  EXPECT_EQ(RenderMatrixTables(run).find("efficiency"), std::string::npos);
  run.config.efficiency = true;
  const size_t measured = run.CellIndex(1, 2, 2);  // tcp H2rH 2M, 3.05 GB/s
  run.cells[measured].ceiling = bench::Ceiling{6.1e9, "single-core memcpy"};
  const std::string text = RenderMatrixTables(run);
  const std::vector<std::string> lines = testing::Lines(text);
  size_t i = 0;
  while (i < lines.size() && lines[i] != "--- tcp (path: tcp, 1 stream) ---") ++i;
  while (i < lines.size() && lines[i] != " efficiency, % of the ceiling:") ++i;
  ASSERT_LT(i + 4, lines.size()) << text;
  const std::string& header = lines[i + 1];
  const std::string& row_2m = lines[i + 4];
  const size_t h2rh_end = header.find("H2rH") + 4;
  EXPECT_EQ(row_2m.substr(h2rh_end - 4, 4), "50.0") << text;
  EXPECT_NE(text.find(" ceiling: single-core memcpy\n"), std::string::npos);
}

}  // namespace
}  // namespace xfer::report
