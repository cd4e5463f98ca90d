// The one thread per tcp endpoint that serves the peer's requests (WRITE,
// READ, SEND) arriving on the sockets the peer opened.
//
// It writes only responses, and only on the socket the request came in on.
// A response send blocks at worst until the peer's completer reads, which
// never waits for anything (see completer.h), so serving cannot deadlock
// against our own posting threads, which use other sockets.
//
// Header-only responses (WRITE_ACK, refused READ_DATA) are coalesced per
// socket and sent once the burst of requests read in one recv() is served,
// or before anything that may block, so an acknowledgement is never held
// while we wait.
//
// Every request is checked against our registered memory before a byte is
// touched: the peer's addresses are untrusted even though its engine
// checked them too.
#ifndef XFER_TRANSPORT_TCP_RESPONDER_H_
#define XFER_TRANSPORT_TCP_RESPONDER_H_

#include <poll.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "transport/tcp/connection.h"
#include "transport/tcp/frame_reader.h"
#include "xfer/status.h"

namespace xfer::transport::tcp {

class Responder {
 public:
  // `connection` must outlive this object.
  explicit Responder(Connection& connection);
  ~Responder();  // joins
  Responder(const Responder&) = delete;
  Responder& operator=(const Responder&) = delete;

  // Starts the thread. Call once.
  void Start();

  // Waits for the thread to exit; it does so once the connection is closed.
  // Idempotent. REQUIRES: not called from the thread itself.
  void Join();

  // Returns once no WRITE or READ this thread checked against the local
  // registry before the call is still touching memory. Called after a
  // region left the registry: every later check refuses it, so on return
  // the region is out of this thread's reach. Waits at most until
  // `deadline` for the request being served (a payload the peer trickles
  // in); then fails the connection, which shuts the sockets and so ends
  // that request promptly, waits for it, and returns kTimeout.
  // Thread-safe; REQUIRES: not called from the thread itself.
  Status Fence(Deadline deadline);

 private:
  class ServingScope;

  // One socket the peer opened, with its reader and unsent responses.
  struct Incoming {
    explicit Incoming(Socket& s) : socket(&s), reader(s) {}
    Socket* socket;
    FrameReader reader;
    std::vector<uint8_t> pending;  // encoded header-only responses
    uint64_t stalled_since_ns = 0;  // when a partial frame stopped growing
    // A WRITE or READ on this stream was refused since its last NOTIFY:
    // the next NOTIFY cannot say that everything before it landed, so it
    // is dropped (the initiator's request carries the refusal).
    bool refused_since_notify = false;
  };

  void Run();
  // After the peer closed (kConnectionLost, not this side's Close): serves
  // what it had sent before its end and is already in the sockets, which on
  // one host is there before the close another of this side's threads may
  // have seen first -- a last notification is delivered, a last WRITE
  // lands, as had this thread read first. Reads without blocking, until
  // each socket's end.
  void ServeWhatArrived();
  // Serves every complete request `in` delivered. A non-OK
  // return is a broken stream (or a dead peer) and fails the connection.
  Status Service(Incoming& in);
  Status HandleRequest(Incoming& in, const FrameHeader& header);
  // WRITE: payload straight into registered memory when the range admits
  // remote writes; otherwise discarded, memory untouched. Then WRITE_ACK
  // carrying the verdict.
  Status ServeWrite(Incoming& in, const FrameHeader& header);
  // READ: READ_DATA sent straight from registered memory, or an error
  // READ_DATA without payload.
  Status ServeRead(Incoming& in, const FrameHeader& header);
  // SEND: lands in the oldest posted receive; waits io_timeout for one (the
  // analogue of RDMA's receiver-not-ready retries), then gives up.
  Status ServeSend(Incoming& in, const FrameHeader& header);
  // Hands a NOTIFY's payload to the connection's sink.
  Status ServeNotify(Incoming& in, const FrameHeader& header);
  // Queues a header-only response, sending the queue first when full.
  Status Respond(Incoming& in, const FrameHeader& response);
  Status Flush(Incoming& in);
  // Fails the connection with kTimeout when a peer left a frame half-sent
  // for io_timeout; returns how long poll() may sleep (-1: forever).
  int CheckStalls();

  Connection& connection_;
  DeviceStaging staging_;  // payloads to and from local device memory
  // Odd while a WRITE or READ is being served: raised before its registry
  // check and again once its memory is no longer touched. Sequentially
  // consistent raise before the check, so that Fence(), which loads it
  // after the region left the registry, sees every request whose check
  // still found the region (the registry's lock orders the two).
  std::atomic<uint64_t> serving_{0};
  std::vector<pollfd> fds_;
  std::vector<Incoming> incoming_;
  std::thread thread_;
};

}  // namespace xfer::transport::tcp

#endif  // XFER_TRANSPORT_TCP_RESPONDER_H_
