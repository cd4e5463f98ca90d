#include "bench/matrix/cell_ceilings.h"

#include <fmt/format.h>

#include <algorithm>

#include "bench/memcpy_ceiling.h"
#include "doctor/verbs_ceiling.h"

namespace xfer::matrix {

bench::Ceiling CellCeilings::MeasuredCopy(uint64_t block) {
  if (auto known = copies_.find(block); known != copies_.end()) return known->second;
  const uint64_t span = std::max(block, std::min(transfer_size_, kMaxCopySpan) / block * block);
  // Longer than a perftest size's trials: a sample spans the whole buffer,
  // so each trial must too, several times.
  auto rate = bench::MeasureMemcpy(block, span, {7, std::chrono::milliseconds(20)});
  bench::Ceiling ceiling =
      rate.ok() ? bench::Ceiling{*rate, fmt::format("single-core memcpy in blocks of the block "
                                                    "size across {} MiB on this host (best of 7 "
                                                    "trials, measured before the cells)",
                                                    span >> 20)}
                : bench::Ceiling::Unknown(rate.status().message());
  copies_.emplace(block, ceiling);
  return ceiling;
}

bench::Ceiling CellCeilings::LinkCeiling(const PeerInfo& path) {
  const NicPort& nic = path.nic;
  if (nic.device.empty()) {
    return bench::Ceiling::Unknown(
        fmt::format("{}: an RDMA NIC moves these bytes, but the connection names no port",
                    path.transport));
  }
  const auto key = std::make_tuple(nic.device, nic.port, nic.mtu_bytes);
  if (auto known = links_.find(key); known != links_.end()) return known->second;
  const doctor::VerbsCeiling link =
      doctor::VerbsCeilingFor(nic.device, static_cast<int>(nic.port),
                              static_cast<int>(nic.mtu_bytes), sysfs_root_);
  bench::Ceiling ceiling =
      link.bytes_per_s.known()
          ? bench::Ceiling{*link.bytes_per_s.value,
                           fmt::format("{}: {} port {}: {}, from sysfs as 'xfer doctor' reads it",
                                       path.transport, nic.device, nic.port, link.source)}
          : bench::Ceiling::Unknown(fmt::format("{}: {} port {}: {}", path.transport, nic.device,
                                                nic.port, link.bytes_per_s.unknown_reason));
  links_.emplace(key, ceiling);
  return ceiling;
}

bench::Ceiling CellCeilings::For(const PeerInfo& path, bool device_memory, uint64_t block) {
  if (device_memory) {
    return bench::Ceiling::Unknown(
        "CUDA device memory: no host ceiling applies (the local copy anchors are its "
        "reference)");
  }
  switch (path.data_mover) {
    case DataMover::kCpuCopy:
      return MeasuredCopy(block);
    case DataMover::kKernel:
      return bench::Ceiling::Unknown(fmt::format(
          "{}: the kernel's socket stack moves these bytes; no ceiling is derived from the "
          "hardware",
          path.transport));
    case DataMover::kNic:
      return LinkCeiling(path);
  }
  return bench::Ceiling::Unknown("unknown data mover");
}

}  // namespace xfer::matrix
