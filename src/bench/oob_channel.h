// The bench's out-of-band channel (perftest's "Data ex. method : Ethernet"):
// one TCP connection on -p between the two xfer processes that agrees on the
// run, hands over the engine address and buffers, keeps the two sides in
// step between sizes and carries the client's results to the server.
//
// Sequence (client writes first, like perftest):
//   client: Setup            server: SetupReply (refusal names the mismatch)
//   per size:  client Barrier(i) -> server Barrier(i)   [server ready]
//              ...traffic on the engine...
//              client Result(i) -> server              [write/read BW, read_lat]
//   client: Done             server: Done
// Either side may send Abort(reason) instead of its next message; the other
// then fails with that reason instead of waiting out the timeout.
// While one side measures and the other only waits (write/read BW, read_lat),
// the measuring side sends a Heartbeat about once a second: --timeout bounds
// the peer's silence, not the length of a run.
#ifndef XFER_BENCH_OOB_CHANNEL_H_
#define XFER_BENCH_OOB_CHANNEL_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "bench/model/bench_params.h"
#include "bench/model/results.h"
#include "common/socket.h"
#include "xfer/status.h"

namespace xfer::bench {

// The parameters both sides must agree on, and where the sender's buffer is.
struct RunSetup {
  Verb verb = Verb::kWrite;
  Kind kind = Kind::kBandwidth;
  bool all_sizes = false;
  bool bidirectional = false;
  uint64_t size = 0;
  uint64_t iterations = 0;
  uint64_t duration_ms = 0;
  uint32_t qps = 1;
  uint32_t post_list = 1;
  uint64_t buffer_address = 0;
  uint64_t buffer_length = 0;
};

struct SetupReply {
  bool accepted = false;
  std::string refusal;  // why not, naming the flag
  uint16_t engine_port = 0;
  uint64_t buffer_address = 0;
  uint64_t buffer_length = 0;
};

RunSetup MakeRunSetup(const BenchParams& params, uint64_t buffer_address, uint64_t buffer_length);

// "" when the two setups describe the same run; otherwise a message naming
// the first flag that differs ("-s/--size: server 65536, client 1024").
std::string CompareSetups(const RunSetup& server, const RunSetup& client);

// The channel's messages as pure functions, so that their decoders can be
// tested and fuzzed alone. A message is u32 magic "XFOB", u8 type, then the
// type's fields, little-endian (common/wire.h); each travels as one
// Socket::SendMessage frame of at most kMaxOobMessage bytes. A decoder takes
// the whole message and refuses, with kProtocolError, a bad magic, another
// type, a malformed field, truncation or trailing bytes.
inline constexpr size_t kMaxOobMessage = 4096;
std::vector<uint8_t> EncodeSetupMessage(const RunSetup& setup);
Result<RunSetup> DecodeSetupMessage(std::span<const uint8_t> message);
std::vector<uint8_t> EncodeSetupReplyMessage(const SetupReply& reply);
Result<SetupReply> DecodeSetupReplyMessage(std::span<const uint8_t> message);
std::vector<uint8_t> EncodeBarrierMessage(uint32_t index);
Result<uint32_t> DecodeBarrierMessage(std::span<const uint8_t> message);
std::vector<uint8_t> EncodeBwResultMessage(const BwResult& result);
Result<BwResult> DecodeBwResultMessage(std::span<const uint8_t> message);
std::vector<uint8_t> EncodeLatResultMessage(const LatResult& result);
Result<LatResult> DecodeLatResultMessage(std::span<const uint8_t> message);
std::vector<uint8_t> EncodeLatDurationResultMessage(const LatDurationResult& result);
Result<LatDurationResult> DecodeLatDurationResultMessage(std::span<const uint8_t> message);

// Not thread-safe: one thread drives a channel. Every receive waits at most
// the timeout given at construction.
class OobChannel {
 public:
  OobChannel(Socket socket, std::chrono::milliseconds timeout)
      : socket_(std::move(socket)), timeout_(timeout) {}

  Status SendSetup(const RunSetup& setup);
  Result<RunSetup> RecvSetup();
  Status SendSetupReply(const SetupReply& reply);
  Result<SetupReply> RecvSetupReply();

  Status SendBarrier(uint32_t index);
  // Errors: kProtocolError when the peer is at another index.
  Status RecvBarrier(uint32_t index);

  Status SendBwResult(const BwResult& result);
  Result<BwResult> RecvBwResult();
  Status SendLatResult(const LatResult& result);
  Result<LatResult> RecvLatResult();
  Status SendLatDurationResult(const LatDurationResult& result);
  Result<LatDurationResult> RecvLatDurationResult();

  // Proof of life during a long measurement; every Recv* skips them.
  Status SendHeartbeat();

  Status SendDone();
  Status RecvDone();

  // Tells the peer this side failed; best effort.
  void SendAbort(const std::string& reason);

  // True when a message is waiting (non-blocking), e.g. the client's Done
  // that ends a duration-mode ping-pong on the server.
  bool Readable();

  // Non-blocking, for a side that waits on something else (memory, the
  // engine's connection) while its peer may fail: reads nothing unless the
  // peer's next message is an Abort, so a message that is early is never
  // taken for a failure (the client's Barrier can reach the server before
  // the client's engine connection does). True when another message is
  // waiting (the duration-mode client's Done, the next step's Barrier),
  // false when none is. Errors: the Abort's reason (kConnectionLost "peer
  // failed: ..."), kConnectionLost once the peer has closed the connection
  // (it died or stopped), so a dead peer is reported at once, not at
  // --timeout.
  Result<bool> WatchPeer();

  std::string PeerHost() const { return socket_.PeerHost(); }

 private:
  Status Send(const std::vector<uint8_t>& body);
  Result<std::vector<uint8_t>> Recv(uint8_t expected_type);

  Socket socket_;
  std::chrono::milliseconds timeout_;
};

}  // namespace xfer::bench

#endif  // XFER_BENCH_OOB_CHANNEL_H_
