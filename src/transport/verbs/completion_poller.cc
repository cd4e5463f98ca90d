#include "transport/verbs/completion_poller.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <optional>

#include "common/clock.h"
#include "transport/verbs/completion_status.h"

namespace xfer::transport::verbs {
namespace {

// How long the thread keeps polling after the last completion before it
// arms the channel and sleeps (see completion_poller.h).
constexpr uint64_t kSpinWindowNs = 20'000;
// Completions reaped per ibv_poll_cq call.
constexpr int kPollBatch = 32;
// The longest the thread waits for flush completions once closed.
constexpr auto kMaxGrace = std::chrono::milliseconds(1000);

void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

uint64_t ToNs(std::chrono::milliseconds ms) {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(ms).count());
}

}  // namespace

CompletionPoller::CompletionPoller(ibv_context* context, ibv_cq* cq, ibv_comp_channel* channel,
                                   std::chrono::milliseconds io_timeout, Sink& sink)
    : context_(context), cq_(cq), channel_(channel), io_timeout_(io_timeout), sink_(sink) {}

Result<std::unique_ptr<CompletionPoller>> CompletionPoller::Create(
    ibv_context* context, ibv_cq* cq, ibv_comp_channel* channel, int control_fd,
    std::chrono::milliseconds io_timeout, Sink& sink) {
  std::unique_ptr<CompletionPoller> poller(
      new CompletionPoller(context, cq, channel, io_timeout, sink));
  poller->wake_fd_ = UniqueFd(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!poller->wake_fd_.valid()) return IoError(ErrnoMessage("verbs: eventfd", errno));
  // Non-blocking, so that a spurious readiness never blocks the thread in
  // ibv_get_cq_event or ibv_get_async_event.
  for (int fd : {channel->fd, context->async_fd}) {
    const int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0) {
      return IoError(ErrnoMessage("verbs: fcntl(O_NONBLOCK)", errno));
    }
  }
  if (control_fd >= 0) {
    poller->control_fd_ = UniqueFd(fcntl(control_fd, F_DUPFD_CLOEXEC, 0));
    if (!poller->control_fd_.valid()) return IoError(ErrnoMessage("verbs: dup(control)", errno));
  }
  return poller;
}

CompletionPoller::~CompletionPoller() { Join(); }

void CompletionPoller::Start() {
  thread_ = std::thread([this] { Run(); });
}

void CompletionPoller::Join() {
  if (thread_.joinable()) thread_.join();
}

void CompletionPoller::Wake() {
  const uint64_t one = 1;
  // Only fails when the counter would overflow: the thread is awake then.
  [[maybe_unused]] ssize_t written = write(wake_fd_.get(), &one, sizeof(one));
}

void CompletionPoller::HandleAsyncEvents() {
  ibv_async_event event{};
  while (ibv_get_async_event(context_, &event) == 0) {
    const ibv_event_type type = event.event_type;
    const bool on_qp = type == IBV_EVENT_QP_FATAL || type == IBV_EVENT_QP_REQ_ERR ||
                       type == IBV_EVENT_QP_ACCESS_ERR;
    const uint32_t qpn = on_qp ? event.element.qp->qp_num : 0;
    ibv_ack_async_event(&event);
    if (std::optional<Status> failure = AsyncEventFailure(type, qpn)) sink_.OnFatal(*failure);
  }
}

int CompletionPoller::PollOnce() {
  std::array<ibv_wc, kPollBatch> wcs;
  const int n = ibv_poll_cq(cq_, kPollBatch, wcs.data());
  for (int i = 0; i < n; ++i) sink_.OnCompletion(wcs[static_cast<size_t>(i)]);
  return n;
}

void CompletionPoller::Sleep(int timeout_ms) {
  std::array<pollfd, 4> fds{{{channel_->fd, POLLIN, 0},
                             {wake_fd_.get(), POLLIN, 0},
                             {control_fd_.valid() ? control_fd_.get() : -1, POLLRDHUP, 0},
                             {context_->async_fd, POLLIN, 0}}};
  const int ready = poll(fds.data(), fds.size(), timeout_ms);
  if (ready < 0 && errno != EINTR) {
    sink_.OnFatal(IoError(ErrnoMessage("verbs completion thread: poll", errno)));
    return;
  }
  if (ready <= 0) return;
  if (fds[0].revents != 0) {
    ibv_cq* cq = nullptr;
    void* context = nullptr;
    // Every event retrieved is acknowledged at once: ibv_destroy_cq waits
    // for unacknowledged ones.
    while (ibv_get_cq_event(channel_, &cq, &context) == 0) ibv_ack_cq_events(cq, 1);
  }
  if (fds[1].revents != 0) {
    uint64_t count = 0;
    [[maybe_unused]] ssize_t got = read(wake_fd_.get(), &count, sizeof(count));
  }
  if (fds[3].revents != 0) HandleAsyncEvents();
  if (fds[2].revents != 0) {
    // POLLRDHUP/POLLHUP/POLLERR: the peer's end of the control connection
    // is gone. Nothing is ever sent on it after setup, so this is the
    // peer's process exiting or its engine disconnecting.
    control_fd_.reset();
    sink_.OnFatal(ConnectionLost(
        "verbs: the peer closed the control connection (its process exited or it disconnected)"));
  }
}

void CompletionPoller::Run() {
  const auto tick = std::clamp<int64_t>(io_timeout_.count() / 4, 5, 250);
  const uint64_t tick_ns = static_cast<uint64_t>(tick) * 1'000'000;
  uint64_t next_tick_ns = NowNs() + tick_ns;
  uint64_t last_completion_ns = NowNs();
  bool armed = false;
  while (!sink_.Closed()) {
    const int n = PollOnce();
    uint64_t now = NowNs();
    if (n < 0) {
      sink_.OnFatal(IoError("verbs completion thread: ibv_poll_cq failed"));
      break;
    }
    if (n > 0) {
      last_completion_ns = now;
    } else if (now - last_completion_ns < kSpinWindowNs) {
      CpuRelax();
    } else if (!armed) {
      // Armed, then polled once more before sleeping: a completion that
      // landed between the last poll and the arming raises no event.
      if (ibv_req_notify_cq(cq_, 0) != 0) {
        sink_.OnFatal(IoError("verbs completion thread: ibv_req_notify_cq failed"));
        break;
      }
      armed = true;
      continue;
    } else {
      const auto wait_ms = next_tick_ns > now ? (next_tick_ns - now) / 1'000'000 + 1 : 0;
      Sleep(static_cast<int>(wait_ms));
      // Whatever woke us, poll and re-arm: an event disarms the CQ, and
      // re-arming an armed CQ is harmless.
      armed = false;
      now = NowNs();
    }
    if (now >= next_tick_ns) {
      sink_.OnTick(now);
      next_tick_ns = now + tick_ns;
    }
  }
  // Closed: the QPs are in ERROR, so every posted WR flushes promptly.
  const uint64_t grace_end = NowNs() + ToNs(std::min(io_timeout_, kMaxGrace));
  while (!sink_.Quiesced() && NowNs() < grace_end) {
    const int n = PollOnce();
    if (n < 0) break;
    if (n == 0) Sleep(1);
  }
  sink_.Stopped();
}

}  // namespace xfer::transport::verbs
