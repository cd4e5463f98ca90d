// The <host> positional of the tests and of `xfer matrix`: a host name or
// address, nothing else.
#ifndef XFER_CLI_HOST_ARGUMENT_H_
#define XFER_CLI_HOST_ARGUMENT_H_

#include <string>

#include "xfer/status.h"

namespace xfer::cli {

// kInvalidArgument naming the mistake: an empty word or an option where
// the host goes ("<host>: '-x' is not a host name"), or a port written
// into it ("127.0.0.1:19999": the port goes in -p). IPv6 addresses
// ("fe80::1") are hosts.
Status CheckHostArgument(const std::string& host);

// The host as the resolver takes it: an IPv6 address written in brackets,
// as in a URL ("[::1]"), without them; anything else as given.
std::string HostWithoutBrackets(const std::string& host);

}  // namespace xfer::cli

#endif  // XFER_CLI_HOST_ARGUMENT_H_
