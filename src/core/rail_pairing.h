// Which rails a connection gets: the acceptor pairs its transport's rail
// ends with the initiator's (Transport::RailCandidates), and both sides set
// up one endpoint per pair, in the pairs' order.
//
// Ends pair within one network (tcp: one subnet), each end once: both
// sides' first ends (the control connection's path, the configured device)
// as rail 0, then the same name first where networks are not told (RDMA
// devices: mlx5_1 with mlx5_1), then any, in that order.
// ConnectOptions::rails 0 (`auto`) takes every pair of what the initiator
// offered (under `auto` it offers AutoRailEnds: its first end and those
// nearest its memory); N takes the first N pairs, and repeats them when
// there are fewer (more sockets or queue pairs over one path); either at
// most max_rails.
#ifndef XFER_CORE_RAIL_PAIRING_H_
#define XFER_CORE_RAIL_PAIRING_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "transport/transport.h"

namespace xfer::core {

struct RailPair {
  std::string initiator;     // the initiator's end (EndpointSetup::local_rail there)
  std::string acceptor;      // the acceptor's
  double bytes_per_sec = 0;  // the slower end's rate; 0 when either is unknown
};

// The ends `auto` offers: the first (the control path, the configured
// device), then the others named in `nearest`, in their order.
std::vector<transport::RailCandidate> AutoRailEnds(std::span<const transport::RailCandidate> ends,
                                                   std::span<const std::string> nearest);

// Empty when either side offers no ends: one rail, the transport's own.
std::vector<RailPair> PairRails(std::span<const transport::RailCandidate> acceptor,
                                std::span<const transport::RailCandidate> initiator,
                                uint32_t requested, uint32_t max_rails);

}  // namespace xfer::core

#endif  // XFER_CORE_RAIL_PAIRING_H_
