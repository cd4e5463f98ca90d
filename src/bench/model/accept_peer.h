// A server's wait for its one real peer on a listening port: connections
// are accepted until one greets as the protocol says; anything else that
// connects (a port scanner, a stray HTTP request, a peer that says nothing
// within its timeout, one that hangs up) is turned away with a line on
// stderr, and the wait goes on until the deadline.
#ifndef XFER_BENCH_MODEL_ACCEPT_PEER_H_
#define XFER_BENCH_MODEL_ACCEPT_PEER_H_

#include <atomic>
#include <cstdio>
#include <string>

#include "bench/model/interruption.h"
#include "common/clock.h"
#include "common/socket.h"
#include "xfer/status.h"

namespace xfer::bench {

// True for the ways a connection that is not our peer fails its greeting:
// bytes that do not parse, silence, or a hang-up.
inline bool IsStrayPeer(const Status& status) {
  return status.code() == StatusCode::kProtocolError || status.code() == StatusCode::kTimeout ||
         status.code() == StatusCode::kConnectionLost;
}

// True for the ways a real peer's turn ends by its own doing, after it
// greeted: it asked for what this side will not do (kInvalidArgument:
// another run, another matrix), gave up (its Abort: its engine was refused
// for another secret), hung up, went silent or sent what does not fit (as
// IsStrayPeer). A server turns such a peer away and waits for the next.
inline bool IsTurnedAway(const Status& status) {
  return IsStrayPeer(status) || status.code() == StatusCode::kInvalidArgument;
}

// The one line a server prints for a peer it turned away: "xfer: turned
// away the client from 127.0.0.1: <why>; still waiting for a client".
// `peer_noun` names the role ("client"), `article` its article ("a").
inline void ReportTurnedAway(const char* article, const char* peer_noun, const std::string& from,
                             const Status& why) {
  std::fprintf(stderr, "xfer: turned away the %s from %s: %s; still waiting for %s %s\n",
               peer_noun, from.empty() ? "?" : from.c_str(), why.ToString().c_str(), article,
               peer_noun);
}

// `greet(Socket)` reads the peer's first message and returns Result<T>.
// Returns the first T that succeeds. `peer_kind` names what was expected,
// with its article ("an xfer client"). The wait ends early once `stop` is
// raised (interruption.h). Errors: the Accept's (kTimeout at `deadline`),
// or the interruption, with `waiting_for` as context; or a greeting error
// that IsStrayPeer does not cover.
template <typename Greet>
auto AcceptPeer(Listener& listener, Deadline deadline, const std::atomic<int>& stop,
                const char* peer_kind, const char* waiting_for, Greet&& greet)
    -> decltype(greet(Socket())) {
  for (;;) {
    auto socket = WaitUnlessInterrupted(
        deadline, stop, [&listener](Deadline slice) { return listener.Accept(slice); });
    if (!socket.ok()) return socket.status().WithContext(waiting_for);
    const std::string from = socket->PeerHost();
    auto greeted = greet(std::move(socket.value()));
    if (greeted.ok() || !IsStrayPeer(greeted.status())) return greeted;
    std::fprintf(stderr, "xfer: not %s (from %s): %s; still waiting\n", peer_kind,
                 from.empty() ? "?" : from.c_str(), greeted.status().message().c_str());
  }
}

}  // namespace xfer::bench

#endif  // XFER_BENCH_MODEL_ACCEPT_PEER_H_
