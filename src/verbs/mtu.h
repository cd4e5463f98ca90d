// The IB path MTU as libibverbs encodes it (enum ibv_mtu: 1 = 256 B ...
// 5 = 4096 B) and as people write it (bytes).
#ifndef XFER_VERBS_MTU_H_
#define XFER_VERBS_MTU_H_

#include <infiniband/verbs.h>

#include <cstdint>
#include <optional>

namespace xfer::verbs {

// 256, 512, 1024, 2048 or 4096; 0 for a value outside the enum.
constexpr uint32_t MtuBytes(ibv_mtu mtu) {
  const int code = static_cast<int>(mtu);
  return code >= IBV_MTU_256 && code <= IBV_MTU_4096 ? 128u << code : 0u;
}

// The enum for a byte count; none unless `bytes` is one of the five MTUs.
constexpr std::optional<ibv_mtu> MtuFromBytes(uint32_t bytes) {
  for (int code = IBV_MTU_256; code <= IBV_MTU_4096; ++code) {
    if ((128u << code) == bytes) return static_cast<ibv_mtu>(code);
  }
  return std::nullopt;
}

}  // namespace xfer::verbs

#endif  // XFER_VERBS_MTU_H_
