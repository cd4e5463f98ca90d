#include "bench/cluster/listen_host.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#include <cerrno>
#include <cstring>
#include <memory>

namespace xfer::cluster {

Result<std::string> DefaultListenHost() {
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) {
    return IoError(std::string("getifaddrs: ") + std::strerror(errno));
  }
  std::unique_ptr<ifaddrs, decltype(&freeifaddrs)> owned(list, &freeifaddrs);
  for (const ifaddrs* entry = list; entry != nullptr; entry = entry->ifa_next) {
    if (entry->ifa_addr == nullptr || entry->ifa_addr->sa_family != AF_INET) continue;
    if ((entry->ifa_flags & IFF_UP) == 0 || (entry->ifa_flags & IFF_LOOPBACK) != 0) continue;
    sockaddr_in address;
    std::memcpy(&address, entry->ifa_addr, sizeof address);
    char text[INET_ADDRSTRLEN] = {};
    if (inet_ntop(AF_INET, &address.sin_addr, text, sizeof text) != nullptr) return std::string(text);
  }
  return std::string("127.0.0.1");
}

}  // namespace xfer::cluster
