// libFuzzer target for the tcp transport's frame headers and the buffered
// reader of a data stream (frame_check.h). Built only with -DXFER_FUZZ=ON
// and clang (scripts/fuzz.sh); seeds in corpus/, recorded by tests/fuzz_seeds.
#include <cstddef>
#include <cstdint>

#include "support/fuzz_target.h"
#include "transport/tcp/fuzz/frame_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  xfer::fuzz::AbortOnFinding("tcp_frame_fuzzer", xfer::fuzz::CheckTcpFrameInput({data, size}));
  return 0;
}
