// RAII sockets with deadline-bounded I/O, shared by the engine's control
// channel, the transports and the bench's out-of-band channel.
#ifndef XFER_COMMON_SOCKET_H_
#define XFER_COMMON_SOCKET_H_

#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "common/unique_fd.h"
#include "xfer/status.h"

namespace xfer {

struct HostPort {
  std::string host;
  uint16_t port = 0;
};

// Parses "host:port" or "[v6]:port". Errors: kInvalidArgument naming the
// offending text.
Result<HostPort> ParseHostPort(std::string_view text);
std::string FormatHostPort(const HostPort& hp);

// A connected stream socket (TCP or Unix). Every blocking call takes a
// Deadline and fails with kTimeout when it passes; EOF or a reset is
// kConnectionLost. Not thread-safe: one reader and one writer at a time.
class Socket {
 public:
  Socket() = default;
  explicit Socket(UniqueFd fd) : fd_(std::move(fd)) {}

  int fd() const { return fd_.get(); }
  bool valid() const { return fd_.valid(); }
  void Close() { fd_.reset(); }
  // Stops both directions without closing the fd: wakes a blocked reader.
  void Shutdown();
  // Makes the close of this socket abortive (SO_LINGER 0): the kernel then
  // sends RST and drops what is still queued, rather than delivering it
  // after the close, perhaps much later. Best effort.
  void AbortOnClose();

  Status SendAll(const void* data, size_t length, Deadline deadline);
  Status SendAllv(std::span<iovec> iov, Deadline deadline);  // iov is consumed
  Status RecvAll(void* data, size_t length, Deadline deadline);
  // Waits until `length` bytes have arrived and copies them without
  // consuming them (a server's look at a greeting before it commits to the
  // connection). Errors as RecvAll's.
  Status PeekAll(void* data, size_t length, Deadline deadline);
  // Reads whatever is waiting, up to `length`, without blocking: 0 when
  // nothing is. EOF is kConnectionLost.
  Result<size_t> RecvSome(void* data, size_t length);
  // Whether the remote end has closed or reset the connection, without
  // waiting and without consuming data: unread bytes do not count.
  bool PeerClosed() const;

  // Length-prefixed message (u32 little-endian length, then bytes), for the
  // control and OOB channels. RecvMessage rejects a length above max_length
  // with kProtocolError, before reading or allocating the body.
  Status SendMessage(std::span<const uint8_t> body, Deadline deadline);
  Result<std::vector<uint8_t>> RecvMessage(size_t max_length, Deadline deadline);

  // Unix sockets only: passes file descriptors with SCM_RIGHTS alongside a
  // small message. RecvFds returns them owned; more than max_fds is an error.
  Status SendFds(std::span<const int> fds, std::span<const uint8_t> body, Deadline deadline);
  Result<std::vector<UniqueFd>> RecvFds(size_t max_fds, std::vector<uint8_t>& body,
                                        size_t max_body, Deadline deadline);

  // Numeric address of the remote end ("127.0.0.1"); empty for Unix sockets.
  std::string PeerHost() const;
  // Numeric address of this end; empty for Unix sockets.
  std::string LocalHost() const;

  Status SetNoDelay();
  Status SetBufferSizes(int bytes);

 private:
  Status WaitFor(short events, Deadline deadline);
  UniqueFd fd_;
};

// Whether ConnectTcp tries again when nothing listens on the port.
enum class OnRefused {
  kRetry,  // until the deadline: the peer may still be starting (a test's
           // client and server started together, as perftest's are)
  kFail,   // at once: the address was given as that of a listening peer
};

// Connects to host:port. Errors: kInvalidArgument (unresolvable host),
// kTimeout, kIoError; with OnRefused::kFail, kConnectionLost at once when
// the connection is refused (or the host unreachable), naming the reason.
Result<Socket> ConnectTcp(const HostPort& where, Deadline deadline,
                          OnRefused on_refused = OnRefused::kRetry);

// A listening TCP socket.
class Listener {
 public:
  // Binds host:port (port 0 = any free port) with SO_REUSEADDR.
  static Result<Listener> Bind(const HostPort& where, int backlog = 16);

  Result<Socket> Accept(Deadline deadline);
  HostPort local_address() const { return local_; }
  int fd() const { return fd_.get(); }
  void Close() { fd_.reset(); }

 private:
  UniqueFd fd_;
  HostPort local_;
};

// Unix-domain stream sockets in the abstract namespace (no file to clean up).
Result<UniqueFd> ListenUnixAbstract(const std::string& name);
Result<Socket> AcceptUnix(int listen_fd, Deadline deadline);
Result<Socket> ConnectUnixAbstract(const std::string& name, Deadline deadline);

// strerror(errno) with the failing call named: "connect: Connection refused".
std::string ErrnoMessage(std::string_view what, int err);

}  // namespace xfer

#endif  // XFER_COMMON_SOCKET_H_
