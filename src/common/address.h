// Addresses as the wire and the region tables carry them: a pointer's
// value as an unsigned 64-bit integer, and back.
#ifndef XFER_COMMON_ADDRESS_H_
#define XFER_COMMON_ADDRESS_H_

#include <cstdint>

namespace xfer {

inline uint64_t AddressOfPointer(const void* p) { return reinterpret_cast<uint64_t>(p); }

}  // namespace xfer

#endif  // XFER_COMMON_ADDRESS_H_
