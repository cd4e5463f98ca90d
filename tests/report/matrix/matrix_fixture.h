// The sample run the matrix report tests render (matrix_fixture.cc), and
// the golden-file check they share.
#ifndef XFER_TESTS_REPORT_MATRIX_MATRIX_FIXTURE_H_
#define XFER_TESTS_REPORT_MATRIX_MATRIX_FIXTURE_H_

#include <string>
#include <vector>

#include "bench/matrix/matrix_run.h"

namespace xfer::report::testing {

// shm and tcp x the eight directions x 16K, 64K, 2M: D cells unsupported,
// host cells measured, one failed tcp cell and one not run.
matrix::MatrixRun SampleRun();

// Compares `actual` with testdata/<name>; rewrites the file instead when
// XFER_UPDATE_GOLDEN=1.
void ExpectGolden(const std::string& name, const std::string& actual);

// `text` split at newlines, without them.
std::vector<std::string> Lines(const std::string& text);

}  // namespace xfer::report::testing

#endif  // XFER_TESTS_REPORT_MATRIX_MATRIX_FIXTURE_H_
