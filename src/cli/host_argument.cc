#include "cli/host_argument.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

namespace xfer::cli {

Status CheckHostArgument(const std::string& host) {
  if (host.empty() || host.front() == '-') {
    return InvalidArgument(fmt::format("<host>: '{}' is not a host name", host));
  }
  // One colon followed by digits: host:port. Two or more: an IPv6 address.
  const size_t colon = host.find(':');
  if (colon != std::string::npos && host.find(':', colon + 1) == std::string::npos) {
    const std::string port = host.substr(colon + 1);
    const bool digits = !port.empty() && std::all_of(port.begin(), port.end(), [](char c) {
      return std::isdigit(static_cast<unsigned char>(c)) != 0;
    });
    if (digits) {
      return InvalidArgument(fmt::format(
          "<host>: '{}' has a port in it; the port goes in -p/--port: -p {} {}", host, port,
          host.substr(0, colon)));
    }
    return InvalidArgument(fmt::format("<host>: '{}' is not a host name", host));
  }
  return Status::Ok();
}

std::string HostWithoutBrackets(const std::string& host) {
  if (host.size() > 2 && host.front() == '[' && host.back() == ']' &&
      host.find(':') != std::string::npos) {
    return host.substr(1, host.size() - 2);
  }
  return host;
}

}  // namespace xfer::cli
