// A fault-injecting wrapper around a real transport's endpoint: a test
// tool, as Mooncake TENT's, never a mock. Everything passes through to the
// wrapped endpoint until the rail "is lost": after a set number of posts,
// or when a test calls Lose() (a cable pulled while transfers run). How:
//  - kClose: the wrapped endpoint is closed, which fails what it has in
//    flight, as a dead link does. Its peer's end may still land bytes it
//    had received: a WRITE dealt again races them unless the rail is
//    fenced first (StripedEndpoint::SetFence; rail_recovery_test.cc), so
//    without a fence use it under READs.
//  - kRefuse: what is in flight completes; new posts fail.
//  - kStall: new posts are swallowed and never complete until Close() (a
//    silent failure no event announces).
// Lost, every post fails its request with kConnectionLost (or, stalled,
// keeps it), as a failed tcp socket or a verbs QP in error does.
// Short of a loss: a flaky rail fails one post in `fail_one_in` with
// kIoError (the rail otherwise whole), a slow one holds each post for
// `delay` before passing it on. A failure at connect is the setup's:
// rail_recovery_test.cc injects it there.
#ifndef XFER_TESTS_SUPPORT_FAULTY_ENDPOINT_H_
#define XFER_TESTS_SUPPORT_FAULTY_ENDPOINT_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <thread>
#include <utility>
#include <vector>

#include "common/request_access.h"
#include "transport/transport.h"

namespace xfer::testing {

class FaultyEndpoint final : public transport::Endpoint {
 public:
  enum class Loss { kClose, kRefuse, kStall };
  struct Faults {
    // The rail is lost at the post after this many (0: not by count).
    uint64_t lose_after_posts = 0;
    Loss loss = Loss::kClose;
    uint64_t fail_one_in = 0;             // 0: none
    std::chrono::microseconds delay{0};  // per post
  };

  FaultyEndpoint(std::unique_ptr<transport::Endpoint> inner, Faults faults)
      : inner_(std::move(inner)), faults_(faults) {}
  ~FaultyEndpoint() override { Close(); }

  // Loses the rail now, as a link going down would. Posts see the rail
  // lost once the loss is complete (kClose: the wrapped endpoint closed).
  void Lose() {
    std::lock_guard lock(lose_mu_);
    if (lost_.load()) return;
    if (faults_.loss == Loss::kClose) inner_->Close();
    lost_.store(true);
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
    FailStalled();
    inner_->Close();
  }
  void Abandon() override {
    FailStalled();
    inner_->Abandon();
  }

 private:
  void FailStalled() {
    std::vector<TransferRequest*> stalled;
    {
      std::lock_guard lock(mu_);
      stalled.swap(stalled_);
    }
    for (TransferRequest* request : stalled) {
      internal::RequestAccess::FinishPart(*request, ConnectionLost("injected: the rail stalled"), 0);
    }
  }

  // False: the post goes through. True: the rail is lost, and the request
  // was failed (or, on a stalled rail, kept) here; the post itself then
  // reports success, as a transport whose link died after accepting the
  // post would.
  bool Swallowed(TransferRequest& request) {
    const uint64_t n = posts_.fetch_add(1) + 1;
    if (faults_.lose_after_posts != 0 && n > faults_.lose_after_posts) Lose();
    if (!lost_.load() && faults_.fail_one_in != 0 && n % faults_.fail_one_in == 0) {
      internal::RequestAccess::Start(request, 1);
      internal::RequestAccess::FinishPart(request, IoError("injected: a flaky rail failed a post"),
                                          0);
      return true;
    }
    if (!lost_.load() && faults_.delay.count() > 0) std::this_thread::sleep_for(faults_.delay);
    if (!lost_.load()) return false;
    internal::RequestAccess::Start(request, 1);
    if (faults_.loss == Loss::kStall) {
      std::lock_guard lock(mu_);
      stalled_.push_back(&request);
    } else {
      internal::RequestAccess::FinishPart(request, ConnectionLost("injected: the rail is lost"), 0);
    }
    return true;
  }

  std::unique_ptr<transport::Endpoint> inner_;
  const Faults faults_;
  std::atomic<uint64_t> posts_{0};
  std::atomic<bool> lost_{false};
  std::mutex lose_mu_;  // one Lose() at a time; the others wait for it
  std::mutex mu_;
  std::vector<TransferRequest*> stalled_;  // GUARDED_BY(mu_)
};

}  // namespace xfer::testing

#endif  // XFER_TESTS_SUPPORT_FAULTY_ENDPOINT_H_
