// The golden files of tests/report/testdata: what a table or header must
// print, byte for byte.
#ifndef XFER_TESTS_REPORT_GOLDEN_FILE_H_
#define XFER_TESTS_REPORT_GOLDEN_FILE_H_

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace xfer::report::testing {

// The file's bytes; a missing file fails the test that asked for it.
inline std::string ReadGolden(const std::string& name) {
  std::ifstream in(std::string(XFER_TEST_DATA_DIR) + "/" + name, std::ios::binary);
  EXPECT_TRUE(in.good()) << "missing golden file " << name;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace xfer::report::testing

#endif  // XFER_TESTS_REPORT_GOLDEN_FILE_H_
