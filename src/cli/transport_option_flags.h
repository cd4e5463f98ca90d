// The transport options xfer's command line sets, derived from the
// transports' own tables (xfer::BuiltinTransportOptions): a typed flag
// that a transport declares as setting one of its keys ("-d rxe0" for
// verbs' "device") becomes that key's value. The CLI knows no transport's
// keys; a build without a transport has no row for it, and its flags set
// nothing here.
#ifndef XFER_CLI_TRANSPORT_OPTION_FLAGS_H_
#define XFER_CLI_TRANSPORT_OPTION_FLAGS_H_

#include <functional>
#include <map>
#include <span>
#include <string>

#include "xfer/engine.h"

namespace xfer::cli {

using TypedFlags = std::map<std::string, std::string, std::less<>>;
using TransportOptionMap = std::map<std::string, TransportOptions, std::less<>>;

// `typed`: each flag given, spelled as the table spells it ("-d"), to the
// value typed. Pure.
TransportOptionMap TransportOptionsFromFlags(const TypedFlags& typed,
                                             std::span<const TransportOptionInfo> table);

}  // namespace xfer::cli

#endif  // XFER_CLI_TRANSPORT_OPTION_FLAGS_H_
