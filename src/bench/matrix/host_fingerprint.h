// What a matrix result records about each side's machine, so that a table
// can be traced to the hardware and build that produced it. Collected by
// the caller (report/host_probe.h) and carried to the peer as plain data.
#ifndef XFER_BENCH_MATRIX_HOST_FINGERPRINT_H_
#define XFER_BENCH_MATRIX_HOST_FINGERPRINT_H_

#include <cstdint>
#include <string>
#include <vector>

namespace xfer::matrix {

struct RdmaPortFingerprint {
  std::string device;     // "mlx5_0"
  uint32_t port = 1;
  std::string state;      // "ACTIVE"
  std::string link_layer; // "Ethernet", "InfiniBand"
  double rate_gbps = 0;   // speed x width, Gb/s = 10^9 bit/s; 0 = unknown
};

struct HostFingerprint {
  std::string hostname;
  std::string kernel;     // uname -r
  std::string cpu_model;  // /proc/cpuinfo "model name"
  uint32_t cpu_count = 0; // online CPUs
  std::vector<RdmaPortFingerprint> rdma;  // empty: no RDMA device
  std::string xfer_version;
};

}  // namespace xfer::matrix

#endif  // XFER_BENCH_MATRIX_HOST_FINGERPRINT_H_
