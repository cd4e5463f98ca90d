#include "transport/tcp/rail_addresses.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

namespace xfer::transport::tcp {

std::vector<InterfaceAddress> ListInterfaceAddresses() {
  std::vector<InterfaceAddress> out;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return out;
  for (const ifaddrs* a = list; a != nullptr; a = a->ifa_next) {
    if (a->ifa_addr == nullptr || a->ifa_netmask == nullptr || a->ifa_addr->sa_family != AF_INET) {
      continue;
    }
    if ((a->ifa_flags & IFF_UP) == 0 || (a->ifa_flags & IFF_RUNNING) == 0) continue;
    in_addr address{};
    in_addr mask{};
    std::memcpy(&address, &reinterpret_cast<const sockaddr_in*>(a->ifa_addr)->sin_addr,
                sizeof address);
    std::memcpy(&mask, &reinterpret_cast<const sockaddr_in*>(a->ifa_netmask)->sin_addr,
                sizeof mask);
    in_addr network{address.s_addr & mask.s_addr};
    char text[INET_ADDRSTRLEN] = {};
    char net[INET_ADDRSTRLEN] = {};
    inet_ntop(AF_INET, &address, text, sizeof text);
    inet_ntop(AF_INET, &network, net, sizeof net);
    out.push_back({a->ifa_name, text, fmt::format("{}/{}", net, std::popcount(mask.s_addr)),
                   (a->ifa_flags & IFF_LOOPBACK) != 0});
  }
  freeifaddrs(list);
  return out;
}

std::vector<RailCandidate> RailEnds(const std::vector<InterfaceAddress>& addresses,
                                    const std::string& control_local,
                                    double (*bytes_per_sec_of)(const std::string& interface)) {
  bool control_on_loopback = control_local.starts_with("127.");
  for (const InterfaceAddress& a : addresses) {
    if (a.address == control_local && a.loopback) control_on_loopback = true;
  }
  // A control connection on none of these addresses (over IPv6, or through
  // a NAT) leaves tcp without ends it can vouch for: one rail, its path.
  const bool control_listed = std::any_of(addresses.begin(), addresses.end(),
                                          [&](const InterfaceAddress& a) {
                                            return a.address == control_local;
                                          });
  if (!control_listed && !control_on_loopback) return {};
  std::vector<RailCandidate> ends;
  // The control connection's own address first, then the others in order.
  for (const bool first : {true, false}) {
    for (const InterfaceAddress& a : addresses) {
      if (a.loopback != control_on_loopback || (a.address == control_local) != first) continue;
      ends.push_back({a.address, a.network, bytes_per_sec_of(a.interface)});
    }
  }
  return ends;
}

double InterfaceBytesPerSec(const std::string& interface) {
  std::ifstream file("/sys/class/net/" + interface + "/speed");
  long long mbps = 0;
  if (!(file >> mbps) || mbps <= 0) return 0;
  return static_cast<double>(mbps) * 1e6 / 8;
}

}  // namespace xfer::transport::tcp
