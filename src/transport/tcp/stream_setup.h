// Opens the tcp transport's data sockets for one connection.
//
// Each side carries its OWN requests on sockets IT opened (see
// tcp_endpoint.h for why), so both sides listen and both connect. The
// protocol is symmetric; both peers run it at the same time:
//   1. bind a Listener on an ephemeral port;
//   2. send {magic, version, port, streams, token} on the control socket,
//      where token is 64 random bits, and read the peer's;
//   3. connect `streams` sockets to the peer's port, each sending the hello
//      {magic, stream index, the PEER's token};
//   4. accept `streams` sockets, requiring our own token and each index
//      0..streams-1 exactly once (the token proves the connector read our
//      control message, so strangers cannot slip in).
// The listener is closed before returning.
#ifndef XFER_TRANSPORT_TCP_STREAM_SETUP_H_
#define XFER_TRANSPORT_TCP_STREAM_SETUP_H_

#include <cstdint>
#include <string>
#include <vector>

#include "common/socket.h"
#include "transport/transport.h"
#include "xfer/status.h"

namespace xfer::transport::tcp {

// The most data streams (socket pairs) one connection opens.
inline constexpr uint32_t kMaxStreams = 64;

// The data sockets of one connection, each tuned (TCP_NODELAY, buffers).
struct StreamSockets {
  std::vector<Socket> outgoing;  // opened by us; index = our stream number
  std::vector<Socket> incoming;  // opened by the peer; index = its stream number
};

struct StreamOptions {
  // SO_SNDBUF/SO_RCVBUF for every data socket; 0 keeps the kernel's
  // autotuning.
  int socket_buffer_bytes = 0;
};

// Runs the protocol above on setup.control, bounded by setup.deadline.
// REQUIRES: setup.control is connected; 1 <= setup.streams <= 64.
// Errors: kInvalidArgument (bad setup), kTimeout, kConnectionLost,
// kProtocolError (malformed control message, disagreeing stream count, a
// hello with a wrong token, index or duplicate), kIoError.
Result<StreamSockets> EstablishStreams(const EndpointSetup& setup, const StreamOptions& options);

// The address our listener binds: the local address of the control socket
// when it is TCP (the peer evidently reaches us there); otherwise loopback
// for a loopback peer and the wildcard address of peer_host's family.
std::string ChooseBindHost(const Socket& control, const std::string& peer_host);

}  // namespace xfer::transport::tcp

#endif  // XFER_TRANSPORT_TCP_STREAM_SETUP_H_
