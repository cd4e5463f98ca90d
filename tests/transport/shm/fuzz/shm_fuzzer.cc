// libFuzzer target for the shm transport's parsers of peer bytes
// (shm_check.h). Built only with -DXFER_FUZZ=ON and clang (scripts/fuzz.sh);
// seeds in corpus/, recorded by tests/fuzz_seeds.
#include <cstddef>
#include <cstdint>

#include "support/fuzz_target.h"
#include "transport/shm/fuzz/shm_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  xfer::fuzz::AbortOnFinding("shm_fuzzer", xfer::fuzz::CheckShmInput({data, size}));
  return 0;
}
