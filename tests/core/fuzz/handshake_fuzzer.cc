// libFuzzer target for the engine handshake's decoders: every input must be
// refused with kProtocolError or decode into a message that round-trips
// (handshake_check.h). Built only with -DXFER_FUZZ=ON and clang
// (scripts/fuzz.sh); seeds in corpus/, recorded by tests/fuzz_seeds.
#include <cstddef>
#include <cstdint>

#include "core/fuzz/handshake_check.h"
#include "support/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  xfer::fuzz::AbortOnFinding("handshake_fuzzer", xfer::fuzz::CheckHandshakeInput({data, size}));
  return 0;
}
