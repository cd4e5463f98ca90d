#include "core/striped_endpoint.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <string>
#include <system_error>
#include <thread>

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

// Failures of the path, which another rail may not have: the link, the
// NIC, the socket. What the peer decided (a refused range, a revoked
// region) or the caller did (a cancel) would fail on every rail.
bool RailFailure(const Status& status) {
  switch (status.code()) {
    case StatusCode::kConnectionLost:
    case StatusCode::kIoError:
    case StatusCode::kTimeout:
      return true;
    default:
      return false;
  }
}

}  // namespace

StripedEndpoint::StripedEndpoint(std::vector<Rail> rails, uint32_t streams, Options options)
    : rail_count_(rails.size()),
      slots_(std::make_unique<Slot[]>(rails.size())),
      striper_(
          [&] {
            std::vector<double> nominal;
            for (const Rail& rail : rails) nominal.push_back(rail.nominal_bytes_per_sec);
            return nominal;
          }(),
          options.striper),
      legs_(std::make_unique<Leg[]>(kLegs)),
      max_retries_(options.max_retries),
      slice_timeout_(options.slice_timeout),
      watchdog_(rails.size()),
      legs_on_(std::make_unique<std::atomic<uint32_t>[]>(size_t{streams} *
                                                         RailStriper::kMaxRails)),
      failures_(rails.size()),
      events_(rails.size()),
      retried_bytes_(std::make_unique<std::atomic<uint64_t>[]>(rails.size())),
      downs_(std::make_unique<std::atomic<uint64_t>[]>(rails.size())),
      retrying_(std::make_unique<std::atomic<uint32_t>[]>(rails.size())),
      fenced_(rails.size(), 0) {
  assert(rail_count_ >= 2 && rail_count_ <= RailStriper::kMaxRails);
  for (size_t i = 0; i < kLegs; ++i) legs_[i].owner = this;
  for (size_t i = 0; i < rail_count_; ++i) {
    slots_[i].endpoint.store(rails[i].endpoint.get(), std::memory_order_relaxed);
    owned_.push_back(std::move(rails[i].endpoint));
  }
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
  if (!striper_.AnyUp()) return NoRailLeft("no rail is up");
  if (!watching_.load(std::memory_order_relaxed)) StartWatching();
  if (striper_.Direct(bytes)) {
    // A few bytes on rail 0, which carries the notifications: no leg, and
    // nothing for a notification to wait for on another rail.
    {
      const Use zero = On(0);
      Status posted = op == OpCode::kWrite ? zero->PostWrite(entries, request, stream)
                                           : zero->PostRead(entries, request, stream);
      if (posted.ok() || !RailFailure(posted)) return posted;
      // Rail 0 refused it as a dead link does: down, and the request is
      // dealt to the others below. (One it accepts and then fails is not
      // tracked, so not dealt again: tiny requests trade that for speed.)
      TakeDown(0, posted);
    }
    if (!striper_.AnyUp()) return NoRailLeft("no rail is up");
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
  leg.op = op;
  leg.entries.assign(entries.begin(), entries.end());
  leg.retries = 0;
  // The parent's part for this leg; a held parent takes it on top.
  const bool held = RequestAccess::InFlight(parent);
  RequestAccess::Start(parent, 1);
  LegsOn(stream, rail).fetch_add(1, std::memory_order_relaxed);
  const Status posted = PostOnRails(leg);
  if (posted.ok()) return posted;
  LegsOn(stream, leg.rail).fetch_sub(1, std::memory_order_relaxed);
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
  const RailStriper::Clock::time_point now = RailStriper::Clock::now();
  striper_.Completed(leg.rail, leg.bytes, now, status.ok());
  const bool rail_failed = !status.ok() && RailFailure(status);
  // Taken down before the leg leaves the rail's count: Rejoin, which
  // waits for that count to drain, never brings a rail back that a late
  // failure of its old endpoint then takes down.
  if (rail_failed) TakeDown(leg.rail, status);
  watchdog_.Finished(leg.rail, static_cast<uint64_t>(now.time_since_epoch().count()));
  if (rail_failed) {
    // Dealt again on the recovery thread: a transport's completion thread
    // must not post (a tcp post may wait for its own socket to drain).
    std::lock_guard lock(notify_mu_);
    if (!closed_) {
      if (Status started = StartWorker(); started.ok()) {
        retrying_[leg.rail].fetch_add(1, std::memory_order_relaxed);
        failed_.emplace_back(&leg, status);
        notify_cv_.notify_all();
        return;
      }
    }
  }
  EndLeg(leg, status, moved);
}

void StripedEndpoint::EndLeg(Leg& leg, const Status& status, size_t moved) {
  TransferRequest& parent = *leg.parent;
  const uint32_t rail = leg.rail;
  const uint32_t stream = leg.stream;
  leg.claimed.store(false, std::memory_order_release);
  // The parent may complete here, and be gone after.
  RequestAccess::FinishPart(parent, status, moved);
  if (LegsOn(stream, rail).fetch_sub(1, std::memory_order_acq_rel) == 1) {
    // The stream's last leg on this rail: a notification may wait on it.
    if (deferred_count_.load(std::memory_order_acquire) != 0) {
      std::lock_guard lock(notify_mu_);
      notify_cv_.notify_all();
    }
  }
}

void StripedEndpoint::FenceRail(uint32_t rail) {
  const uint64_t down = downs_[rail].load(std::memory_order_acquire);
  if (!fence_ || fenced_[rail] == down) return;
  fenced_[rail] = down;
  const Status fenced = fence_(rail, Deadline::After(fence_timeout_));
  if (!fenced.ok()) {
    Remark(rail, fmt::format("the WRITEs it failed were dealt again unfenced: {}",
                             fenced.ToString()));
  }
}

void StripedEndpoint::Retry(Leg& leg, const Status& failure) {
  const uint32_t failed_on = leg.rail;
  // A request cancelled or past its deadline (Engine::Cancel, Preempt), or
  // failed by another of its slices meanwhile, ends as it would have
  // without failover: nothing more of it is posted, and it completes once
  // its slices in flight have.
  if (!RequestAccess::PartsStatus(*leg.parent).ok()) {
    retrying_[failed_on].fetch_sub(1, std::memory_order_release);
    EndLeg(leg, failure, 0);
    return;
  }
  if (leg.op == OpCode::kWrite) FenceRail(failed_on);
  Status moved = MoveLeg(leg, failure);
  retrying_[failed_on].fetch_sub(1, std::memory_order_release);
  while (moved.ok()) {
    // Its last completion let go of it a moment before publishing it done.
    while (RequestAccess::InFlight(leg.request)) std::this_thread::yield();
    const Status posted = PostOnRails(leg);
    if (posted.ok()) return;
    if (posted.code() != StatusCode::kResourceExhausted) {
      moved = posted;
      break;
    }
    // The rail's queue is full. It drains on its own -- unless the rail has
    // gone silent, which this thread is the one to notice: a full queue on
    // a dead rail must not hold it here for good.
    LeaveSilentRails();
    std::this_thread::yield();
    moved = RequestAccess::PartsStatus(*leg.parent);
    if (moved.ok()) moved = Requeue(leg);
  }
  EndLeg(leg, moved, 0);
}

Status StripedEndpoint::Requeue(Leg& leg) {
  // No rail excepted: the one whose queue was full may be the best again.
  const int next = striper_.Redeal(leg.bytes, RailStriper::kMaxRails);
  if (next < 0) return NoRailLeft(fmt::format("a {}-byte slice was not posted", leg.bytes));
  const auto rail = static_cast<uint32_t>(next);
  if (rail != leg.rail) {
    LegsOn(leg.stream, rail).fetch_add(1, std::memory_order_relaxed);
    LegsOn(leg.stream, leg.rail).fetch_sub(1, std::memory_order_acq_rel);
    leg.rail = rail;
  }
  return Status::Ok();
}

Status StripedEndpoint::PostOnRails(Leg& leg) {
  for (;;) {
    RequestAccess::Watch(leg.request, &leg);
    Status posted;
    {
      const Use endpoint = On(leg.rail);
      watchdog_.Posted(leg.rail);
      posted = leg.op == OpCode::kWrite
                   ? endpoint->PostWrite(leg.entries, leg.request, leg.stream)
                   : endpoint->PostRead(leg.entries, leg.request, leg.stream);
      if (posted.ok()) return posted;
      RequestAccess::Unwatch(leg.request);
      striper_.Completed(leg.rail, leg.bytes, {}, false);
      // The rail refused the post as a dead link does.
      if (RailFailure(posted)) TakeDown(leg.rail, posted);
      watchdog_.Unposted(leg.rail);
    }
    if (!RailFailure(posted)) return posted;
    XFER_RETURN_IF_ERROR(MoveLeg(leg, posted));
  }
}

Status StripedEndpoint::MoveLeg(Leg& leg, const Status& failure) {
  if (leg.retries >= max_retries_) {
    return failure.WithContext(fmt::format("a slice failed {} times", leg.retries + 1));
  }
  const int next = striper_.Redeal(leg.bytes, leg.rail);
  if (next < 0) return NoRailLeft(fmt::format("a {}-byte slice failed", leg.bytes));
  const auto rail = static_cast<uint32_t>(next);
  ++leg.retries;
  retried_bytes_[leg.rail].fetch_add(leg.bytes, std::memory_order_relaxed);
  // Counted on the new rail before it leaves the old one, so that a
  // notification of its stream never sees it nowhere.
  LegsOn(leg.stream, rail).fetch_add(1, std::memory_order_relaxed);
  LegsOn(leg.stream, leg.rail).fetch_sub(1, std::memory_order_acq_rel);
  leg.rail = rail;
  return Status::Ok();
}

void StripedEndpoint::TakeDown(uint32_t rail, const Status& failure) {
  // Under the lock, as Rejoin brings it up: the state and the record agree.
  std::lock_guard lock(failures_mu_);
  if (failures_[rail].empty()) {
    failures_[rail] = failure.ToString();
    events_[rail].push_back({std::chrono::system_clock::now(), false, failures_[rail]});
    downs_[rail].fetch_add(1, std::memory_order_release);
  }
  striper_.SetUp(rail, false);
}

void StripedEndpoint::Leave(uint32_t rail, const Status& failure) {
  TakeDown(rail, failure);
  On(rail)->Abandon();
}

Status StripedEndpoint::Rejoin(uint32_t rail, const RailSetUp& set_up, std::string_view why,
                               Deadline deadline) {
  std::lock_guard rails_lock(rails_mu_);
  auto closed = [this] {
    std::lock_guard lock(notify_mu_);
    return closed_;
  };
  if (closed()) return FailedPrecondition("the connection is closed");
  if (striper_.Up(rail)) return FailedPrecondition(fmt::format("rail {} is up", rail));
  On(rail)->Abandon();
  // Set up first, whatever follows: the peer sets up its end now too, and
  // the two exchange their setup messages in step.
  auto fresh = set_up();
  if (!fresh.ok()) return fresh.status();
  std::unique_ptr<transport::Endpoint> endpoint = std::move(fresh.value());
  // The old endpoint's slices fail (Abandon) and leave the rail's count
  // (each after taking the rail down, LegFinished), then the recovery
  // thread's queue (after the fence, Retry): once both are empty, no late
  // failure of the old endpoint can take the fresh one down, nor a fence
  // abandon it.
  while (watchdog_.InFlight(rail) != 0 || retrying_[rail].load(std::memory_order_acquire) != 0) {
    if (deadline.expired()) {
      endpoint->Close();
      return Timeout(fmt::format(
          "rail {}: {} slices of its failed endpoint still in flight, {} to be dealt again", rail,
          watchdog_.InFlight(rail), retrying_[rail].load(std::memory_order_relaxed)));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  slots_[rail].endpoint.store(endpoint.get(), std::memory_order_seq_cst);
  // A thread that read the old endpoint before the swap may still be inside
  // a call to it (which its transport's timeouts bound): wait it out, then
  // destroy the old one.
  while (slots_[rail].users.load(std::memory_order_seq_cst) != 0) std::this_thread::yield();
  owned_[rail] = std::move(endpoint);
  // Close sets closed_ before it closes the rails: one that ran before the
  // swap closed the old endpoint only.
  if (closed()) {
    owned_[rail]->Close();
    return FailedPrecondition("the connection is closed");
  }
  std::lock_guard lock(failures_mu_);
  failures_[rail].clear();
  events_[rail].push_back({std::chrono::system_clock::now(), true, std::string(why)});
  striper_.SetUp(rail, true);
  return Status::Ok();
}

void StripedEndpoint::Remark(uint32_t rail, std::string reason) {
  std::lock_guard lock(failures_mu_);
  events_[rail].push_back({std::chrono::system_clock::now(), false, std::move(reason)});
}

std::string StripedEndpoint::Failure(uint32_t rail) const {
  std::lock_guard lock(failures_mu_);
  return failures_[rail];
}

std::vector<RailEvent> StripedEndpoint::Events(uint32_t rail) const {
  std::lock_guard lock(failures_mu_);
  return events_[rail];
}

Status StripedEndpoint::NoRailLeft(std::string_view what) const {
  std::string rails;
  std::lock_guard lock(failures_mu_);
  for (size_t i = 0; i < failures_.size(); ++i) {
    rails += fmt::format("{}rail {}: {}", i == 0 ? "" : "; ", i,
                         failures_[i].empty() ? std::string("up") : failures_[i]);
  }
  return ConnectionLost(fmt::format("{}, and no other rail is up ({})", what, rails));
}

uint32_t StripedEndpoint::LegsOffRail(uint32_t stream, uint32_t rail) {
  uint32_t legs = 0;
  for (uint32_t r = 0; r < rail_count_; ++r) {
    if (r != rail) legs += LegsOn(stream, r).load(std::memory_order_acquire);
  }
  return legs;
}

int StripedEndpoint::NotifyRail() {
  if (striper_.Up(static_cast<uint32_t>(notify_rail_))) return notify_rail_;
  for (uint32_t r = 0; r < rail_count_; ++r) {
    if (!striper_.Up(r)) continue;
    notify_rail_ = static_cast<int>(r);
    return notify_rail_;
  }
  return -1;
}

Status StripedEndpoint::StartWorker() {
  if (worker_.joinable()) return Status::Ok();
  try {
    worker_ = std::thread([this] { WorkerLoop(); });
  } catch (const std::system_error& e) {
    return ResourceExhausted(fmt::format("cannot start the rails' recovery thread: {}", e.what()));
  }
  return Status::Ok();
}

void StripedEndpoint::StartWatching() {
  if (slice_timeout_.count() <= 0) {
    watching_.store(true, std::memory_order_relaxed);  // nothing to watch
    return;
  }
  std::lock_guard lock(notify_mu_);
  if (closed_) return;
  // A thread that cannot start now is tried again at the next post.
  if (StartWorker().ok()) watching_.store(true, std::memory_order_relaxed);
}

void StripedEndpoint::LeaveSilentRails() {
  if (slice_timeout_.count() <= 0) return;
  const uint64_t timeout_ns = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(slice_timeout_).count());
  const uint64_t now = RailWatchdog::Now();
  for (uint32_t rail = 0; rail < rail_count_; ++rail) {
    if (!striper_.Up(rail) || !watchdog_.Silent(rail, now, timeout_ns)) continue;
    // Its endpoint fails what it has in flight, on this thread: each failed
    // slice queues itself for this thread to deal again. Abandoned, not
    // closed: what it still had queued must not reach the peer if the link
    // comes back, after those slices were dealt again.
    Leave(rail, Timeout(fmt::format(
                    "silent: slices in flight and none completed for {} ms (the slice "
                    "timeout is {} ms)",
                    watchdog_.SilentFor(rail, now) / 1'000'000, slice_timeout_.count())));
  }
}

Status StripedEndpoint::PostNotify(std::span<const uint8_t> message, TransferRequest& request,
                                   uint32_t stream) {
  std::unique_lock lock(notify_mu_);
  if (closed_) return ConnectionLost("the connection is closed");
  const int rail = NotifyRail();
  if (rail < 0) return NoRailLeft("the notification was not sent");
  const bool behind = std::any_of(deferred_.begin(), deferred_.end(),
                                  [&](const Deferred& d) { return d.stream == stream; });
  if (!behind && LegsOffRail(stream, static_cast<uint32_t>(rail)) == 0) {
    lock.unlock();
    return On(static_cast<uint32_t>(rail))->PostNotify(message, request, stream);
  }
  XFER_RETURN_IF_ERROR(StartWorker());
  // The request's part for the notification, finished when it is posted.
  RequestAccess::Start(request, 1);
  deferred_.push_back({std::vector<uint8_t>(message.begin(), message.end()), &request, stream});
  deferred_count_.store(deferred_.size(), std::memory_order_release);
  notify_cv_.notify_all();
  return Status::Ok();
}

void StripedEndpoint::WorkerLoop() {
  // How often silent rails are looked for: a quarter of the timeout, so
  // that one is left within 1.25 of it, and within 100 ms of it at most.
  const auto period = std::clamp<std::chrono::milliseconds>(
      slice_timeout_ / 4, std::chrono::milliseconds(1), std::chrono::milliseconds(100));
  std::unique_lock lock(notify_mu_);
  while (!closed_) {
    lock.unlock();
    LeaveSilentRails();
    lock.lock();
    while (!failed_.empty() && !closed_) {
      auto [leg, failure] = std::move(failed_.front());
      failed_.pop_front();
      lock.unlock();
      Retry(*leg, failure);
      lock.lock();
    }
    PostDrained(lock);
    if (closed_) break;
    if (!failed_.empty()) continue;
    if (slice_timeout_.count() > 0) {
      notify_cv_.wait_for(lock, period);
    } else {
      notify_cv_.wait(lock);
    }
  }
}

void StripedEndpoint::PostDrained(std::unique_lock<std::mutex>& lock) {
  for (;;) {
    const int rail = NotifyRail();
    // The oldest notification whose stream has drained off the rail it
    // goes on and that has no older one of its stream ahead of it.
    auto ready = deferred_.end();
    for (auto it = deferred_.begin(); it != deferred_.end(); ++it) {
      const bool first_of_stream = std::none_of(
          deferred_.begin(), it, [&](const Deferred& d) { return d.stream == it->stream; });
      if (first_of_stream &&
          (rail < 0 || LegsOffRail(it->stream, static_cast<uint32_t>(rail)) == 0)) {
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
    Status status = rail < 0 ? NoRailLeft("the notification was not sent") : Status::Ok();
    for (; rail >= 0;) {
      status = On(static_cast<uint32_t>(rail))
                   ->PostNotify(notification.message, request, notification.stream);
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
  if (!striper_.Up(0)) return MessagesLost();
  return On(0)->PostSend(data, length, request, stream);
}

Status StripedEndpoint::PostRecv(void* buffer, size_t capacity, TransferRequest& request) {
  if (!striper_.Up(0)) return MessagesLost();
  return On(0)->PostRecv(buffer, capacity, request);
}

Status StripedEndpoint::MessagesLost() const {
  return ConnectionLost(fmt::format(
      "rail 0, which alone carries messages (so that they fill receives in order), is down: {}",
      Failure(0)));
}

Status StripedEndpoint::Revoke(const transport::LocalRegionView& region, Deadline deadline) {
  Status first;
  std::lock_guard rails_lock(rails_mu_);
  for (uint32_t rail = 0; rail < rail_count_; ++rail) {
    Status status = On(rail)->Revoke(region, deadline);
    if (!status.ok() && first.ok()) first = status;
  }
  return first;
}

void StripedEndpoint::PollNotifications() {
  for (uint32_t rail = 0; rail < rail_count_; ++rail) On(rail)->PollNotifications();
}

void StripedEndpoint::AwaitNotifications() {
  for (uint32_t rail = 0; rail < rail_count_; ++rail) On(rail)->AwaitNotifications();
}

void StripedEndpoint::Close() {
  std::thread worker;
  std::deque<Deferred> deferred;
  std::deque<std::pair<Leg*, Status>> failed;
  {
    std::lock_guard lock(notify_mu_);
    closed_ = true;
    worker = std::move(worker_);
    notify_cv_.notify_all();
  }
  if (worker.joinable()) worker.join();
  {
    std::lock_guard lock(notify_mu_);
    deferred.swap(deferred_);
    failed.swap(failed_);
    deferred_count_.store(0, std::memory_order_release);
  }
  for (const Deferred& d : deferred) {
    RequestAccess::FinishPart(*d.request, ConnectionLost("the connection closed before the "
                                                         "notification was sent"),
                              0);
  }
  for (auto& [leg, failure] : failed) {
    retrying_[leg->rail].fetch_sub(1, std::memory_order_release);
    EndLeg(*leg, failure.WithContext("the connection closed before the slice was dealt again"),
           0);
  }
  // Every rail fails its legs in flight, which finish their parents (a
  // failure now is not dealt again: the recovery thread is gone).
  for (uint32_t rail = 0; rail < rail_count_; ++rail) On(rail)->Close();
}

DeviceRegistration StripedEndpoint::registration() const {
  DeviceRegistration total;
  for (uint32_t rail = 0; rail < rail_count_; ++rail) {
    const DeviceRegistration one = On(rail)->registration();
    total.bytes += one.bytes;
    total.memory_registrations += one.memory_registrations;
    total.duration += one.duration;
  }
  return total;
}

}  // namespace xfer::core
