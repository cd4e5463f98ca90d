// Copies to and from peer memory that has no memfd (memory the peer's user
// registered with RegisterMemory), through the kernel's cross-process copy.
#ifndef XFER_TRANSPORT_SHM_PROCESS_VM_COPY_H_
#define XFER_TRANSPORT_SHM_PROCESS_VM_COPY_H_

#include <cstddef>
#include <cstdint>

#include "xfer/status.h"

namespace xfer::transport::shm {

// Copies `length` bytes from our `local` to `remote` in process `pid`
// (WriteToPeer) or back (ReadFromPeer) with process_vm_writev/readv,
// resuming after partial copies. The kernel allows it only where we could
// ptrace the peer: same user, and under Yama ptrace_scope >= 1 only if the
// peer is our descendant or named us with prctl(PR_SET_PTRACER).
// Thread-safe. On error some bytes may already have moved.
// Errors: kPermissionDenied (EPERM: ptrace policy), kConnectionLost (ESRCH:
// the peer exited), kOutOfRange (EFAULT: the peer no longer maps the
// range, or `local` is not mapped), kNotSupported (pid <= 0, or ENOSYS), kResourceExhausted,
// kIoError.
Status WriteToPeer(int pid, uint64_t remote, const void* local, size_t length);
Status ReadFromPeer(int pid, uint64_t remote, void* local, size_t length);

}  // namespace xfer::transport::shm

#endif  // XFER_TRANSPORT_SHM_PROCESS_VM_COPY_H_
