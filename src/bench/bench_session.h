// Sets up both ends of a benchmark: the engine, the registered buffer, the
// out-of-band agreement and the engine connection.
#ifndef XFER_BENCH_BENCH_SESSION_H_
#define XFER_BENCH_BENCH_SESSION_H_

#include <memory>

#include "bench/bench_params.h"
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

// Server: accepts one client on `oob_listener` (waiting up to
// params.accept_timeout), checks it asks for the same run, and accepts its
// engine connection. Errors name the failing step.
Result<Session> OpenServerSession(const BenchParams& params, Listener& oob_listener);

// Client: connects to params.server_host:params.port, agrees on the run and
// connects the engine with params.qps streams.
Result<Session> OpenClientSession(const BenchParams& params);

}  // namespace xfer::bench

#endif  // XFER_BENCH_BENCH_SESSION_H_
