// A NotificationSink for transport tests: keeps what the peer sent, in
// arrival order, and can refuse as an engine with a full inbox does.
#ifndef XFER_TESTS_SUPPORT_RECORDING_SINK_H_
#define XFER_TESTS_SUPPORT_RECORDING_SINK_H_

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "transport/notification_sink.h"

namespace xfer::testing {

class RecordingSink final : public transport::NotificationSink {
 public:
  Status Deliver(std::span<const uint8_t> message) override {
    {
      std::lock_guard lock(mu_);
      if (refuse_) return ResourceExhausted("test sink: full");
      messages_.emplace_back(reinterpret_cast<const char*>(message.data()), message.size());
      if (inspect_) inspect_(messages_.back());
    }
    arrived_.notify_all();
    return Status::Ok();
  }

  // Everything received once at least `count` messages arrived, or when
  // `timeout` passed (then fewer).
  std::vector<std::string> WaitFor(size_t count, std::chrono::milliseconds timeout) {
    std::unique_lock lock(mu_);
    arrived_.wait_for(lock, timeout, [&] { return messages_.size() >= count; });
    return messages_;
  }

  std::vector<std::string> messages() const {
    std::lock_guard lock(mu_);
    return messages_;
  }

  // Called with each message as it is delivered, on the transport's
  // thread: to look at memory at the moment the notification arrives.
  void set_inspector(std::function<void(const std::string&)> inspect) {
    std::lock_guard lock(mu_);
    inspect_ = std::move(inspect);
  }

  // While set, Deliver refuses with kResourceExhausted.
  void set_refuse(bool refuse) {
    std::lock_guard lock(mu_);
    refuse_ = refuse;
  }

 private:
  mutable std::mutex mu_;
  std::condition_variable arrived_;
  std::vector<std::string> messages_;  // GUARDED_BY(mu_)
  bool refuse_ = false;                // GUARDED_BY(mu_)
  std::function<void(const std::string&)> inspect_;  // GUARDED_BY(mu_)
};

// For endpoints a test never sends notifications to. One per process; it
// outlives every endpoint.
inline RecordingSink& UnusedSink() {
  static RecordingSink sink;
  return sink;
}

}  // namespace xfer::testing

#endif  // XFER_TESTS_SUPPORT_RECORDING_SINK_H_
