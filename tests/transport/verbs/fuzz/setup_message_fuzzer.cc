// libFuzzer target for the verbs transport's setup messages
// (setup_message_check.h). Built only with -DXFER_FUZZ=ON, clang and
// rdma-core (scripts/fuzz.sh); seeds in corpus/, recorded by tests/fuzz_seeds.
#include <cstddef>
#include <cstdint>

#include "support/fuzz_target.h"
#include "transport/verbs/fuzz/setup_message_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  xfer::fuzz::AbortOnFinding("verbs_setup_fuzzer", xfer::fuzz::CheckVerbsSetupInput({data, size}));
  return 0;
}
