// The transports' side of TransferRequest: arm it when work is posted, report
// each finished part. Internal to libxfer.
#ifndef XFER_COMMON_REQUEST_ACCESS_H_
#define XFER_COMMON_REQUEST_ACCESS_H_

#include <cstddef>
#include <cstdint>
#include <mutex>

#include "xfer/transfer.h"

namespace xfer::internal {

// Something that must learn of a request's completion before its owner
// can (a deadline that must stop touching the request once it is done).
class CompletionWatch {
 public:
  // Called once, by the thread completing the request, before the request
  // is published as done: the request is still valid during the call.
  virtual void Finished() = 0;

 protected:
  ~CompletionWatch() = default;
};

class RequestAccess {
 public:
  // True when `request` is in flight (and so must not be submitted again).
  static bool InFlight(const TransferRequest& request) {
    return TransferRequest::InFlight(request.state_.load(std::memory_order_acquire));
  }

  // Marks the request in flight with `parts` parts still to finish.
  // REQUIRES: parts > 0, and the request is not in flight or is held
  // (Hold): a held request takes the parts on top of the hold, so that
  // several posts, to one transport or more, complete one request.
  static void Start(TransferRequest& request, uint32_t parts);

  // Puts a request in flight with one part of its own, the hold, so that
  // the posts that follow (each Start()ing it) cannot complete it before
  // the caller has posted them all. End the hold with Release once every
  // post went in, or with Abandon when none did.
  // REQUIRES: the request is not in flight.
  static void Hold(TransferRequest& request);
  // Finishes the hold's part with `status` (the error, if any, of a post
  // that failed after others went in): the request completes once every
  // posted part has too.
  static void Release(TransferRequest& request, const Status& status) {
    FinishPart(request, status, 0);
  }
  // Undoes a hold no post joined: the request is idle again, untouched.
  // REQUIRES: every post since Hold failed (none Start()ed the request).
  static void Abandon(TransferRequest& request);

  // Reports one finished part that moved `bytes`. The first non-OK status
  // becomes the request's final status. The last part to finish completes
  // the request (release store: its data is visible to whoever sees done()).
  static void FinishPart(TransferRequest& request, const Status& status, size_t bytes);

  // Installs `watch` on a request not in flight, before it is posted.
  static void Watch(TransferRequest& request, CompletionWatch* watch) {
    request.watch_.store(watch, std::memory_order_release);
  }
  // Removes it again, when the post failed (the request stays untouched).
  static void Unwatch(TransferRequest& request) {
    request.watch_.store(nullptr, std::memory_order_release);
  }
  // Makes `status` the request's final status unless a part already
  // failed, without finishing a part: cancellation, decided while parts
  // are still under way. REQUIRES: the caller knows the request is alive
  // (in flight, or owned by the caller).
  static void Preempt(TransferRequest& request, const Status& status);

  // What the request's finished parts came to so far: the first failure
  // (OK when none failed) and the bytes moved. For a CompletionWatch, in
  // Finished(), where they are the request's final ones.
  static Status PartsStatus(const TransferRequest& request) {
    if (!request.failed_.load(std::memory_order_acquire)) return Status::Ok();
    std::lock_guard lock(request.error_mu_);
    return request.error_;
  }
  static size_t PartsBytes(const TransferRequest& request) {
    return request.bytes_.load(std::memory_order_acquire);
  }

  // Finishes a request started with one part: no read-modify-write on the
  // success path, since nobody else can be finishing it (a held request,
  // whose hold is another part, takes FinishPart's path).
  static void Complete(TransferRequest& request, const Status& status, size_t bytes);

 private:
  // The final store, and the wake-up of threads asleep in Wait().
  static void MarkDone(TransferRequest& request);
};

}  // namespace xfer::internal

#endif  // XFER_COMMON_REQUEST_ACCESS_H_
