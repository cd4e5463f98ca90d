#include "cli/flag_spec.h"

#include <algorithm>

namespace xfer::cli {

bool InScope(Scope scope, const TestInfo& test) {
  switch (scope) {
    case Scope::kAll:
      return true;
    case Scope::kBandwidth:
      return test.kind == bench::Kind::kBandwidth;
    case Scope::kSend:
      return test.verb == bench::Verb::kSend;
    case Scope::kReadAtomic:
      return test.verb == bench::Verb::kRead ||
             test.verb == bench::Verb::kAtomic;
    case Scope::kWriteSend:
      return test.verb == bench::Verb::kWrite ||
             test.verb == bench::Verb::kSend;
    case Scope::kAtomic:
      return test.verb == bench::Verb::kAtomic;
    case Scope::kOneSidedBandwidth:
      return test.kind == bench::Kind::kBandwidth &&
             (test.verb == bench::Verb::kWrite || test.verb == bench::Verb::kRead);
    case Scope::kWriteLatency:
      return test.kind == bench::Kind::kLatency && test.verb == bench::Verb::kWrite;
    case Scope::kOneSided:
      return test.verb == bench::Verb::kWrite || test.verb == bench::Verb::kRead;
    case Scope::kLatency:
      return test.kind == bench::Kind::kLatency;
  }
  return false;
}

std::string_view ScopeRequirement(Scope scope) {
  switch (scope) {
    case Scope::kAll:
      return "accepted by every test";
    case Scope::kBandwidth:
      return "only for bandwidth tests (write_bw, read_bw, send_bw, "
             "atomic_bw)";
    case Scope::kSend:
      return "only for send tests (send_bw, send_lat)";
    case Scope::kReadAtomic:
      return "only for read tests or atomic tests (read_bw, read_lat, "
             "atomic_bw, atomic_lat)";
    case Scope::kWriteSend:
      return "not available in read and atomic tests (read_bw, read_lat, "
             "atomic_bw, atomic_lat)";
    case Scope::kAtomic:
      return "only for atomic tests (atomic_bw, atomic_lat)";
    case Scope::kOneSidedBandwidth:
      return "only for write_bw and read_bw (the other tests poll or receive into the buffer "
             "with the CPU, which cannot touch device memory)";
    case Scope::kWriteLatency:
      return "only for write_lat";
    case Scope::kOneSided:
      return "only for the one-sided tests (write_bw, read_bw, write_lat, read_lat)";
    case Scope::kLatency:
      return "only for latency tests (write_lat, read_lat, send_lat, atomic_lat)";
  }
  return "";
}

bool ParseState::Given(std::string_view long_name) const {
  return std::find(given.begin(), given.end(), long_name) != given.end();
}

std::string_view LongName(const FlagSpec& spec) {
  return spec.long_names.substr(0, spec.long_names.find(','));
}

std::string DisplayName(const FlagSpec& spec) {
  std::string name;
  if (spec.short_name != '\0') {
    name += '-';
    name += spec.short_name;
    name += '/';
  }
  name += "--";
  name += LongName(spec);
  return name;
}

}  // namespace xfer::cli
