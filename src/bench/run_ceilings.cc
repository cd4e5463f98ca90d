#include "bench/run_ceilings.h"

#include <fmt/format.h>

#include "bench/memcpy_ceiling.h"

namespace xfer::bench {
namespace {

Ceiling MeasuredCopy(uint64_t size) {
  auto rate = MeasureMemcpy(size, size);
  if (!rate.ok()) return Ceiling::Unknown(rate.status().message());
  return Ceiling{*rate,
                 "single-core memcpy of the message size on this host, source and destination "
                 "fixed (best of 5 trials, measured at start-up)"};
}

// One reason for every size, or none when the mover decides.
std::optional<std::string> SharedReason(const BenchParams& params, const PeerInfo& peer) {
  if (params.cuda_device || !params.cuda_bus_id.empty()) {
    return std::string(
        "CUDA device memory: no host ceiling applies (xfer matrix measures the GPU's local "
        "copy anchors)");
  }
  if (params.bidirectional) {
    return std::string(
        "bidirectional: two copies share the memory system, so no single-core figure "
        "bounds their sum");
  }
  switch (peer.data_mover) {
    case DataMover::kCpuCopy:
      return std::nullopt;
    case DataMover::kKernel:
      return fmt::format(
          "{}: the kernel's socket stack moves these bytes; no ceiling is derived from "
          "the hardware (measure the stack itself, e.g. with iperf3)",
          peer.transport);
    case DataMover::kNic:
      return fmt::format("{}: an RDMA NIC moves these bytes; 'xfer doctor' derives its "
                         "port and PCIe ceiling",
                         peer.transport);
  }
  return std::string("unknown data mover");
}

}  // namespace

std::map<uint64_t, Ceiling> RunCeilings(const BenchParams& params, const PeerInfo& peer,
                                        std::span<const uint64_t> sizes) {
  std::map<uint64_t, Ceiling> ceilings;
  if (params.kind != Kind::kBandwidth) return ceilings;
  const std::optional<std::string> reason = SharedReason(params, peer);
  for (uint64_t size : sizes) {
    ceilings.emplace(size, reason ? Ceiling::Unknown(*reason) : MeasuredCopy(size));
  }
  return ceilings;
}

}  // namespace xfer::bench
