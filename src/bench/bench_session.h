// Sets up both ends of a benchmark: the engine, the registered buffer, the
// out-of-band agreement and the engine connection.
#ifndef XFER_BENCH_BENCH_SESSION_H_
#define XFER_BENCH_BENCH_SESSION_H_

#include <atomic>
#include <memory>

#include "bench/model/bench_params.h"
#include "bench/model/observer.h"
#include "bench/buffer_layout.h"
#include "bench/oob_channel.h"
#include "common/socket.h"
#include "xfer/engine.h"

namespace xfer::bench {

// Member order is teardown order in reverse: the engine (which owns the
// buffer's memory) goes last.
struct Session {
  std::unique_ptr<Engine> engine;
  MemoryRegion buffer;            // local: BufferLayout(...).total_bytes()
  PeerId peer = 0;
  PeerInfo peer_info;
  uint64_t remote_buffer = 0;     // the peer's buffer, in its address space
  uint64_t remote_length = 0;
  std::unique_ptr<OobChannel> oob;

  uint8_t* local_slot(const BufferLayout& layout, uint32_t stream) const {
    return static_cast<uint8_t*>(buffer.address) + layout.slot_offset(stream);
  }
  uint64_t remote_slot(const BufferLayout& layout, uint32_t stream) const {
    return remote_buffer + layout.slot_offset(stream);
  }
};

BufferLayout LayoutFor(const BenchParams& params);

// Server: accepts clients on `oob_listener` until one asks for the same run
// and connects its engine, within params.accept_timeout in all. A client
// that asks for another run, gives up (its engine was refused: another
// secret, another transport), hangs up or goes silent is turned away with a
// line on stderr, and the server waits for the next; the listener closes
// once a client is served (one client per server, as perftest). Errors:
// kTimeout when no client was served in time, or the server's own failure,
// naming the failing step. Once `stop` is raised the wait for a client
// ends (bench/model/interruption.h).
Result<Session> OpenServerSession(const BenchParams& params, Listener& oob_listener,
                                  const std::atomic<int>& stop);

// Client: connects to params.server_host:params.port, agrees on the run and
// connects the engine with params.qps streams. Once `stop` is raised the
// wait for the server ends.
// Allocates and deregisters one region of the test buffer's kind and size,
// timing each (RegistrationTiming). Errors: AllocateMemory's.
Result<RegistrationTiming> ProbeRegistration(const BenchParams& params, Session& session);

Result<Session> OpenClientSession(const BenchParams& params, const std::atomic<int>& stop);

}  // namespace xfer::bench

#endif  // XFER_BENCH_BENCH_SESSION_H_
