// The body of a libFuzzer target over one check of tests/support/fuzz_check.h:
// any finding is printed and aborts, which libFuzzer reports as a crash and
// saves the input for.
#ifndef XFER_TESTS_SUPPORT_FUZZ_TARGET_H_
#define XFER_TESTS_SUPPORT_FUZZ_TARGET_H_

#include <cstdio>
#include <cstdlib>
#include <string>

namespace xfer::fuzz {

inline void AbortOnFinding(const char* target, const std::string& finding) {
  if (finding.empty()) return;
  std::fprintf(stderr, "%s: %s\n", target, finding.c_str());
  std::abort();
}

}  // namespace xfer::fuzz

#endif  // XFER_TESTS_SUPPORT_FUZZ_TARGET_H_
