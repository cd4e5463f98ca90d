// What every fuzz target over a peer-facing decoder checks, shared by the
// libFuzzer targets (tests/*/fuzz/) and the ordinary-suite regression tests
// that replay their corpora, so the two cannot drift.
//
// A check returns "" when the input was handled as the decoder's contract
// says: refused with kProtocolError, or decoded into a message that survives
// encode -> decode -> encode unchanged. Anything else is a finding, returned
// as a sentence for the fuzzer to abort on and the test to print.
#ifndef XFER_TESTS_SUPPORT_FUZZ_CHECK_H_
#define XFER_TESTS_SUPPORT_FUZZ_CHECK_H_

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "xfer/status.h"

namespace xfer::fuzz {

template <typename Bytes>
std::vector<uint8_t> ToVector(const Bytes& bytes) {
  return std::vector<uint8_t>(std::begin(bytes), std::end(bytes));
}

// "" for a refusal with kProtocolError, the documented error of every peer
// decoder; a finding for any other code.
inline std::string CheckRefusal(const std::string& what, const Status& refusal) {
  if (refusal.code() == StatusCode::kProtocolError) return "";
  return what + ": refused with " + std::string(StatusCodeName(refusal.code())) +
         " instead of protocol error: " + refusal.message();
}

// Decodes `bytes`; when that succeeds, encodes the message, decodes the
// encoding and encodes again. The two encodings must be equal: every
// encoder here writes every field its decoder reads, so equal encodings
// mean equal fields. With `canonical`, the first encoding must also equal
// the input itself (for formats with exactly one encoding per message).
// `decode` returns Result<T>; `encode` returns any byte container.
template <typename Decode, typename Encode>
std::string CheckRoundTrip(const std::string& what, std::span<const uint8_t> bytes,
                           Decode&& decode, Encode&& encode, bool canonical = false) {
  auto first = decode(bytes);
  if (!first.ok()) return CheckRefusal(what, first.status());
  const std::vector<uint8_t> encoded = ToVector(encode(*first));
  if (canonical && encoded != ToVector(bytes)) {
    return what + ": the decoded message encodes to other bytes than it was decoded from";
  }
  auto second = decode(std::span<const uint8_t>(encoded));
  if (!second.ok()) {
    return what + ": the encoding of a decoded message is refused: " + second.status().message();
  }
  if (ToVector(encode(*second)) != encoded) {
    return what + ": decoding the encoding of a decoded message gives other fields";
  }
  return "";
}

struct FuzzInput {
  std::string path;
  std::vector<uint8_t> bytes;
};

// Every file of `folder`/corpus and `folder`/regressions (either may be
// missing), in name order.
inline std::vector<FuzzInput> ReadFuzzInputs(const std::filesystem::path& folder) {
  std::vector<FuzzInput> inputs;
  for (const char* sub : {"corpus", "regressions"}) {
    const std::filesystem::path dir = folder / sub;
    if (!std::filesystem::is_directory(dir)) continue;
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (entry.is_regular_file()) files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& file : files) {
      std::ifstream in(file, std::ios::binary);
      inputs.push_back({file.string(), std::vector<uint8_t>(std::istreambuf_iterator<char>(in),
                                                            std::istreambuf_iterator<char>())});
    }
  }
  return inputs;
}

}  // namespace xfer::fuzz

#endif  // XFER_TESTS_SUPPORT_FUZZ_CHECK_H_
