#include "core/notification_inbox.h"

#include <fmt/format.h>

#include <algorithm>

namespace xfer::core {
namespace {

uint64_t Charge(size_t bytes) {
  return std::max<uint64_t>(bytes, NotificationInbox::kMinEntryCharge);
}

}  // namespace

std::shared_ptr<NotificationInbox::Sink> NotificationInbox::NewSink(std::string peer_name) {
  return std::shared_ptr<Sink>(new Sink(*this, std::move(peer_name)));
}

Status NotificationInbox::Sink::Deliver(std::span<const uint8_t> message) {
  const uint64_t charge = Charge(message.size());
  {
    std::lock_guard lock(inbox_.mu_);
    if (queued_ + charge > kPeerLimitBytes) {
      return ResourceExhausted(fmt::format(
          "peer '{}' sent notifications past the {} MiB this engine keeps unread; the application "
          "is not calling GetNotifications",
          peer_name_, kPeerLimitBytes >> 20));
    }
    queued_ += charge;
    inbox_.entries_.push_back(
        {shared_from_this(), std::string(reinterpret_cast<const char*>(message.data()),
                                         message.size())});
    inbox_.unread_.store(inbox_.entries_.size(), std::memory_order_release);
  }
  inbox_.arrived_.notify_all();
  return Status::Ok();
}

void NotificationInbox::Sink::Bind(PeerId peer) {
  {
    std::lock_guard lock(inbox_.mu_);
    peer_ = peer;
  }
  inbox_.arrived_.notify_all();
}

bool NotificationInbox::Matches(const Entry& entry, PeerId from) {
  return entry.from->peer_ != 0 && (from == 0 || entry.from->peer_ == from);
}

bool NotificationInbox::AnyMatchLocked(PeerId from) const {
  return std::any_of(entries_.begin(), entries_.end(),
                     [from](const Entry& e) { return Matches(e, from); });
}

std::vector<Notification> NotificationInbox::Take(std::chrono::nanoseconds timeout, PeerId from) {
  if (timeout <= std::chrono::nanoseconds(0) && unread_.load(std::memory_order_acquire) == 0) {
    return {};
  }
  std::unique_lock lock(mu_);
  // A poll (timeout 0) must not reach the condition variable: its wait
  // enters the kernel even with nothing to wait for.
  if (timeout > std::chrono::nanoseconds(0)) {
    arrived_.wait_for(lock, timeout, [&] { return AnyMatchLocked(from); });
  }
  std::vector<Notification> taken;
  // Stable: what stays keeps its order, and so does what is taken.
  auto keep = std::stable_partition(entries_.begin(), entries_.end(),
                                    [from](const Entry& e) { return !Matches(e, from); });
  for (auto it = keep; it != entries_.end(); ++it) {
    it->from->queued_ -= std::min(it->from->queued_, Charge(it->message.size()));
    taken.push_back({it->from->peer_, it->from->peer_name_, std::move(it->message)});
  }
  entries_.erase(keep, entries_.end());
  unread_.store(entries_.size(), std::memory_order_release);
  return taken;
}

}  // namespace xfer::core
