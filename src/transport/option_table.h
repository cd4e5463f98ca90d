// A transport's options as data: each key it takes in
// EngineOptions::transport_options, with its type, range, default and
// one-line doc. The transport reads its settings through this table
// (OptionReader), and xfer's tools derive their flags, keyword arguments
// and help from it (xfer::BuiltinTransportOptions), so that no caller
// builds a transport's option map by hand or knows its keys.
#ifndef XFER_TRANSPORT_OPTION_TABLE_H_
#define XFER_TRANSPORT_OPTION_TABLE_H_

#include <cstdint>
#include <span>
#include <string_view>

namespace xfer::transport {

struct OptionSpec {
  std::string_view key = {};  // "device"
  // A decimal integer in [min, max] (and one of `choices` when there are
  // any); otherwise free text.
  bool integer = false;
  uint64_t min = 0;
  uint64_t max = 0;
  std::span<const uint64_t> choices = {};
  std::string_view default_text = {};  // what holds when the key is not set
  std::string_view doc = {};           // one line
  // The flag of xfer's command line that sets it ("-d"), as perftest
  // spells it; "" when none does.
  std::string_view flag = {};
};

}  // namespace xfer::transport

#endif  // XFER_TRANSPORT_OPTION_TABLE_H_
