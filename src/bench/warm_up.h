// The untimed pass before a one-sided bandwidth measurement. perftest's
// memory is faulted in and pinned when it registers it with the NIC, so its
// first timed pass pays no first-touch cost; over the engine's transports
// (shm maps the peer's memory, tcp writes into it), the first touch of each
// page would land in the timed section and make short runs under-report
// (0.25 s per 64 MiB on a fresh mapping was measured). One pass over every
// address the loop will use moves that cost out of the measurement.
#ifndef XFER_BENCH_WARM_UP_H_
#define XFER_BENCH_WARM_UP_H_

#include "bench/bench_session.h"
#include "bench/buffer_layout.h"
#include "bench/bw_runner.h"
#include "xfer/transfer.h"

namespace xfer::bench {

// Moves `op` (kRead or kWrite) once through every (local, remote) message
// address that RunBandwidthLoop uses for `config`: each stream's slot, at
// each offset BufferLayout::MessageOffset cycles through. Errors: the
// first failed Submit or completion; kTimeout when a pass does not
// complete within config.timeout (the peer is then disconnected, so no
// request outlives the call).
Status WarmUp(Session& session, const BufferLayout& layout, const BwRunConfig& config, OpCode op);

}  // namespace xfer::bench

#endif  // XFER_BENCH_WARM_UP_H_
