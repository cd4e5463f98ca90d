// The matrix's control connection: one TCP connection on -p between
// initiator and target. It agrees on the matrix, tells the initiator where
// the target's buffers are, and carries --verify's requests. It never
// carries measured data: that moves only over libxfer's transports.
//
// Sequence (the initiator speaks first):
//   initiator: Hello(agreement, fingerprint)
//   target:    HelloReply(accepted | refusal naming the flag, engine port,
//              fingerprint, one TargetBuffer per placement it was asked for)
//   initiator: BufferRequest (fill / poison / check) -> target: BufferReply
//              ... as often as --verify needs ...
//   initiator: Done
// Either side may send Abort(reason) instead; the other then fails with
// that reason instead of waiting out its timeout. The initiator sends a
// Heartbeat about once a second for the whole session, so the target's
// timeout bounds the initiator's silence rather than a cell's length.
//
// Every field is decoded with bounds and count limits: the peer's bytes are
// untrusted.
#ifndef XFER_BENCH_MATRIX_CONTROL_CHANNEL_H_
#define XFER_BENCH_MATRIX_CONTROL_CHANNEL_H_

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bench/control_link.h"
#include "bench/matrix/host_fingerprint.h"
#include "bench/matrix/matrix_agreement.h"
#include "common/socket.h"
#include "xfer/status.h"

namespace xfer::matrix {

struct Hello {
  MatrixAgreement agreement;
  HostFingerprint fingerprint;
};

// One target buffer: a placement's memory, registered before the initiator
// connects any engine, or why the target could not provide it.
struct TargetBuffer {
  std::string placement;   // "host", "hugepage", "device"
  bool available = false;
  std::string reason;      // when not available
  uint64_t address = 0;    // in the target's address space
  uint64_t length = 0;
};

struct HelloReply {
  bool accepted = false;
  std::string refusal;     // why not, naming the flag
  uint16_t engine_port = 0;
  HostFingerprint fingerprint;
  std::vector<TargetBuffer> buffers;
};

// What --verify asks the target to do to one of its buffers.
enum class BufferOp : uint8_t {
  kFill = 1,    // write the pattern of `seed` into the first `length` bytes
  kPoison = 2,  // overwrite the first `length` bytes
  kCheck = 3,   // compare the first `length` bytes with the pattern of `seed`
};

struct BufferRequest {
  BufferOp op = BufferOp::kFill;
  std::string placement;
  uint64_t seed = 0;
  uint64_t length = 0;
};

struct BufferReply {
  bool ok = false;
  std::string message;  // why not: "byte 4096 differs from the pattern"
};

// Thread-safety: sends may come from any thread (the heartbeat's and the
// owner's); receives from one thread only. Every receive waits at most the
// timeout given at construction, restarted by each heartbeat.
class ControlChannel {
 public:
  ControlChannel(Socket socket, std::chrono::milliseconds timeout);

  Status SendHello(const Hello& hello);
  Result<Hello> RecvHello();
  Status SendHelloReply(const HelloReply& reply);
  Result<HelloReply> RecvHelloReply();

  Status SendBufferRequest(const BufferRequest& request);
  // The next request, or none when the initiator sent Done. Errors: the
  // initiator's Abort (kConnectionLost with its reason), kTimeout,
  // kConnectionLost, kProtocolError.
  Result<std::optional<BufferRequest>> RecvBufferRequestOrDone();
  Status SendBufferReply(const BufferReply& reply);
  Result<BufferReply> RecvBufferReply();

  // Non-blocking, for the initiator between samples: OK while nothing is
  // waiting. The target speaks unprompted only to abort, so anything waiting
  // means it failed or died: its Abort reason or EOF (kConnectionLost), or
  // kProtocolError for anything else.
  Status CheckPeer();

  Status SendHeartbeat();
  Status SendDone();
  std::string PeerHost() const { return link_.PeerHost(); }
  // Tells the peer this side failed; best effort, bounded by half a second.
  void SendAbort(const std::string& reason);

 private:
  bench::ControlLink link_;  // the framing and the session messages
};

}  // namespace xfer::matrix

#endif  // XFER_BENCH_MATRIX_CONTROL_CHANNEL_H_
