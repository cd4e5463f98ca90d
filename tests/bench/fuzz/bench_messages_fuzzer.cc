// libFuzzer target for the benchmark's out-of-band and matrix control
// messages (bench_messages_check.h). Built only with -DXFER_FUZZ=ON and clang
// (scripts/fuzz.sh); seeds in corpus/, recorded by tests/fuzz_seeds.
#include <cstddef>
#include <cstdint>

#include "bench/fuzz/bench_messages_check.h"
#include "support/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  xfer::fuzz::AbortOnFinding("bench_messages_fuzzer", xfer::fuzz::CheckBenchMessageInput({data, size}));
  return 0;
}
