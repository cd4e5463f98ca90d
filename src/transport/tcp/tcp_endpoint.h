// One tcp connection to one peer.
//
// Connections are symmetric: either side may post READ, WRITE, send and
// receive. To keep that deadlock-free each side carries ITS OWN requests on
// the sockets IT opened ("outgoing") and serves the peer's requests on the
// sockets the peer opened ("incoming"):
//   - posting threads write request frames on outgoing sockets (one send
//     mutex per socket keeps frames whole);
//   - one completer thread reads the responses from all outgoing sockets
//     and never writes;
//   - one responder thread reads requests from all incoming sockets and
//     writes only their responses.
// Were requests and responses of both directions mixed on one socket, two
// posters blocked on full send buffers would each wait for the other side
// to read, while the readers wait to send their responses: a cycle. Here
// every byte written is eventually read by a thread that waits on nothing
// but the wire, so no cycle of full buffers can form.
//
// Responses come back in order on each socket, so each outgoing socket
// keeps a FIFO of its in-flight frames; the completer matches the front by
// request id.
#ifndef XFER_TRANSPORT_TCP_TCP_ENDPOINT_H_
#define XFER_TRANSPORT_TCP_TCP_ENDPOINT_H_

#include <memory>
#include <mutex>
#include <span>

#include "transport/tcp/completer.h"
#include "transport/tcp/connection.h"
#include "transport/tcp/link_watch.h"
#include "transport/tcp/responder.h"
#include "transport/tcp/stream_setup.h"
#include "transport/transport.h"

namespace xfer::transport::tcp {

// Thread-safety: as Endpoint. Post* on one stream serialise on its socket.
class TcpEndpoint final : public Endpoint {
 public:
  // Takes the connected sockets (sockets.outgoing non-empty) and starts the
  // completer and responder threads. `setup.local` must outlive the
  // endpoint.
  TcpEndpoint(StreamSockets sockets, const EndpointSetup& setup);
  ~TcpEndpoint() override;  // Close()

  // One WRITE (READ) frame per entry, split at kMaxFramePayload, each a
  // part of `request`, on socket `stream % streams`. The payload is sent
  // straight from (received straight into) the caller's memory. Blocks
  // while the socket's send buffer is full, at most io_timeout per chunk.
  // Errors: kConnectionLost when the connection is closed (the request is
  // then untouched); kInvalidArgument for an empty batch or one of more
  // than 2^32 frames. Failures after the request was armed, including a
  // send that breaks the connection, finish the request instead.
  Status PostWrite(std::span<const TransferEntry> entries, TransferRequest& request,
                   uint32_t stream) override;
  Status PostRead(std::span<const TransferEntry> entries, TransferRequest& request,
                  uint32_t stream) override;

  // One SEND frame; completes once written to the socket. Errors as
  // PostWrite, plus kInvalidArgument above kMaxFramePayload bytes.
  Status PostSend(const void* data, size_t length, TransferRequest& request,
                  uint32_t stream) override;

  // Queues a receive for the peer's next SEND. Errors: kConnectionLost.
  Status PostRecv(void* buffer, size_t capacity, TransferRequest& request) override;
  // A NOTIFY frame on the stream's socket, behind the stream's WRITE and
  // READ frames; completes once it is in the socket.
  Status PostNotify(std::span<const uint8_t> message, TransferRequest& request,
                    uint32_t stream) override;

  // The responder checks every peer request against the engine's registry,
  // which no longer holds `region`, so later ones are refused with
  // kOutOfRange; this waits for a request checked before (see
  // Responder::Fence). kTimeout: that request was still being served at
  // `deadline`, so the connection was failed to end it; the region is out
  // of reach on return either way.
  Status Revoke(const LocalRegionView& region, Deadline deadline) override;

  // Fails the connection with kConnectionLost (unless it already failed
  // for another reason), joins both threads (which fail what is in flight
  // and every posted receive) and closes the sockets. Idempotent.
  // REQUIRES: not called from inside a completion (there are no callbacks).
  void Close() override;
  // Close(), its sockets' queues dropped (RST): what a failed rail had
  // queued is never delivered, though its link come back.
  void Abandon() override;

  // Fails the connection (kConnectionLost naming the link) once `watch`
  // announces interface `ifindex` down: for a rail among others, whose
  // work the engine then moves at once (EndpointSetup::fail_on_link_down).
  void FailOnLinkDown(std::shared_ptr<LinkWatch> watch, int ifindex);

 private:
  Status PostOneSided(FrameType type, std::span<const TransferEntry> entries,
                      TransferRequest& request, uint32_t stream);
  // Assigns op.id, queues `op` on out's FIFO and sends its frame.
  // REQUIRES: out.send_mu held. Errors from SendFrame.
  Status PushAndSend(OutgoingStream& out, InflightOp op);
  OutgoingStream& Pick(uint32_t stream);

  Connection connection_;
  Completer completer_;
  Responder responder_;
  std::mutex close_mu_;  // serialises Close()
  bool joined_ = false;  // GUARDED_BY(close_mu_)
  // Kept alive by the endpoint while it watches (declared before the
  // subscription, which must end first).
  std::shared_ptr<LinkWatch> link_watch_;
  LinkWatch::Subscription link_down_;  // GUARDED_BY(close_mu_)
};

}  // namespace xfer::transport::tcp

#endif  // XFER_TRANSPORT_TCP_TCP_ENDPOINT_H_
