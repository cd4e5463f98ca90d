// Helpers shared by the tcp transport tests: byte patterns, waiting, and a
// "raw peer" that performs the real stream setup but then speaks (or
// withholds) bytes by hand, to play a broken or hostile peer.
#ifndef XFER_TESTS_TRANSPORT_TCP_TCP_TEST_UTIL_H_
#define XFER_TESTS_TRANSPORT_TCP_TCP_TEST_UTIL_H_

#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <future>
#include <memory>

#include "common/request_access.h"
#include "support/byte_pattern.h"
#include "support/recording_sink.h"
#include "support/test_devices.h"
#include "support/test_memory.h"
#include "transport/tcp/frame.h"
#include "transport/tcp/stream_setup.h"
#include "transport/tcp/tcp_transport.h"

namespace xfer::transport::tcp::testing {

inline constexpr std::chrono::seconds kWait{10};

using xfer::testing::Addr;
using xfer::testing::Bytes;
using xfer::testing::FillPattern;
using xfer::testing::FirstPatternMismatch;
using xfer::testing::PatternByte;

// The real endpoint on one side of a fresh control channel; on the other,
// bare sockets from EstablishStreams. raw.outgoing carries requests TO the
// endpoint; raw.incoming carries the endpoint's requests (and our replies).
struct RawPeerPair {
  xfer::testing::TestMemory memory;      // the endpoint's registered memory
  xfer::testing::TestMemory raw_memory;  // unused by the raw side's bytes
  xfer::testing::RecordingSink notes;    // the raw side's notifications, as the endpoint got them
  Socket control;
  Socket raw_control;
  std::unique_ptr<Endpoint> endpoint;
  StreamSockets raw;
};

inline EndpointSetup MakeSetup(Socket& control, const LocalMemory& local,
                               const xfer::testing::TestMemory& peer, uint32_t streams,
                               std::chrono::milliseconds io_timeout, bool initiator) {
  EndpointSetup setup;
  setup.initiator = initiator;
  setup.streams = streams;
  setup.control = &control;
  setup.peer_host = "127.0.0.1";
  setup.peer_pid = getpid();
  setup.local = &local;
  setup.remote = RemoteMemory(peer.AsRemote());
  setup.io_timeout = io_timeout;
  setup.deadline = Deadline::After(std::chrono::seconds(5));
  setup.devices = &xfer::testing::TestDevices();
  setup.notifications = &xfer::testing::UnusedSink();
  return setup;
}

// REQUIRES: pair.memory filled. Returns the first setup error.
inline Status ConnectRaw(RawPeerPair& pair, uint32_t streams,
                         std::chrono::milliseconds io_timeout) {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) return IoError("socketpair");
  pair.control = Socket(UniqueFd(fds[0]));
  pair.raw_control = Socket(UniqueFd(fds[1]));
  auto raw = std::async(std::launch::async, [&] {
    auto setup =
        MakeSetup(pair.raw_control, pair.raw_memory, pair.memory, streams, io_timeout, false);
    return EstablishStreams(setup, StreamOptions{});
  });
  TcpTransport transport;
  auto setup = MakeSetup(pair.control, pair.memory, pair.raw_memory, streams, io_timeout, true);
  setup.notifications = &pair.notes;
  auto endpoint = transport.CreateEndpoint(setup);
  auto sockets = raw.get();
  if (!endpoint.ok()) return endpoint.status();
  if (!sockets.ok()) return sockets.status();
  pair.endpoint = std::move(*endpoint);
  pair.raw = std::move(*sockets);
  return Status::Ok();
}

// Reads one frame header from `socket`.
inline Result<FrameHeader> RecvHeader(Socket& socket) {
  FrameBytes bytes;
  XFER_RETURN_IF_ERROR(socket.RecvAll(bytes.data(), bytes.size(), Deadline::After(kWait)));
  return DecodeFrameHeader(bytes);
}

inline Status SendHeader(Socket& socket, const FrameHeader& header) {
  FrameBytes bytes = EncodeFrameHeader(header);
  return socket.SendAll(bytes.data(), bytes.size(), Deadline::After(kWait));
}

}  // namespace xfer::transport::tcp::testing

#endif  // XFER_TESTS_TRANSPORT_TCP_TCP_TEST_UTIL_H_
