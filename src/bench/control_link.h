// What every control connection between two xfer processes shares: the
// perftest-style tests' out-of-band channel (oob_channel.h) and the
// matrix's control connection (matrix/control_channel.h) differ only in
// their own messages; the framing and the session messages are this one
// implementation.
//
// Framing: each message is one Socket frame (Socket::SendMessage), "<magic
// u32><type u8><fields>", little-endian (common/wire.h), at most
// ControlProtocol::max_message bytes. Session messages: Heartbeat (proof of
// life during a long measurement: every receive skips it, and each one
// restarts the receive's timeout), Done, and Abort(reason), which every
// receive turns into the peer's reason instead of a wait for the timeout.
// Every byte from the peer is untrusted: a bad magic, an oversized frame or
// an unexpected type is kProtocolError naming the message by name.
#ifndef XFER_BENCH_CONTROL_LINK_H_
#define XFER_BENCH_CONTROL_LINK_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/socket.h"
#include "common/wire.h"
#include "xfer/status.h"

namespace xfer::bench {

// One protocol on a ControlLink, as data.
struct ControlProtocol {
  std::string_view channel;  // "out-of-band", "matrix control": errors start with it
  uint32_t magic = 0;
  size_t max_message = 0;
  // The session messages' types in this protocol.
  uint8_t heartbeat = 0;
  uint8_t done = 0;
  uint8_t abort = 0;
  // The name of each of the protocol's types, for errors ("Barrier"); null
  // or "" for a type it does not have.
  const char* (*type_name)(uint8_t type) = nullptr;
};

// A received message: its type, and the whole message, header included.
struct ControlMessage {
  uint8_t type = 0;
  std::vector<uint8_t> bytes;
  // The fields after the 5-byte header.
  std::span<const uint8_t> body() const { return std::span(bytes).subspan(kHeaderBytes); }
  static constexpr size_t kHeaderBytes = 5;
};

// Thread-safety: sends from any thread (a heartbeat thread and the owner);
// receives from one thread at a time.
class ControlLink {
 public:
  // `protocol` outlives the link. Every receive waits at most `timeout`.
  ControlLink(Socket socket, std::chrono::milliseconds timeout, const ControlProtocol& protocol)
      : socket_(std::move(socket)), timeout_(timeout), protocol_(protocol) {}

  // A writer that already holds the header of a message of `type`.
  WireWriter Begin(uint8_t type) const;

  // Sends a whole message (from Begin). Errors: the socket's, named with
  // the channel.
  Status Send(const std::vector<uint8_t>& message);

  // The next message that is not a Heartbeat. Errors: the peer's Abort
  // (kConnectionLost "the peer failed: <reason>"), kTimeout, kConnectionLost,
  // kProtocolError (bad magic, oversized frame, a type the protocol does not
  // have).
  Result<ControlMessage> RecvAny();
  // RecvAny, then kProtocolError "<channel>: expected <name>, got <name>"
  // for another type.
  Result<ControlMessage> Recv(uint8_t expected_type);

  Status SendHeartbeat();
  Status SendDone();
  // Errors: as Recv's; kProtocolError for a Done with fields.
  Status RecvDone();
  // Tells the peer this side failed; best effort, bounded by half a second.
  void SendAbort(const std::string& reason);

  // True when a message (or the end of the stream) is waiting; does not
  // block.
  bool Readable();

  // Non-blocking, for a side that waits on something else while its peer
  // may fail: consumes nothing unless the peer's next message is an Abort,
  // so an early message is never taken for a failure. True when another
  // message is waiting, false when none is. Errors: the Abort's reason,
  // kConnectionLost once the peer has closed the connection (a dead peer is
  // reported at once, not at the timeout).
  Result<bool> WatchPeer();

  // The name of `type` in this protocol ("Barrier", "Abort").
  std::string TypeName(uint8_t type) const;
  const ControlProtocol& protocol() const { return protocol_; }
  std::string PeerHost() const { return socket_.PeerHost(); }

 private:
  Status SendWithin(const std::vector<uint8_t>& message, std::chrono::milliseconds timeout);

  std::mutex send_mu_;
  Socket socket_;
  std::chrono::milliseconds timeout_;
  const ControlProtocol& protocol_;
};

}  // namespace xfer::bench

#endif  // XFER_BENCH_CONTROL_LINK_H_
