// The address a rank's engine listens on and advertises to the others.
#ifndef XFER_BENCH_CLUSTER_LISTEN_HOST_H_
#define XFER_BENCH_CLUSTER_LISTEN_HOST_H_

#include <string>

#include "xfer/status.h"

namespace xfer::cluster {

// The IPv4 address of the first interface (in getifaddrs order) that is up
// and not loopback: the one a rank in its own network namespace, or on its
// own host, is reached at. "127.0.0.1" when there is none. Errors:
// kIoError when the interfaces cannot be listed.
Result<std::string> DefaultListenHost();

}  // namespace xfer::cluster

#endif  // XFER_BENCH_CLUSTER_LISTEN_HOST_H_
