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

#include "bench/control_link.h"
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

// Thread-safety: as ControlLink's (sends from any thread, the heartbeat's
// included; receives from one). Every receive waits at most the timeout
// given at construction.
class OobChannel {
 public:
  OobChannel(Socket socket, std::chrono::milliseconds timeout);

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

  // The session messages, as ControlLink's: Heartbeat, Done, Abort;
  // Readable, e.g. for the client's Done that ends a duration-mode
  // ping-pong on the server; WatchPeer, for the server while it waits for
  // the client's engine (the client's Barrier may arrive before it, and is
  // left for RecvBarrier).
  Status SendHeartbeat();
  Status SendDone();
  Status RecvDone();
  void SendAbort(const std::string& reason);
  bool Readable();
  Result<bool> WatchPeer();

  std::string PeerHost() const { return link_.PeerHost(); }

 private:
  Status Send(const std::vector<uint8_t>& message);
  Result<std::vector<uint8_t>> Recv(uint8_t expected_type);

  ControlLink link_;  // the framing and the session messages
};

}  // namespace xfer::bench

#endif  // XFER_BENCH_OOB_CHANNEL_H_
