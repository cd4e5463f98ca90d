// A stretch of memory one memory registration (MR) covers: what the post
// path asks of the local and the remote side for each piece of an entry.
#ifndef XFER_TRANSPORT_VERBS_KEY_RUN_H_
#define XFER_TRANSPORT_VERBS_KEY_RUN_H_

#include <cstdint>

namespace xfer::transport::verbs {

// The key (lkey or rkey) of the MR holding an address, and how many bytes
// from that address, of those asked for, the MR covers: fewer than asked
// where the range runs on into the next MR of the same region.
struct KeyRun {
  uint32_t key = 0;
  uint64_t bytes = 0;
};

}  // namespace xfer::transport::verbs

#endif  // XFER_TRANSPORT_VERBS_KEY_RUN_H_
