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
    case Scope::kRead:
      return test.verb == bench::Verb::kRead;
    case Scope::kNotRead:
      return test.verb != bench::Verb::kRead;
  }
  return false;
}

std::string_view ScopeRequirement(Scope scope) {
  switch (scope) {
    case Scope::kAll:
      return "accepted by every test";
    case Scope::kBandwidth:
      return "only for bandwidth tests (write_bw, read_bw, send_bw)";
    case Scope::kSend:
      return "only for send tests (send_bw, send_lat)";
    case Scope::kRead:
      return "only for read tests (read_bw, read_lat)";
    case Scope::kNotRead:
      return "not available in read tests (read_bw, read_lat)";
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
