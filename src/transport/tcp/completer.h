// The one thread per tcp endpoint that reads responses (WRITE_ACK,
// READ_DATA) from every socket this side opened and finishes the requests
// they answer.
//
// It never writes to a socket, and never takes a socket's send mutex while
// the connection is alive: a poster may hold that mutex while blocked on a
// full send buffer, which drains only if the peer's responder can write its
// responses, which needs this thread to keep reading. Reading without
// conditions breaks that cycle.
#ifndef XFER_TRANSPORT_TCP_COMPLETER_H_
#define XFER_TRANSPORT_TCP_COMPLETER_H_

#include <poll.h>

#include <thread>
#include <vector>

#include "transport/tcp/connection.h"
#include "transport/tcp/frame_reader.h"
#include "xfer/status.h"

namespace xfer::transport::tcp {

class Completer {
 public:
  // `connection` must outlive this object.
  explicit Completer(Connection& connection);
  ~Completer();  // joins
  Completer(const Completer&) = delete;
  Completer& operator=(const Completer&) = delete;

  // Starts the thread. Call once.
  void Start();

  // Waits for the thread to exit; it does so once the connection is closed.
  // Idempotent. REQUIRES: not called from the thread itself.
  void Join();

 private:
  void Run();
  // Reads what outgoing socket `index` delivered and finishes the requests
  // it answers; a broken stream fails the connection.
  void Service(size_t index);
  // Finishes the request `header` answers, reading its payload from
  // `reader`. A non-OK return means the stream is broken (the request has
  // been finished with that error).
  Status HandleResponse(OutgoingStream& out, FrameReader& reader, const FrameHeader& header);
  // Checks that `header` answers `op`; kProtocolError otherwise.
  Status Match(const FrameHeader& header, const InflightOp& op) const;
  // Fails the connection with kTimeout when a socket has been waiting for
  // a response for io_timeout with no sign of life from the peer: no frame
  // of that socket sent, and no response on ANY socket (the peer's single
  // responder serves all of them, so a peer busy with another stream's
  // large payload is not silent).
  void CheckTimeouts(uint64_t now);
  // Finishes every remaining in-flight op with the connection's reason.
  void DrainAll();

  Connection& connection_;
  DeviceStaging staging_;              // READ_DATA into device memory
  std::vector<pollfd> fds_;            // one per outgoing socket
  std::vector<FrameReader> readers_;  // likewise
  uint64_t last_response_ns_ = 0;  // NowNs() of the last response; thread-local use
  std::thread thread_;
};

}  // namespace xfer::transport::tcp

#endif  // XFER_TRANSPORT_TCP_COMPLETER_H_
