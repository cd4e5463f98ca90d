// The one thread per verbs endpoint that reaps completions and notices a
// dead or silent peer.
//
// Waiting: after each completion the thread keeps polling the CQ for
// kSpinWindow (20 us), so that a stream of completions (a bandwidth run, a
// latency ping-pong) costs no wake-ups; then it arms the CQ's completion
// channel and sleeps in poll(2) on it, together with a wake-up eventfd, the
// device context's async-event descriptor and the control socket. An idle connection therefore burns no CPU: the thread
// wakes only for a completion, a Wake(), the peer closing the control
// socket, or the periodic tick (io_timeout / 4, clamped to 5..250 ms) that
// runs the timeout checks. The price is one interrupt-driven wake-up for
// the first completion after an idle spell.
//
// Async events: a QP or CQ error, a fatal device error or a port going
// down (ibv_get_async_event) fails the connection with a message naming
// the event; other events are acknowledged and ignored.
//
// Stopping: once the Sink reports the connection closed, the thread keeps
// reaping for a grace period (up to 1 s) until the Sink says no posted WR
// awaits a completion (the QPs are in ERROR, so they flush), then calls
// Sink::Stopped and exits.
#ifndef XFER_TRANSPORT_VERBS_COMPLETION_POLLER_H_
#define XFER_TRANSPORT_VERBS_COMPLETION_POLLER_H_

#include <infiniband/verbs.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <thread>

#include "common/socket.h"
#include "xfer/status.h"

namespace xfer::transport::verbs {

class CompletionPoller {
 public:
  // What the thread drives. Every call comes from the poller thread.
  class Sink {
   public:
    virtual ~Sink() = default;
    virtual void OnCompletion(const ibv_wc& wc) = 0;
    // Periodic: timeout checks.
    virtual void OnTick(uint64_t now_ns) = 0;
    // The peer closed the control socket (its process died, or it
    // disconnected), an async event reported a broken QP, CQ, port or
    // device, or a system call of the thread failed.
    virtual void OnFatal(const Status& reason) = 0;
    virtual bool Closed() const = 0;
    // No posted WR awaits a completion.
    virtual bool Quiesced() const = 0;
    // The thread's last call: finish whatever is still in flight.
    virtual void Stopped() = 0;
  };

  // Prepares (does not start) the thread. `cq` must have been created on
  // `channel` of `context`, whose async events this endpoint owns (it
  // opened the context for itself); `control_fd` is watched for the peer
  // hanging up (-1: none; the poller dups it). Errors: kIoError (eventfd,
  // fcntl, dup).
  static Result<std::unique_ptr<CompletionPoller>> Create(ibv_context* context, ibv_cq* cq,
                                                          ibv_comp_channel* channel,
                                                          int control_fd,
                                                          std::chrono::milliseconds io_timeout,
                                                          Sink& sink);
  ~CompletionPoller();  // Join()
  CompletionPoller(const CompletionPoller&) = delete;
  CompletionPoller& operator=(const CompletionPoller&) = delete;

  // Starts the thread. Call once.
  void Start();
  // Wakes the thread if it sleeps (call after the Sink's state changed).
  // Thread-safe, async-signal-safe.
  void Wake();
  // Waits for the thread to exit (it does once the Sink is closed and the
  // grace period is over). Idempotent. REQUIRES: not on the thread itself.
  void Join();

  // Handles the async events pending now, without waiting. Called by the
  // thread when the descriptor is readable, and by the Sink (on the thread)
  // before it blames a flushed completion: a flush follows the event that
  // broke the QP, whose reason is the better one.
  void HandleAsyncEvents();

 private:
  CompletionPoller(ibv_context* context, ibv_cq* cq, ibv_comp_channel* channel,
                   std::chrono::milliseconds io_timeout, Sink& sink);
  void Run();
  // Polls the CQ once, dispatching what it returns. -1 on failure.
  int PollOnce();
  // Sleeps until an event, a Wake() or `timeout_ms`; consumes what woke it.
  void Sleep(int timeout_ms);

  ibv_context* const context_;
  ibv_cq* const cq_;
  ibv_comp_channel* const channel_;
  const std::chrono::milliseconds io_timeout_;
  Sink& sink_;
  UniqueFd wake_fd_;     // eventfd
  UniqueFd control_fd_;  // our dup of the control socket; reset once it hung up
  std::thread thread_;
};

}  // namespace xfer::transport::verbs

#endif  // XFER_TRANSPORT_VERBS_COMPLETION_POLLER_H_
