// The one path from the engine's entry points to a transport. Submit,
// SubmitPrepared, Notify, PostSend and PostRecv each describe their call as
// an Operation (operation.h) and Post() it here, where it passes the same
// stages, in order:
//   1. admit:   the deadline is sane, the request is not in flight, the
//               notification fits, the arguments are whole;
//   2. resolve: the connection, pinned for the length of the call;
//   3. check:   the transport's capabilities, and every local and remote
//               range the operation touches;
//   4. route:   the stream mapped onto the connection's; the staging
//               pipeline (a bounced or offloaded request, or any request
//               behind staged ones still running) or the endpoint directly;
//   5. post:    under the request's deadline, if it has one, with its
//               notification joined to it as one request.
// Each check is made once, here; a path through a connection that carries a
// request over several endpoints (rails) enters at the route stage only.
//
// Thread-safe: any number of threads may Post at once, to one peer or many.
#ifndef XFER_CORE_SUBMIT_PIPELINE_H_
#define XFER_CORE_SUBMIT_PIPELINE_H_

#include <cstdint>
#include <span>
#include <vector>

#include "core/closed_peers.h"
#include "core/deadline_watcher.h"
#include "core/memory_registry.h"
#include "core/operation.h"
#include "core/peer_table.h"
#include "core/staging_pipeline.h"
#include "cuda/device_runtime.h"
#include "xfer/engine.h"

namespace xfer::core {

class SubmitPipeline {
 public:
  // Every reference outlives the pipeline.
  SubmitPipeline(PeerTable& peers, const ClosedPeers& closed, const MemoryRegistry& memory,
                 cuda::DeviceRuntime& devices, DeadlineWatcher& deadlines)
      : peers_(peers), closed_(closed), memory_(memory), devices_(devices), deadlines_(deadlines) {}
  SubmitPipeline(const SubmitPipeline&) = delete;
  SubmitPipeline& operator=(const SubmitPipeline&) = delete;

  // Posts `operation` as `request`. On OK the request is in flight and
  // completes exactly once; on an error it is untouched and no byte moved.
  // The errors are those of the Engine call the operation came from.
  Status Post(const Operation& operation, TransferRequest& request);

  // What one entry of a one-sided operation resolves to, checked against
  // `connection`: its local range in one registered region and its remote
  // range in one region the peer announced with `needed` access, in memory
  // the connection moves. Errors name the entry by `index`.
  struct CheckedEntry {
    const RemoteRegion* remote;
    bool stages;  // the local memory bounces through the staging pipeline
  };
  Result<CheckedEntry> CheckEntry(const PeerConnection& connection, const TransferEntry& entry,
                                  size_t index, Access needed) const;

  // kNotSupported / kInvalidArgument when the connection's transport has no
  // one-sided operations or takes fewer than `entries` at once.
  static Status CheckOneSided(const PeerConnection& connection, size_t entries);

 private:
  // What the check stage learnt about a one-sided operation, for the route.
  struct Facts {
    bool stages = false;  // a local buffer bounces through staging
    uint64_t bytes = 0;   // counted where the route depends on them
  };

  // The stages, for one kind of operation (an alternative of
  // Operation::what). Run is instantiated once per kind, so that each
  // kind's path is compiled straight through; a stage says what it does for
  // each kind in one place.
  template <typename Kind>
  Status Run(const Operation& operation, const Kind& what, TransferRequest& request);
  template <typename Kind>
  Status Admit(const Operation& operation, const Kind& what, const TransferRequest& request) const;
  // The connection the operation goes through, pinned; empty when there is
  // none (Unresolved says why).
  template <typename Kind>
  PeerTable::Pin Resolve(const Operation& operation, const Kind& what) const;
  template <typename Kind>
  Status Unresolved(const Operation& operation, const Kind& what) const;
  template <typename Kind>
  Status Check(const Operation& operation, const Kind& what, const PeerConnection& connection,
               Facts& facts) const;
  template <typename Kind>
  Status Route(const Operation& operation, const Kind& what, const Facts& facts,
               PeerConnection& connection, uint32_t stream, TransferRequest& request) const;
  // The direct post of a checked one-sided operation or notification.
  template <typename Kind>
  Status PostDirect(const Operation& operation, const Kind& what, transport::Endpoint& endpoint,
                    uint32_t stream, TransferRequest& request) const;

  // CheckEntry's work, inlined into the check stage's loop.
  Result<CheckedEntry> CheckOneEntry(const PeerConnection& connection, const TransferEntry& entry,
                                     size_t index, Access needed) const;
  // `entries` as the connection's staging pipeline moves them; `offload`:
  // the direct ones gather (PeerConnection::Offloads).
  Result<std::vector<StagedEntry>> StagedEntries(const PeerConnection& connection,
                                                 std::span<const TransferEntry> entries,
                                                 bool offload) const;
  // Looks for every local region of `list` again after a deregistration;
  // invalidates the list, and says why, when one is gone.
  Status RecheckLocalRegions(internal::PreparedList& list) const;
  Result<MemoryKind> CheckLocal(const void* address, size_t length, const char* what) const;
  Status CheckCarried(const PeerConnection& connection, MemoryKind local, MemoryKind remote) const;

  PeerTable& peers_;
  const ClosedPeers& closed_;
  const MemoryRegistry& memory_;
  cuda::DeviceRuntime& devices_;
  DeadlineWatcher& deadlines_;
};

}  // namespace xfer::core

#endif  // XFER_CORE_SUBMIT_PIPELINE_H_
