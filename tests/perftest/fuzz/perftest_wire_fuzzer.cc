// libFuzzer target for perftest's out-of-band messages and negotiation
// (perftest_wire_check.h). Built only with -DXFER_FUZZ=ON, clang and
// rdma-core (scripts/fuzz.sh); seeds in corpus/, recorded by tests/fuzz_seeds.
#include <cstddef>
#include <cstdint>

#include "perftest/fuzz/perftest_wire_check.h"
#include "support/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  xfer::fuzz::AbortOnFinding("perftest_wire_fuzzer", xfer::fuzz::CheckPerftestWireInput({data, size}));
  return 0;
}
