// Shared by the doctor tests: the recorded trees and run fixtures.
#ifndef XFER_TESTS_DOCTOR_TREE_UTIL_H_
#define XFER_TESTS_DOCTOR_TREE_UTIL_H_

#include <string>

namespace xfer::doctor::testing {

inline std::string Tree(const std::string& name) { return std::string(XFER_TEST_DATA_DIR) + "/sysfs/" + name; }
inline std::string RunFixture(const std::string& name) { return std::string(XFER_TEST_DATA_DIR) + "/runs/" + name; }

}  // namespace xfer::doctor::testing

#endif  // XFER_TESTS_DOCTOR_TREE_UTIL_H_
