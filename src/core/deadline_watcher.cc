#include "core/deadline_watcher.h"

#include <algorithm>
#include <string>
#include <system_error>

namespace xfer::core {
namespace {

// How often expired entries are looked at again until their request ends.
constexpr auto kReapPeriod = std::chrono::milliseconds(10);

}  // namespace

DeadlineWatcher::DeadlineWatcher(Expire expire, Close close)
    : expire_(std::move(expire)), close_(std::move(close)) {}

DeadlineWatcher::~DeadlineWatcher() { Stop(); }

void DeadlineWatcher::Stop() {
  std::thread thread;
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    thread = std::move(thread_);
  }
  wake_.notify_all();
  if (thread.joinable()) thread.join();
}

Result<DeadlineWatcher::Entry*> DeadlineWatcher::Arm(TransferRequest& request, PeerId peer,
                                                     std::chrono::nanoseconds timeout) {
  const auto at = std::chrono::steady_clock::now() +
                  std::chrono::duration_cast<std::chrono::steady_clock::duration>(timeout);
  auto entry = std::make_unique<Entry>(request, peer, at);
  Entry* raw = entry.get();
  {
    std::lock_guard lock(mu_);
    if (stopping_) return FailedPrecondition("the engine is shutting down");
    if (!thread_.joinable()) {
      try {
        thread_ = std::thread([this] { Loop(); });
      } catch (const std::system_error& e) {
        return ResourceExhausted(std::string("cannot start the deadline thread: ") + e.what());
      }
    }
    entries_.push_back(std::move(entry));
  }
  internal::RequestAccess::Watch(request, raw);
  return raw;
}

void DeadlineWatcher::Start(Entry* entry) {
  {
    std::lock_guard lock(mu_);
    due_.push({entry->at_, entry});
  }
  wake_.notify_all();
}

void DeadlineWatcher::Cancel(Entry* entry, TransferRequest& request) {
  internal::RequestAccess::Unwatch(request);
  std::lock_guard lock(mu_);
  std::erase_if(entries_, [entry](const auto& e) { return e.get() == entry; });
}

void DeadlineWatcher::Loop() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    const auto now = std::chrono::steady_clock::now();
    std::vector<Entry*> expired;
    while (!due_.empty() && due_.top().at <= now) {
      expired.push_back(due_.top().entry);
      due_.pop();
    }
    lock.unlock();
    for (Entry* entry : expired) {
      bool close = false;
      {
        std::lock_guard hold(entry->mu_);
        entry->expired_ = true;
        // In flight for as long as the entry's lock is held: its completion
        // waits in Finished().
        if (entry->request_ != nullptr) close = expire_(entry->peer_, *entry->request_);
      }
      // Without the lock: closing completes the request from the
      // transport's threads, which call Finished().
      if (close) close_(entry->peer_);
    }
    lock.lock();
    Reap();
    auto next = now + kReapPeriod;
    if (!due_.empty()) next = std::min(next, due_.top().at);
    wake_.wait_until(lock, next);
  }
}

size_t DeadlineWatcher::held() const {
  std::lock_guard lock(mu_);
  return entries_.size();
}

void DeadlineWatcher::Reap() {
  auto finished = [](Entry& e) {
    std::lock_guard hold(e.mu_);
    return e.request_ == nullptr;
  };
  // Past their deadline: no due item names them any more.
  std::erase_if(entries_, [&](const std::unique_ptr<Entry>& e) {
    return e->expired_ && finished(*e);
  });
  if (entries_.size() < compacted_at_) return;
  // Requests that met their deadline leave their entries behind until it
  // passes; when they pile up, drop them, due items and all.
  // Each entry is judged once, here: a request may finish between two looks,
  // and an entry freed must be one whose due item was dropped. Only entries
  // with a due item are judged: one armed and not yet started belongs to a
  // post under way on another thread, which will still Start() it.
  std::vector<Due> kept;
  kept.reserve(due_.size());
  while (!due_.empty()) {
    const Due due = due_.top();
    due_.pop();
    if (finished(*due.entry)) {
      due.entry->dropped_ = true;
    } else {
      kept.push_back(due);
    }
  }
  std::erase_if(entries_, [](const std::unique_ptr<Entry>& e) { return e->dropped_; });
  for (const Due& d : kept) due_.push(d);
  compacted_at_ = std::max<size_t>(1024, 2 * entries_.size());
}

}  // namespace xfer::core
