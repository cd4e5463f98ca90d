#include "transport/shm/process_vm_copy.h"

#include <fmt/format.h>
#include <sys/uio.h>

#include <cerrno>
#include <string>

#include "common/socket.h"

namespace xfer::transport::shm {
namespace {

Status CopyError(int err, int pid, bool write) {
  const char* call = write ? "process_vm_writev" : "process_vm_readv";
  std::string what = fmt::format("shm: {} on peer pid {}", call, pid);
  switch (err) {
    case EPERM:
      return PermissionDenied(ErrnoMessage(what, err) +
                              " (the peer's region is not engine-allocated memory, and the "
                              "ptrace policy forbids cross-process copies; allocate it with "
                              "Engine::AllocateMemory or have the peer allow it with "
                              "prctl(PR_SET_PTRACER))");
    case ESRCH:
      return ConnectionLost(ErrnoMessage(what, err) + " (the peer process is gone)");
    case EFAULT:
      return OutOfRange(ErrnoMessage(what, err) +
                        " (the range is not mapped: the peer freed its memory?)");
    case ENOSYS:
      return NotSupported(ErrnoMessage(what, err));
    case ENOMEM:
      return ResourceExhausted(ErrnoMessage(what, err));
    default:
      return IoError(ErrnoMessage(what, err));
  }
}

Status Copy(int pid, uint64_t remote, void* local, size_t length, bool write) {
  if (pid <= 0) {
    return NotSupported("shm: the peer's region has no memfd and its pid is unknown");
  }
  size_t done = 0;
  while (done < length) {
    iovec local_iov{static_cast<char*>(local) + done, length - done};
    iovec remote_iov{reinterpret_cast<void*>(remote + done), length - done};
    ssize_t n = write ? process_vm_writev(pid, &local_iov, 1, &remote_iov, 1, 0)
                      : process_vm_readv(pid, &local_iov, 1, &remote_iov, 1, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return CopyError(errno, pid, write);
    }
    // A partial copy stops at the first unmapped page; a zero-byte one
    // would repeat forever, so treat it as that fault.
    if (n == 0) return CopyError(EFAULT, pid, write);
    done += static_cast<size_t>(n);
  }
  return Status::Ok();
}

}  // namespace

Status WriteToPeer(int pid, uint64_t remote, const void* local, size_t length) {
  return Copy(pid, remote, const_cast<void*>(local), length, true);
}

Status ReadFromPeer(int pid, uint64_t remote, void* local, size_t length) {
  return Copy(pid, remote, local, length, false);
}

}  // namespace xfer::transport::shm
