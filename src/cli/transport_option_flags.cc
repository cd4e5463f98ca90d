#include "cli/transport_option_flags.h"

namespace xfer::cli {

TransportOptionMap TransportOptionsFromFlags(const TypedFlags& typed,
                                             std::span<const TransportOptionInfo> table) {
  TransportOptionMap options;
  for (const TransportOptionInfo& option : table) {
    if (option.flag.empty()) continue;
    const auto value = typed.find(option.flag);
    if (value != typed.end()) options[option.transport][option.key] = value->second;
  }
  return options;
}

}  // namespace xfer::cli
