// perftest's out-of-band TCP connection (../shared/reference/perftest.md
// §1.1): strictly lock-step, fixed-size exchanges with no framing. The
// client writes then reads, the server reads then writes, and each message
// leaves in one write(). Unlike stock perftest, every read is bounded: by
// --timeout while the peer is only exchanging setup, and by TCP keepalive
// (a dead host) and EOF (a dead process) while the peer runs its traffic.
#ifndef XFER_PERFTEST_OOB_LINK_H_
#define XFER_PERFTEST_OOB_LINK_H_

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "common/socket.h"
#include "xfer/status.h"

namespace xfer::perftest {

class OobLink {
 public:
  // Client: connects to host:port, retrying a refused connection until
  // `timeout` has passed (the server may still be starting) or `stop` is
  // raised (bench/model/interruption.h).
  // Errors: kTimeout, kInvalidArgument (bad host), kIoError, the
  // interruption.
  static Result<OobLink> Connect(const HostPort& server, std::chrono::milliseconds timeout,
                                 const std::atomic<int>& stop);

  // Server: one accepted connection; the listener may be closed afterwards.
  // Errors: kTimeout after accept_timeout, kIoError, the interruption.
  static Result<OobLink> Accept(Listener& listener, std::chrono::milliseconds accept_timeout,
                                std::chrono::milliseconds timeout, const std::atomic<int>& stop);

  bool is_client() const { return is_client_; }

  // One exchange: sends `out`, receives exactly `in_size` bytes, in the
  // role's order. `what` names the message in errors ("version").
  // Errors: kTimeout (no reply within --timeout), kConnectionLost (the
  // peer closed: usually it failed and printed why), kIoError.
  Result<std::vector<uint8_t>> Exchange(std::span<const uint8_t> out, size_t in_size,
                                        std::string_view what);

  // How long an exchange that follows the peer's set-up may wait, at least:
  // a stock perftest server registers its buffers with the NIC (every QP's,
  // hugepages included) before it sends its keys. Registration pins pages
  // at about a GB/s per core on real hosts and far slower under emulation
  // (4 QPs' hugepage buffers took over 10 s in the Soft-RoCE VM), so
  // --timeout's 10 s default would blame the flags for a server still
  // working. A server that died is still reported at once: its socket
  // closes.
  static constexpr std::chrono::milliseconds kPeerSetupAllowance{120'000};

  // Exchange for a message the peer sends once it has set up (the keys):
  // waits up to the larger of --timeout and kPeerSetupAllowance. Errors as
  // Exchange; the timeout names both causes: a peer still setting up
  // (raise --timeout) or one started with other flags.
  Result<std::vector<uint8_t>> ExchangeAfterPeerSetup(std::span<const uint8_t> out,
                                                      size_t in_size, std::string_view what);

  // The same exchange where the peer may first run its whole measurement
  // (the server of write_bw waits here for the client's traffic). No
  // deadline: a dead peer ends it through EOF or keepalive.
  Result<std::vector<uint8_t>> ExchangeAfterPeerRun(std::span<const uint8_t> out,
                                                    size_t in_size, std::string_view what);

  // The local IPv4 address of the connection (for GID preference), if any.
  std::optional<std::array<uint8_t, 4>> LocalIpv4() const;

 private:
  OobLink(Socket socket, bool is_client, std::chrono::milliseconds timeout);
  Result<std::vector<uint8_t>> ExchangeUntil(std::span<const uint8_t> out, size_t in_size,
                                             std::string_view what, Deadline deadline);

  Socket socket_;
  bool is_client_ = false;
  std::chrono::milliseconds timeout_;
};

}  // namespace xfer::perftest

#endif  // XFER_PERFTEST_OOB_LINK_H_
