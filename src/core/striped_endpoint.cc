#include "core/striped_endpoint.h"

#include <algorithm>
#include <array>
#include <cassert>

#include <fmt/format.h>

namespace xfer::core {
namespace {

using internal::RequestAccess;

uint64_t TotalBytes(std::span<const TransferEntry> entries) {
  uint64_t bytes = 0;
  for (const TransferEntry& e : entries) bytes += e.length;
  return bytes;
}

// The bytes [offset, offset + length) of `entries`, in their order, as
// entries of their own, appended to `out`.
void Cut(std::span<const TransferEntry> entries, uint64_t offset, uint64_t length,
         std::vector<TransferEntry>& out) {
  uint64_t start = 0;  // of the current entry, in the request's bytes
  for (const TransferEntry& e : entries) {
    const uint64_t end = start + e.length;
    if (end > offset && start < offset + length) {
      const uint64_t from = std::max(offset, start) - start;
      const uint64_t to = std::min(offset + length, end) - start;
      out.push_back({static_cast<uint8_t*>(e.local) + from, e.remote + from, to - from});
    }
    start = end;
    if (start >= offset + length) break;
  }
}

}  // namespace

StripedEndpoint::StripedEndpoint(std::vector<Rail> rails, uint32_t streams,
                                 RailStriper::Options options)
    : rails_(std::move(rails)),
      striper_(
          [&] {
            std::vector<double> nominal;
            for (const Rail& rail : rails_) nominal.push_back(rail.nominal_bytes_per_sec);
            return nominal;
          }(),
          options),
      legs_(std::make_unique<Leg[]>(kLegs)),
      off_rail_zero_(std::make_unique<std::atomic<uint32_t>[]>(streams)) {
  assert(rails_.size() >= 2 && rails_.size() <= RailStriper::kMaxRails);
  for (size_t i = 0; i < kLegs; ++i) legs_[i].owner = this;
}

StripedEndpoint::~StripedEndpoint() { Close(); }

Status StripedEndpoint::PostWrite(std::span<const TransferEntry> entries,
                                  TransferRequest& request, uint32_t stream) {
  return Stripe(OpCode::kWrite, entries, request, stream);
}

Status StripedEndpoint::PostRead(std::span<const TransferEntry> entries, TransferRequest& request,
                                 uint32_t stream) {
  return Stripe(OpCode::kRead, entries, request, stream);
}

Status StripedEndpoint::Stripe(OpCode op, std::span<const TransferEntry> entries,
                               TransferRequest& request, uint32_t stream) {
  const uint64_t bytes = TotalBytes(entries);
  if (striper_.Direct(bytes)) {
    // A few bytes on rail 0, which carries the notifications: no leg, and
    // nothing for a notification to wait for on another rail.
    transport::Endpoint& zero = *rails_[0].endpoint;
    return op == OpCode::kWrite ? zero.PostWrite(entries, request, stream)
                                : zero.PostRead(entries, request, stream);
  }
  // Scratch of this thread's, reused: no allocation once it has grown.
  thread_local std::vector<RailStriper::Slice> slices;
  slices.clear();
  striper_.Deal(bytes, slices);
  if (slices.size() == 1) {
    Leg* leg = ClaimLeg();
    if (leg == nullptr) return NoLeg(slices);
    return PostLeg(*leg, slices[0].rail, op, entries, bytes, request, stream);
  }
  // A leg per slice, claimed before anything is posted: a request that
  // finds too few legs free is refused whole, untouched. Posted in the
  // order dealt, rail after rail: tcp's posts write into the socket and
  // wait while it is full, so slices that alternate keep every rail's
  // socket fed, where one rail's share in one post would leave the others
  // idle while it drains.
  thread_local std::vector<Leg*> legs;
  legs.clear();
  for (size_t i = 0; i < slices.size(); ++i) {
    Leg* leg = ClaimLeg();
    if (leg == nullptr) {
      for (Leg* claimed : legs) claimed->claimed.store(false, std::memory_order_release);
      return NoLeg(slices);
    }
    legs.push_back(leg);
  }
  thread_local std::vector<TransferEntry> pieces;
  // Held: the legs finishing first cannot complete the request before
  // every leg is posted.
  RequestAccess::Hold(request);
  Status failure;
  size_t posted = 0;
  for (size_t i = 0; i < slices.size(); ++i) {
    const RailStriper::Slice& slice = slices[i];
    if (!failure.ok()) {
      striper_.Completed(slice.rail, slice.length, {}, false);
      legs[i]->claimed.store(false, std::memory_order_release);
      continue;
    }
    pieces.clear();
    Cut(entries, slice.offset, slice.length, pieces);
    failure = PostLeg(*legs[i], slice.rail, op, pieces, slice.length, request, stream);
    if (failure.ok()) ++posted;
  }
  if (posted == 0) {
    RequestAccess::Abandon(request);
    return failure;
  }
  // Legs went out: the rest's failure (the transport's, its queue full or
  // the connection failing) is the request's.
  RequestAccess::Release(request, failure.WithContext("a slice of the request was not posted"));
  return Status::Ok();
}

Status StripedEndpoint::NoLeg(std::span<const RailStriper::Slice> slices) {
  for (const RailStriper::Slice& slice : slices) {
    striper_.Completed(slice.rail, slice.length, {}, false);
  }
  return ResourceExhausted(
      fmt::format("all {} legs a striped connection keeps in flight are in flight; retry", kLegs));
}

StripedEndpoint::Leg* StripedEndpoint::ClaimLeg() {
  const size_t start = next_leg_.fetch_add(1, std::memory_order_relaxed);
  for (size_t i = 0; i < kLegs; ++i) {
    Leg& leg = legs_[(start + i) % kLegs];
    bool free = false;
    if (leg.claimed.load(std::memory_order_relaxed) ||
        !leg.claimed.compare_exchange_strong(free, true, std::memory_order_acquire)) {
      continue;
    }
    // Let go of in Finished(), a moment before its request is published
    // done: wait out that moment.
    while (RequestAccess::InFlight(leg.request)) std::this_thread::yield();
    return &leg;
  }
  return nullptr;
}

Status StripedEndpoint::PostLeg(Leg& leg, uint32_t rail, OpCode op,
                                std::span<const TransferEntry> entries, uint64_t bytes,
                                TransferRequest& parent, uint32_t stream) {
  leg.parent = &parent;
  leg.rail = rail;
  leg.stream = stream;
  leg.bytes = bytes;
  // The parent's part for this leg; a held parent takes it on top.
  const bool held = RequestAccess::InFlight(parent);
  RequestAccess::Start(parent, 1);
  if (rail != 0) OffRailZero(stream).fetch_add(1, std::memory_order_relaxed);
  RequestAccess::Watch(leg.request, &leg);
  transport::Endpoint& endpoint = *rails_[rail].endpoint;
  Status posted = op == OpCode::kWrite ? endpoint.PostWrite(entries, leg.request, stream)
                                       : endpoint.PostRead(entries, leg.request, stream);
  if (posted.ok()) return posted;
  RequestAccess::Unwatch(leg.request);
  if (rail != 0) OffRailZero(stream).fetch_sub(1, std::memory_order_relaxed);
  striper_.Completed(rail, bytes, {}, false);
  // Take the part back: a part of a held request, or the request's only
  // one (it is then untouched again).
  if (held) {
    RequestAccess::FinishPart(parent, Status::Ok(), 0);
  } else {
    RequestAccess::Abandon(parent);
  }
  leg.claimed.store(false, std::memory_order_release);
  return posted;
}

void StripedEndpoint::Leg::Finished() { owner->LegFinished(*this); }

void StripedEndpoint::LegFinished(Leg& leg) {
  const Status status = RequestAccess::PartsStatus(leg.request);
  const size_t moved = RequestAccess::PartsBytes(leg.request);
  striper_.Completed(leg.rail, leg.bytes, RailStriper::Clock::now(), status.ok());
  TransferRequest& parent = *leg.parent;
  const uint32_t rail = leg.rail;
  const uint32_t stream = leg.stream;
  leg.claimed.store(false, std::memory_order_release);
  // The parent may complete here, and be gone after.
  RequestAccess::FinishPart(parent, status, moved);
  if (rail != 0 && OffRailZero(stream).fetch_sub(1, std::memory_order_acq_rel) == 1) {
    // The last leg of the stream off rail 0: a notification may wait on it.
    if (deferred_count_.load(std::memory_order_acquire) != 0) {
      std::lock_guard lock(notify_mu_);
      notify_cv_.notify_all();
    }
  }
}

Status StripedEndpoint::PostNotify(std::span<const uint8_t> message, TransferRequest& request,
                                   uint32_t stream) {
  std::unique_lock lock(notify_mu_);
  if (closed_) return ConnectionLost("the connection is closed");
  const bool behind = std::any_of(deferred_.begin(), deferred_.end(),
                                  [&](const Deferred& d) { return d.stream == stream; });
  if (!behind && OffRailZero(stream).load(std::memory_order_acquire) == 0) {
    lock.unlock();
    return rails_[0].endpoint->PostNotify(message, request, stream);
  }
  if (!notifier_.joinable()) {
    try {
      notifier_ = std::thread([this] { NotifierLoop(); });
    } catch (const std::system_error& e) {
      return ResourceExhausted(fmt::format("cannot start the notifier thread: {}", e.what()));
    }
  }
  // The request's part for the notification, finished when it is posted.
  RequestAccess::Start(request, 1);
  deferred_.push_back({std::vector<uint8_t>(message.begin(), message.end()), &request, stream});
  deferred_count_.store(deferred_.size(), std::memory_order_release);
  notify_cv_.notify_all();
  return Status::Ok();
}

void StripedEndpoint::NotifierLoop() {
  std::unique_lock lock(notify_mu_);
  while (!closed_) {
    PostDrained(lock);
    if (closed_) break;
    notify_cv_.wait(lock);
  }
}

void StripedEndpoint::PostDrained(std::unique_lock<std::mutex>& lock) {
  for (;;) {
    // The oldest notification whose stream has drained and that has no
    // older one of its stream ahead of it.
    auto ready = deferred_.end();
    for (auto it = deferred_.begin(); it != deferred_.end(); ++it) {
      const bool first_of_stream = std::none_of(
          deferred_.begin(), it, [&](const Deferred& d) { return d.stream == it->stream; });
      if (first_of_stream && OffRailZero(it->stream).load(std::memory_order_acquire) == 0) {
        ready = it;
        break;
      }
    }
    if (ready == deferred_.end()) return;
    Deferred notification = std::move(*ready);
    // Posted while still queued as the stream's first, so that a
    // PostNotify racing it queues behind: removed once it is posted.
    lock.unlock();
    // In flight with the part PostNotify gave it, which holds it: the
    // transport's part goes on top.
    TransferRequest& request = *notification.request;
    Status status;
    for (;;) {
      status = rails_[0].endpoint->PostNotify(notification.message, request, notification.stream);
      if (status.code() != StatusCode::kResourceExhausted) break;
      std::this_thread::yield();  // the rail's queue is full: it drains on its own
    }
    lock.lock();
    deferred_.erase(std::find_if(deferred_.begin(), deferred_.end(), [&](const Deferred& d) {
      return d.request == &request && d.stream == notification.stream;
    }));
    deferred_count_.store(deferred_.size(), std::memory_order_release);
    // Ours: the request completes once the transport's part has too (or
    // now, with the refusal, when there is none).
    RequestAccess::FinishPart(request, status, 0);
  }
}

Status StripedEndpoint::PostSend(const void* data, size_t length, TransferRequest& request,
                                 uint32_t stream) {
  return rails_[0].endpoint->PostSend(data, length, request, stream);
}

Status StripedEndpoint::PostRecv(void* buffer, size_t capacity, TransferRequest& request) {
  return rails_[0].endpoint->PostRecv(buffer, capacity, request);
}

Status StripedEndpoint::Revoke(const transport::LocalRegionView& region, Deadline deadline) {
  Status first;
  for (const Rail& rail : rails_) {
    Status status = rail.endpoint->Revoke(region, deadline);
    if (!status.ok() && first.ok()) first = status;
  }
  return first;
}

void StripedEndpoint::PollNotifications() {
  for (const Rail& rail : rails_) rail.endpoint->PollNotifications();
}

void StripedEndpoint::AwaitNotifications() {
  for (const Rail& rail : rails_) rail.endpoint->AwaitNotifications();
}

void StripedEndpoint::Close() {
  std::thread notifier;
  std::deque<Deferred> deferred;
  {
    std::lock_guard lock(notify_mu_);
    closed_ = true;
    notifier = std::move(notifier_);
    notify_cv_.notify_all();
  }
  if (notifier.joinable()) notifier.join();
  {
    std::lock_guard lock(notify_mu_);
    deferred.swap(deferred_);
    deferred_count_.store(0, std::memory_order_release);
  }
  for (const Deferred& d : deferred) {
    RequestAccess::FinishPart(*d.request, ConnectionLost("the connection closed before the "
                                                         "notification was sent"),
                              0);
  }
  // Every rail fails its legs in flight, which finish their parents.
  for (const Rail& rail : rails_) rail.endpoint->Close();
}

DeviceRegistration StripedEndpoint::registration() const {
  DeviceRegistration total;
  for (const Rail& rail : rails_) {
    const DeviceRegistration one = rail.endpoint->registration();
    total.bytes += one.bytes;
    total.memory_registrations += one.memory_registrations;
    total.duration += one.duration;
  }
  return total;
}

}  // namespace xfer::core
