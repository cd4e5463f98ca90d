// Per-request deadlines (SubmitOptions::timeout): one thread per engine,
// started by the first request that has a deadline, that ends the
// requests still in flight when their deadline passes.
//
// A watched request is told apart from its owner's reuse of the memory by
// a CompletionWatch (request_access.h): the request's completion calls
// Finished() before publishing it, so the watcher touches the request only
// while it is certainly in flight, under the entry's lock.
#ifndef XFER_CORE_DEADLINE_WATCHER_H_
#define XFER_CORE_DEADLINE_WATCHER_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <queue>
#include <thread>
#include <vector>

#include "common/request_access.h"
#include "xfer/engine.h"

namespace xfer::core {

class DeadlineWatcher {
 public:
  // Ends one expired request, called on the watcher's thread. `request` is
  // in flight for the length of the call, and must not be used after it;
  // the call may complete it (the watch then sees Finished() on this very
  // thread) but must not wait for it to complete. Returns true when only
  // closing the connection can end it: `close` then runs, after the
  // request is let go of.
  using Expire = std::function<bool(PeerId peer, TransferRequest& request)>;
  using Close = std::function<void(PeerId peer)>;

  DeadlineWatcher(Expire expire, Close close);
  ~DeadlineWatcher();  // Stop(), then frees every entry
  DeadlineWatcher(const DeadlineWatcher&) = delete;
  DeadlineWatcher& operator=(const DeadlineWatcher&) = delete;

  // One watched submission: Arm() before posting, then Start() it once the
  // post succeeded or Cancel() it when the post failed. Errors (Arm):
  // kResourceExhausted when the watcher's thread cannot start.
  class Entry;
  Result<Entry*> Arm(TransferRequest& request, PeerId peer, std::chrono::nanoseconds timeout);
  void Start(Entry* entry);
  void Cancel(Entry* entry, TransferRequest& request);

  // Joins the thread. Entries stay allocated until destruction: the
  // requests they watch may still complete (and call Finished()) until the
  // engine has closed every connection.
  void Stop();

  // Entries held now, finished or not (for tests: memory stays bounded by
  // about twice the watched requests in flight).
  size_t held() const;

 private:
  void Loop();
  // Frees the entries whose request has finished and that no due item
  // still names: those past their deadline, and, once more than half of
  // what is held has finished early, every finished one (the due queue is
  // rebuilt without them). REQUIRES: mu_ held, on the watcher's thread.
  void Reap();

  const Expire expire_;
  const Close close_;
  mutable std::mutex mu_;
  std::condition_variable wake_;
  struct Due {
    std::chrono::steady_clock::time_point at;
    Entry* entry;
    bool operator>(const Due& other) const { return at > other.at; }
  };
  std::priority_queue<Due, std::vector<Due>, std::greater<>> due_;  // GUARDED_BY(mu_)
  std::vector<std::unique_ptr<Entry>> entries_;                      // GUARDED_BY(mu_)
  bool stopping_ = false;                                            // GUARDED_BY(mu_)
  size_t compacted_at_ = 1024;  // GUARDED_BY(mu_): held entries that trigger a compaction
  std::thread thread_;  // GUARDED_BY(mu_) until joined: started by the first Arm
};

class DeadlineWatcher::Entry final : public internal::CompletionWatch {
 public:
  Entry(TransferRequest& request, PeerId peer, std::chrono::steady_clock::time_point at)
      : request_(&request), peer_(peer), at_(at) {}
  void Finished() override {
    std::lock_guard lock(mu_);
    request_ = nullptr;
  }

 private:
  friend class DeadlineWatcher;
  // Recursive: Expire may complete the request on the watcher's thread,
  // which then calls Finished() with the lock held.
  std::recursive_mutex mu_;
  TransferRequest* request_;  // GUARDED_BY(mu_); null once finished
  const PeerId peer_;
  const std::chrono::steady_clock::time_point at_;
  bool expired_ = false;  // the watcher's thread only
  bool dropped_ = false;  // the watcher's thread only: its due item was dropped by Reap()
};

}  // namespace xfer::core

#endif  // XFER_CORE_DEADLINE_WATCHER_H_
