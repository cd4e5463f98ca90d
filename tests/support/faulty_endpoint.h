// A fault-injecting wrapper around a real transport's endpoint: a test
// tool, as Mooncake TENT's, never a mock. Everything passes through to the
// wrapped endpoint until the rail "is lost": after a set number of posts,
// or when a test calls Lose() (a cable pulled while transfers run). From
// then on the wrapped endpoint is closed -- which fails what it has in
// flight, as a dead link does -- and every later post fails its request
// with kConnectionLost, as a failed tcp socket or a verbs QP in error
// does. A stalled rail instead swallows its posts and never completes them
// (a silent failure no event announces) until it is closed.
#ifndef XFER_TESTS_SUPPORT_FAULTY_ENDPOINT_H_
#define XFER_TESTS_SUPPORT_FAULTY_ENDPOINT_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <utility>
#include <vector>

#include "common/request_access.h"
#include "transport/transport.h"

namespace xfer::testing {

class FaultyEndpoint final : public transport::Endpoint {
 public:
  struct Faults {
    // The rail is lost at the post after this many (0: not by count).
    uint64_t lose_after_posts = 0;
    // Lost, WRITE/READ posts are swallowed instead of failed: they never
    // complete until Close() (a stalled rail).
    bool stall = false;
  };

  FaultyEndpoint(std::unique_ptr<transport::Endpoint> inner, Faults faults)
      : inner_(std::move(inner)), faults_(faults) {}
  ~FaultyEndpoint() override { Close(); }

  // The peer's end of the same rail, closed first when the rail is lost:
  // a link that dies with nothing of it still landing at the peer. (A real
  // one may still land bytes it carried; the engine does not fence a failed
  // rail yet, docs/rails.md.) Borrowed; outlives this wrapper's Lose().
  void AlsoClose(transport::Endpoint* peer_end) { peer_end_ = peer_end; }

  // Loses the rail now, as a link going down would.
  void Lose() {
    if (lost_.exchange(true)) return;
    if (faults_.stall) return;
    if (peer_end_ != nullptr) peer_end_->Close();
    inner_->Close();
  }
  bool lost() const { return lost_.load(); }
  uint64_t posts() const { return posts_.load(); }

  Status PostWrite(std::span<const TransferEntry> entries, TransferRequest& request,
                   uint32_t stream) override {
    if (Swallowed(request)) return Status::Ok();
    return inner_->PostWrite(entries, request, stream);
  }
  Status PostRead(std::span<const TransferEntry> entries, TransferRequest& request,
                  uint32_t stream) override {
    if (Swallowed(request)) return Status::Ok();
    return inner_->PostRead(entries, request, stream);
  }
  Status PostSend(const void* data, size_t length, TransferRequest& request,
                  uint32_t stream) override {
    if (Swallowed(request)) return Status::Ok();
    return inner_->PostSend(data, length, request, stream);
  }
  Status PostRecv(void* buffer, size_t capacity, TransferRequest& request) override {
    return inner_->PostRecv(buffer, capacity, request);
  }
  Status PostNotify(std::span<const uint8_t> message, TransferRequest& request,
                    uint32_t stream) override {
    if (Swallowed(request)) return Status::Ok();
    return inner_->PostNotify(message, request, stream);
  }
  Status Revoke(const transport::LocalRegionView& region, Deadline deadline) override {
    return inner_->Revoke(region, deadline);
  }
  void PollNotifications() override { inner_->PollNotifications(); }
  void AwaitNotifications() override { inner_->AwaitNotifications(); }
  void Close() override {
    std::vector<TransferRequest*> stalled;
    {
      std::lock_guard lock(mu_);
      stalled.swap(stalled_);
    }
    for (TransferRequest* request : stalled) {
      internal::RequestAccess::FinishPart(*request, ConnectionLost("injected: the rail stalled"), 0);
    }
    inner_->Close();
  }

 private:
  // False: the post goes through. True: the rail is lost, and the request
  // was failed (or, on a stalled rail, kept) here; the post itself then
  // reports success, as a transport whose link died after accepting the
  // post would.
  bool Swallowed(TransferRequest& request) {
    const uint64_t n = posts_.fetch_add(1) + 1;
    if (faults_.lose_after_posts != 0 && n > faults_.lose_after_posts) Lose();
    if (!lost_.load()) return false;
    internal::RequestAccess::Start(request, 1);
    if (faults_.stall) {
      std::lock_guard lock(mu_);
      stalled_.push_back(&request);
    } else {
      internal::RequestAccess::FinishPart(request, ConnectionLost("injected: the rail is lost"), 0);
    }
    return true;
  }

  std::unique_ptr<transport::Endpoint> inner_;
  const Faults faults_;
  transport::Endpoint* peer_end_ = nullptr;
  std::atomic<uint64_t> posts_{0};
  std::atomic<bool> lost_{false};
  std::mutex mu_;
  std::vector<TransferRequest*> stalled_;  // GUARDED_BY(mu_)
};

}  // namespace xfer::testing

#endif  // XFER_TESTS_SUPPORT_FAULTY_ENDPOINT_H_
