// The ends tcp offers rails from: this host's IPv4 interface addresses,
// each in its subnet, so that two engines pair addresses that reach each
// other directly (10.0.1.1/24 with 10.0.1.2/24).
#ifndef XFER_TRANSPORT_TCP_RAIL_ADDRESSES_H_
#define XFER_TRANSPORT_TCP_RAIL_ADDRESSES_H_

#include <string>
#include <vector>

#include "transport/transport.h"

namespace xfer::transport::tcp {

// One IPv4 address of an interface that is up.
struct InterfaceAddress {
  std::string interface;  // "eth0"
  std::string address;    // "10.0.1.1"
  std::string network;    // "10.0.1.0/24"
  bool loopback = false;
};

// Every IPv4 address of an interface that is up and running (getifaddrs).
std::vector<InterfaceAddress> ListInterfaceAddresses();

// The rail ends among `addresses`, the one equal to `control_local` first;
// loopback ends only when the control connection is on loopback, and then
// only they (a loopback peer is reached there and nowhere else); none when
// the control connection is on no listed address (IPv6, a NAT): its own
// path is then the one rail. Each rate
// is the interface's link speed (`speed_mbps` of its name; 0 when
// unknown).
std::vector<RailCandidate> RailEnds(const std::vector<InterfaceAddress>& addresses,
                                    const std::string& control_local,
                                    double (*bytes_per_sec_of)(const std::string& interface));

// An interface's link speed from /sys/class/net/<name>/speed, in bytes/s;
// 0 when unknown (a veth says 10000, a down link -1 or EINVAL).
double InterfaceBytesPerSec(const std::string& interface);

}  // namespace xfer::transport::tcp

#endif  // XFER_TRANSPORT_TCP_RAIL_ADDRESSES_H_
