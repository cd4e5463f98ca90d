// The engine's notifications received and not yet taken (Engine::Notify,
// GetNotifications): one queue for every peer, filled by the connections'
// sinks from transport threads, emptied by the application.
#ifndef XFER_CORE_NOTIFICATION_INBOX_H_
#define XFER_CORE_NOTIFICATION_INBOX_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "transport/notification_sink.h"
#include "xfer/engine.h"

namespace xfer::core {

class NotificationInbox {
 public:
  // Unread bytes one peer may leave queued; an entry counts at least
  // kMinEntryCharge, so that a flood of tiny ones is bounded too.
  static constexpr uint64_t kPeerLimitBytes = uint64_t{16} << 20;
  static constexpr uint64_t kMinEntryCharge = 64;

  // One connection's way in. Deliver may run before the connection has a
  // PeerId: what it queues is held back from GetNotifications until Bind
  // names the peer, so nothing is ever reported from peer 0.
  class Sink final : public transport::NotificationSink,
                     public std::enable_shared_from_this<Sink> {
   public:
    Status Deliver(std::span<const uint8_t> message) override;
    // Names the sender of everything this sink queued and will queue.
    void Bind(PeerId peer);

   private:
    friend class NotificationInbox;
    Sink(NotificationInbox& inbox, std::string peer_name)
        : inbox_(inbox), peer_name_(std::move(peer_name)) {}
    NotificationInbox& inbox_;
    const std::string peer_name_;
    PeerId peer_ = 0;         // GUARDED_BY(inbox_.mu_)
    uint64_t queued_ = 0;     // GUARDED_BY(inbox_.mu_): charged bytes unread
  };

  NotificationInbox() = default;
  NotificationInbox(const NotificationInbox&) = delete;
  NotificationInbox& operator=(const NotificationInbox&) = delete;

  // A sink for a connection to the peer called `peer_name`. Its entries
  // outlive it: they hold what they need (the sink's state is shared).
  std::shared_ptr<Sink> NewSink(std::string peer_name);

  // See Engine::GetNotifications.
  std::vector<Notification> Take(std::chrono::nanoseconds timeout, PeerId from);

 private:
  struct Entry {
    std::shared_ptr<Sink> from;
    std::string message;
  };
  // True when `entry` may be taken by a reader asking for `from`.
  static bool Matches(const Entry& entry, PeerId from);
  bool AnyMatchLocked(PeerId from) const;

  std::mutex mu_;
  std::condition_variable arrived_;
  std::deque<Entry> entries_;  // GUARDED_BY(mu_)
  // entries_.size(), written under mu_, read without it: a poll of an empty
  // inbox (Take with timeout 0) returns without the lock. A reader that
  // polls in a loop would otherwise take mu_ over and over, and a transport
  // thread delivering (Deliver) would wait for it until the scheduler
  // preempted the reader: milliseconds, in steps of the timer tick.
  std::atomic<size_t> unread_{0};
};

}  // namespace xfer::core

#endif  // XFER_CORE_NOTIFICATION_INBOX_H_
