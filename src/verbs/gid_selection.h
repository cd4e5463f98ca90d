// Which GID a queue pair uses on a port: perftest's rules (-x, or the best
// entry by perftest HEAD's compute_gid_score on RoCE, no GRH on IB), plus
// one rule of xfer's own. A pure function over a PortInfo snapshot, so it is
// tested without a device.
#ifndef XFER_VERBS_GID_SELECTION_H_
#define XFER_VERBS_GID_SELECTION_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "verbs/device_catalog.h"
#include "xfer/status.h"

namespace xfer::verbs {

struct GidPreference {
  // perftest --ipv6: prefer an IPv6 GID over an IPv4-mapped one.
  bool prefer_ipv6 = false;
  // The local address of the out-of-band connection, when known (network
  // byte order: {169, 254, 77, 1}). An IPv4-mapped GID equal to it wins
  // over every other rule, so the data path follows the interface the peer
  // was reached on.
  std::optional<std::array<uint8_t, 4>> local_ipv4;
};

// The GID to use on `port` of `device_name`, or nullopt for "no GRH" (a
// non-Ethernet link layer without -x, as perftest does). `requested` is the
// -x/--gid-index value.
//
// With -x: that entry, on any link layer. Without -x on Ethernet (RoCE):
// the entry with the highest score, ties to the lowest index, zero GIDs
// skipped, where the score is
//   +1000 IPv4-mapped and equal to preference.local_ipv4 (xfer's rule),
//   +100  address family matches the preference (IPv4-mapped by default,
//         not IPv4-mapped with prefer_ipv6),
//   +10   not link-local (fe80::/10, or IPv4-mapped 169.254/16),
//   +2    RoCE v2, +1 RoCE v1.
// Pure and thread-safe; `port` is read during the call only.
// Errors: kInvalidArgument naming the flag and the facts when -x is outside
// 0..gid_table_len-1 ("-x/--gid-index 7: port 1 of rxe0 has GID indices
// 0..1") or names an empty or zero entry; kFailedPrecondition when a RoCE
// port has no usable GID at all (naming the device and port).
Result<std::optional<GidEntry>> ChooseGid(const std::string& device_name,
                                          const PortInfo& port,
                                          std::optional<int> requested,
                                          const GidPreference& preference);

// The score above, exposed for tests and for reports that explain a choice.
int GidScore(const GidEntry& entry, const GidPreference& preference);

}  // namespace xfer::verbs

#endif  // XFER_VERBS_GID_SELECTION_H_
