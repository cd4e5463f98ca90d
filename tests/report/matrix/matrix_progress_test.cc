// The progress line: which cell of how many, which sample, and the time
// left estimated from the share done.
#include "report/matrix/matrix_progress.h"

#include <gtest/gtest.h>

#include <string>

#include "report/matrix/matrix_fixture.h"

namespace xfer::report {
namespace {

using matrix::CellStatus;
using testing::SampleRun;

// The sample run as it looks at plan time: 12 runnable cells (H2rH and
// rH2H of two transports, three blocks each), the rest n/a.
matrix::MatrixRun PlannedRun() {
  matrix::MatrixRun run = SampleRun();
  for (matrix::CellResult& cell : run.cells) {
    if (cell.status != CellStatus::kUnsupported) cell.status = CellStatus::kNotRun;
  }
  return run;
}

TEST(MatrixProgressTest, CountsRunnableCellsOnly) {
  const matrix::MatrixRun run = PlannedRun();
  // tcp H2rH 64K: after shm's 6 runnable cells and tcp H2rH 16K.
  EXPECT_EQ(ProgressLine(run, run.CellIndex(1, 2, 1), 3, 6, 0), "[ 8/12] tcp H2rH 64K sample 3/6");
  EXPECT_EQ(ProgressLine(run, run.CellIndex(0, 2, 0), 1, 6, 0).substr(0, 7), "[ 1/12]");
  EXPECT_EQ(ProgressLine(run, run.CellIndex(1, 6, 2), 1, 6, 0).substr(0, 7), "[12/12]");
}

TEST(MatrixProgressTest, EstimatesTimeLeftFromTheShareDone) {
  const matrix::MatrixRun run = PlannedRun();
  // 7 cells and half of the 8th done: f = 7.5 / 12; 75 s so far.
  // 75 * (1 - f) / f = 75 * 4.5 / 7.5 = 45.
  EXPECT_EQ(ProgressLine(run, run.CellIndex(1, 2, 1), 3, 6, 75.0),
            "[ 8/12] tcp H2rH 64K sample 3/6, ~45 s left");
  // f = 6 / 12 after 50 min: another 50 min.
  EXPECT_EQ(ProgressLine(run, run.CellIndex(1, 2, 0), 0, 6, 3000.0),
            "[ 7/12] tcp H2rH 16K sample 0/6, ~50 min left");
  // f = 1 / 12 after an hour: 11 more.
  EXPECT_EQ(ProgressLine(run, run.CellIndex(0, 2, 0), 6, 6, 3600.0),
            "[ 1/12] shm H2rH 16K sample 6/6, ~11.0 h left");
  // The last sample of the last cell: nothing left.
  EXPECT_EQ(ProgressLine(run, run.CellIndex(1, 6, 2), 6, 6, 90.0),
            "[12/12] tcp rH2H 2M sample 6/6, ~0 s left");
}

TEST(MatrixProgressTest, NoEstimateUntilSomethingFinished) {
  const matrix::MatrixRun run = PlannedRun();
  EXPECT_EQ(ProgressLine(run, run.CellIndex(0, 2, 0), 0, 6, 12.0),
            "[ 1/12] shm H2rH 16K sample 0/6");
  EXPECT_EQ(ProgressLine(run, run.CellIndex(0, 2, 0), 0, 0, 12.0),
            "[ 1/12] shm H2rH 16K sample 0/0");
}

TEST(MatrixProgressTest, CellOutsideTheGrid) {
  const matrix::MatrixRun run = PlannedRun();
  EXPECT_EQ(ProgressLine(run, run.cells.size(), 1, 6, 5.0), "[ ?/12] sample 1/6");
}

}  // namespace
}  // namespace xfer::report
