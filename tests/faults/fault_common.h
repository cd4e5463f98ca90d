// Shared by fault_target and fault_initiator: flag parsing and the byte
// patterns, on nothing but the C++ library (the programs themselves use only
// the public API in include/xfer/).
#ifndef XFER_TESTS_FAULTS_FAULT_COMMON_H_
#define XFER_TESTS_FAULTS_FAULT_COMMON_H_

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>
#include <utility>

namespace xfer::faults {

// "--key value" pairs; an unknown key or a missing value is a usage error.
class Flags {
 public:
  Flags(int argc, char** argv, std::map<std::string, std::string> defaults)
      : values_(std::move(defaults)) {
    for (int i = 1; i < argc; ++i) {
      std::string_view arg = argv[i];
      if (arg.substr(0, 2) != "--" || i + 1 >= argc ||
          values_.find(std::string(arg.substr(2))) == values_.end()) {
        std::fprintf(stderr, "usage: unknown flag or missing value: %s\n", argv[i]);
        std::exit(64);
      }
      values_[std::string(arg.substr(2))] = argv[++i];
    }
  }
  const std::string& Str(const std::string& key) const { return values_.at(key); }
  uint64_t U64(const std::string& key) const {
    const std::string& v = Str(key);
    char* end = nullptr;
    const unsigned long long n = std::strtoull(v.c_str(), &end, 0);
    if (v.empty() || *end != '\0') {
      std::fprintf(stderr, "usage: --%s wants a number, got '%s'\n", key.c_str(), v.c_str());
      std::exit(64);
    }
    return n;
  }
  std::chrono::milliseconds Ms(const std::string& key) const {
    return std::chrono::milliseconds(static_cast<int64_t>(U64(key)));
  }

 private:
  std::map<std::string, std::string> values_;
};

// The byte a canary or guard page holds at `offset` from the start of the
// mapping: position-dependent, so a shifted or partial overwrite shows.
inline uint8_t CanaryByte(uint64_t offset) {
  return static_cast<uint8_t>(((offset * 131u) ^ (offset >> 8) ^ 0xa5u) & 0xffu);
}

// splitmix64: the initiator's random numbers, and the data it writes.
inline uint64_t SplitMix(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace xfer::faults

#endif  // XFER_TESTS_FAULTS_FAULT_COMMON_H_
