// The Engine implementation: owns the memory registry, the enabled
// transports, the listener thread and the table of connected peers.
#ifndef XFER_CORE_ENGINE_IMPL_H_
#define XFER_CORE_ENGINE_IMPL_H_

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <thread>

#include "core/closed_peers.h"
#include "core/deadline_watcher.h"
#include "core/memory_registry.h"
#include "core/notification_inbox.h"
#include "core/peer_connection.h"
#include "core/peer_table.h"
#include "core/prepared_list.h"
#include "core/shared_secret.h"
#include "core/submit_pipeline.h"
#include "xfer/engine.h"

namespace xfer::core {

class EngineImpl final : public Engine {
 public:
  // Use Engine::Create. `transports` is non-empty, best first.
  EngineImpl(const EngineOptions& options, std::optional<SharedSecret> secret,
             TransportList transports, std::unique_ptr<Listener> listener);
  ~EngineImpl() override;

  std::string listen_address() const override;
  Result<MemoryRegion> AllocateMemory(size_t length, const MemoryOptions& options) override;
  Result<MemoryRegion> RegisterMemory(void* address, size_t length,
                                      const MemoryOptions& options) override;
  Status DeregisterMemory(const MemoryRegion& region) override;
  Result<PeerId> Connect(std::string_view address, const ConnectOptions& options) override;
  Result<PeerId> WaitForPeer(std::chrono::milliseconds timeout) override;
  Result<PeerInfo> GetPeerInfo(PeerId peer) const override;
  Status Disconnect(PeerId peer) override;
  Status Submit(PeerId peer, OpCode op, std::span<const TransferEntry> entries,
                TransferRequest& request, uint32_t stream) override;
  Status Submit(PeerId peer, OpCode op, std::span<const TransferEntry> entries,
                TransferRequest& request, const SubmitOptions& options) override;
  Status Notify(PeerId peer, std::string_view message, TransferRequest& request,
                uint32_t stream) override;
  Status Cancel(PeerId peer, TransferRequest& request) override;
  std::vector<Notification> GetNotifications(std::chrono::nanoseconds timeout,
                                             PeerId from) override;
  Result<PreparedTransfers> PrepareTransfers(PeerId peer,
                                             std::span<const TransferEntry> entries) override;
  Status SubmitPrepared(const PreparedTransfers& list, OpCode op, uint32_t first, uint32_t count,
                        TransferRequest& request, const SubmitOptions& options) override;
  Status SubmitPrepared(const PreparedTransfers& list, OpCode op,
                        std::span<const uint32_t> indices, TransferRequest& request,
                        const SubmitOptions& options) override;
  Status PostSend(PeerId peer, const void* data, size_t length, TransferRequest& request,
                  uint32_t stream) override;
  Status PostRecv(PeerId peer, void* buffer, size_t capacity, TransferRequest& request) override;

 private:
  void AcceptLoop();
  // `action` on the endpoint of `peer`, or of every peer for 0.
  void ForEachEndpoint(PeerId peer, const std::function<void(transport::Endpoint&)>& action);
  // Publishes an established connection under a fresh PeerId; then names
  // it to its notification sink and pins host memory if the peer has
  // device memory.
  Result<PeerId> Publish(std::unique_ptr<PeerConnection> connection);
  // The deadline watcher's verdict on an expired request (DeadlineWatcher).
  bool ExpireRequest(PeerId peer, TransferRequest& request);
  // One line naming the refused peer and why, to options_.refusal_log.
  void LogRefusal(const std::string& from, const Status& why) const;
  ConnectContext Context();
  // A peer with device regions may meet this side's host regions in device
  // copies (shm's CUDA IPC, a staged transfer): they must then be pinned.
  void PinIfPeerHasDeviceMemory(PeerId peer);

  const EngineOptions options_;  // its `secret` emptied: the key lives in secret_
  const std::optional<SharedSecret> secret_;
  const PeerIdentity identity_;
  const TransportList transports_;
  const std::unique_ptr<cuda::DeviceRuntime> devices_;  // outlives memory_
  MemoryRegistry memory_;

  // Held shared by each connection being established, from the registry
  // snapshot it announces to the peer until it is in peers_; exclusively
  // by DeregisterMemory, so that every connection that announced a region
  // is in peers_ when the region is revoked. (glibc's rwlock lets readers
  // past a waiting writer, so an engine connecting to its own listener,
  // both sides reading, cannot deadlock behind a DeregisterMemory.)
  std::shared_mutex setup_mu_;
  std::unique_ptr<Listener> listener_;  // null when not listening

  // Before peers_: the connections' sinks deliver into it until they close.
  NotificationInbox inbox_;
  // Stopped first thing in the destructor; its entries outlive the peers,
  // whose closing completes the requests they watch.
  // Why the engine closed a peer itself; before deadlines_, which records
  // into it.
  ClosedPeers closed_;
  DeadlineWatcher deadlines_;
  PeerTable peers_;
  SubmitPipeline submit_;  // every operation's one way to a transport

  std::mutex accepted_mu_;
  std::condition_variable accepted_cv_;
  std::deque<PeerId> accepted_;      // GUARDED_BY(accepted_mu_)
  std::string last_accept_error_;    // GUARDED_BY(accepted_mu_)

  std::atomic<bool> stopping_{false};
  std::thread accept_thread_;  // last: starts after every member above exists
};

}  // namespace xfer::core

#endif  // XFER_CORE_ENGINE_IMPL_H_
