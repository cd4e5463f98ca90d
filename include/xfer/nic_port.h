// The local RDMA port a connection's bytes leave through (PeerInfo::nic),
// so that results can name it and a ceiling can be derived for it: 'xfer
// doctor' reads the same port.
#ifndef XFER_NIC_PORT_H_
#define XFER_NIC_PORT_H_

#include <cstdint>
#include <string>

namespace xfer {

// Empty (device "") on transports that use no NIC.
struct NicPort {
  std::string device;      // the RDMA device, e.g. "mlx5_0", "rxe0"
  uint32_t port = 0;       // 1-based port number
  uint32_t mtu_bytes = 0;  // the path MTU both sides settled on
};

}  // namespace xfer

#endif  // XFER_NIC_PORT_H_
