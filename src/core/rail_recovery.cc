#include "core/rail_recovery.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>
#include <utility>

#include <fmt/format.h>

namespace xfer::core {
namespace {

// "XRL1", little-endian: the first four bytes of every message of ours.
constexpr uint32_t kMagic = 0x314c5258;
constexpr size_t kHeader = 12;  // magic, kind, rail, 2 reserved, attempt
// The largest message read off the control connection: a verbs setup
// message left over from a failed attempt is below it.
constexpr size_t kMaxSkipped = size_t{1} << 20;

void PutLe32(uint8_t* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out[i] = static_cast<uint8_t>(v >> (8 * i));
}

uint32_t GetLe32(const uint8_t* in) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= uint32_t{in[i]} << (8 * i);
  return v;
}

bool CarriesReason(RailMessage::Kind kind) {
  return kind == RailMessage::Kind::kRefuse || kind == RailMessage::Kind::kDown;
}

}  // namespace

std::vector<uint8_t> EncodeRailMessage(const RailMessage& message) {
  const std::string_view reason =
      CarriesReason(message.kind)
          ? std::string_view(message.reason).substr(0, RailMessage::kMaxReason)
          : std::string_view();
  std::vector<uint8_t> out(kHeader + reason.size());
  PutLe32(out.data(), kMagic);
  out[4] = static_cast<uint8_t>(message.kind);
  out[5] = static_cast<uint8_t>(message.rail);
  PutLe32(out.data() + 8, message.attempt);
  std::copy(reason.begin(), reason.end(), out.begin() + kHeader);
  return out;
}

Result<std::optional<RailMessage>> DecodeRailMessage(std::span<const uint8_t> bytes,
                                                     uint32_t rails) {
  if (bytes.size() < 4 || GetLe32(bytes.data()) != kMagic) return std::optional<RailMessage>();
  if (bytes.size() < kHeader) {
    return ProtocolError(fmt::format("rail recovery: a {}-byte message, below the {}-byte header",
                                     bytes.size(), kHeader));
  }
  RailMessage message;
  const uint8_t kind = bytes[4];
  if (kind < 1 || kind > 6) {
    return ProtocolError(fmt::format("rail recovery: unknown message kind {}", kind));
  }
  message.kind = static_cast<RailMessage::Kind>(kind);
  message.rail = bytes[5];
  if (message.rail >= rails) {
    return ProtocolError(fmt::format("rail recovery: the peer named rail {}; the connection has {}",
                                     message.rail, rails));
  }
  if (bytes[6] != 0 || bytes[7] != 0) {
    return ProtocolError("rail recovery: reserved bytes are not zero");
  }
  message.attempt = GetLe32(bytes.data() + 8);
  const size_t reason = bytes.size() - kHeader;
  if (reason != 0 && !CarriesReason(message.kind)) {
    return ProtocolError(fmt::format("rail recovery: a message of kind {} with {} trailing bytes",
                                     kind, reason));
  }
  if (reason > RailMessage::kMaxReason) {
    return ProtocolError(fmt::format("rail recovery: a {}-byte reason, above the {} allowed",
                                     reason, RailMessage::kMaxReason));
  }
  message.reason.assign(bytes.begin() + kHeader, bytes.end());
  return std::optional<RailMessage>(std::move(message));
}

Result<std::unique_ptr<RailRecovery>> RailRecovery::Start(Socket& control,
                                                          StripedEndpoint& striped, Paths paths,
                                                          Options options) {
  UniqueFd wake(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!wake.valid()) {
    return ResourceExhausted(fmt::format("rail recovery: eventfd: {}", std::strerror(errno)));
  }
  std::unique_ptr<RailRecovery> recovery(
      new RailRecovery(control, striped, std::move(paths), options, std::move(wake)));
  try {
    recovery->thread_ = std::thread([r = recovery.get()] { r->Loop(); });
  } catch (const std::system_error& e) {
    return ResourceExhausted(fmt::format("cannot start the rails' return thread: {}", e.what()));
  }
  return recovery;
}

RailRecovery::RailRecovery(Socket& control, StripedEndpoint& striped, Paths paths,
                           Options options, UniqueFd wake)
    : control_(control),
      striped_(striped),
      paths_(std::move(paths)),
      options_(options),
      rails_(striped.rails(), RailState(options)),
      wake_(std::move(wake)) {}

RailRecovery::~RailRecovery() { Stop(); }

void RailRecovery::Stop() {
  if (!stopping_.exchange(true)) control_.Shutdown();
  if (thread_.joinable()) thread_.join();
}

void RailRecovery::EndFences() {
  std::lock_guard lock(fence_mu_);
  over_ = true;
  fence_cv_.notify_all();
}

std::string RailRecovery::Ended() const {
  std::lock_guard lock(ended_mu_);
  return ended_;
}

Status RailRecovery::Fence(uint32_t rail, Deadline deadline) {
  std::unique_lock lock(fence_mu_);
  if (over_) return ConnectionLost(fmt::format("no fence of rail {}: the rails' recovery ended", rail));
  const uint32_t id = ++fences_;
  to_send_.emplace_back(id, rail);
  const uint64_t one = 1;
  (void)::write(wake_.get(), &one, sizeof(one));  // a full counter is awake already
  auto answered = [&] {
    return over_ || std::find(answered_.begin(), answered_.end(), id) != answered_.end();
  };
  while (!answered() && !deadline.expired()) {
    const int ms = deadline.remaining_ms();
    if (ms < 0) {
      fence_cv_.wait(lock);
    } else {
      fence_cv_.wait_for(lock, std::chrono::milliseconds(ms));
    }
  }
  std::erase_if(to_send_, [&](const auto& request) { return request.first == id; });
  if (std::erase(answered_, id) != 0) return Status::Ok();
  if (over_) return ConnectionLost(fmt::format("no fence of rail {}: the rails' recovery ended", rail));
  return Timeout(fmt::format(
      "the peer did not confirm within the deadline that it abandoned its end of rail {}", rail));
}

void RailRecovery::Answered(uint32_t id) {
  std::lock_guard lock(fence_mu_);
  answered_.push_back(id);
  fence_cv_.notify_all();
}

void RailRecovery::Loop() {
  // How often down rails are looked for while the peer says nothing.
  constexpr std::chrono::milliseconds kLook{50};
  Status status;
  while (!stopping_.load() && status.ok()) {
    status = SendFences();
    if (!status.ok()) break;
    auto message = Receive(kLook);
    if (!message.ok()) {
      status = message.status();
      break;
    }
    if (message->has_value()) {
      const RailMessage& m = **message;
      status = !options_.initiator && m.kind == RailMessage::Kind::kRejoin ? Serve(m)
                                                                           : OnPeerMessage(m);
      if (!status.ok()) break;
    }
    NoteProgress();
    status = options_.initiator ? TryDownRails() : ReportDownRails();
  }
  {
    std::lock_guard lock(ended_mu_);
    if (!stopping_.load()) ended_ = status.ToString();
  }
  std::lock_guard lock(fence_mu_);
  over_ = true;
  fence_cv_.notify_all();
}

Result<std::optional<RailMessage>> RailRecovery::Receive(std::chrono::milliseconds wait) {
  for (;;) {
    pollfd fds[2] = {{control_.fd(), POLLIN, 0}, {wake_.get(), POLLIN, 0}};
    const int ready = ::poll(fds, 2, static_cast<int>(wait.count()));
    if (ready < 0 && errno != EINTR) {
      return IoError(fmt::format("rail recovery: poll: {}", std::strerror(errno)));
    }
    if (ready <= 0) return std::optional<RailMessage>();
    if ((fds[1].revents & POLLIN) != 0) {
      uint64_t count = 0;
      (void)::read(wake_.get(), &count, sizeof(count));
    }
    if (fds[0].revents == 0) return std::optional<RailMessage>();  // a fence to send
    auto bytes =
        control_.RecvMessage(kMaxSkipped, Deadline::After(options_.attempt_timeout));
    if (!bytes.ok()) return bytes.status();
    auto message = DecodeRailMessage(*bytes, static_cast<uint32_t>(rails_.size()));
    if (!message.ok() || message->has_value()) return message;
    // Not ours: left over from a setup that failed part way. Skipped.
  }
}

Status RailRecovery::Send(const RailMessage& message) {
  return control_.SendMessage(EncodeRailMessage(message),
                              Deadline::After(options_.attempt_timeout));
}

Status RailRecovery::SendFences() {
  std::vector<std::pair<uint32_t, uint32_t>> requests;
  {
    std::lock_guard lock(fence_mu_);
    requests.swap(to_send_);
  }
  for (const auto& [id, rail] : requests) {
    XFER_RETURN_IF_ERROR(Send({RailMessage::Kind::kFence, rail, id, {}}));
    awaiting_.push_back(id);
  }
  return Status::Ok();
}

Status RailRecovery::OnPeerMessage(const RailMessage& message) {
  switch (message.kind) {
    case RailMessage::Kind::kDown:
      if (options_.initiator && striped_.Stats(message.rail).up) {
        striped_.Leave(message.rail,
                       ConnectionLost(fmt::format("the peer lost the rail: {}", message.reason)));
      }
      return Status::Ok();
    case RailMessage::Kind::kFence:
      // Abandoned, its receiving threads joined: nothing more it received
      // lands, whatever the rail's state here was.
      striped_.Leave(message.rail,
                     ConnectionLost("the peer fenced the rail, to deal the WRITEs it failed "
                                    "again elsewhere"));
      return Send({RailMessage::Kind::kFenced, message.rail, message.attempt, {}});
    case RailMessage::Kind::kFenced:
      if (std::erase(awaiting_, message.attempt) != 0) Answered(message.attempt);
      return Status::Ok();
    default:
      // A late answer to nothing this side is waiting for: skipped.
      return Status::Ok();
  }
}

void RailRecovery::NoteProgress() {
  for (uint32_t r = 0; r < rails_.size(); ++r) {
    RailState& rail = rails_[r];
    if (!rail.slices_at_return.has_value()) continue;
    const RailStriper::RailStats stats = striped_.Stats(r);
    if (!stats.up) {
      rail.slices_at_return.reset();  // down again before it carried any
    } else if (stats.slices > *rail.slices_at_return) {
      rail.backoff.Succeeded();
      rail.slices_at_return.reset();
    }
  }
}

Status RailRecovery::TryDownRails() {
  const Clock::time_point now = Clock::now();
  for (uint32_t r = 0; r < rails_.size() && !stopping_.load(); ++r) {
    RailState& rail = rails_[r];
    if (striped_.Stats(r).up || rail.given_up) {
      rail.scheduled = false;
      continue;
    }
    if (!rail.scheduled) {
      rail.next_attempt = now + rail.backoff.Next();
      rail.scheduled = true;
      continue;
    }
    // Not while its failed WRITEs wait for their fence, which this thread
    // sends between attempts: Rejoin would wait for them in vain.
    if (now < rail.next_attempt || striped_.PendingRetries(r) != 0) continue;
    XFER_RETURN_IF_ERROR(Attempt(r));
  }
  return Status::Ok();
}

Status RailRecovery::Attempt(uint32_t r) {
  RailState& rail = rails_[r];
  rail.scheduled = false;
  if (Status can = paths_.check(r); !can.ok()) {
    GiveUp(r, can.message());
    return Status::Ok();
  }
  const uint32_t attempt = ++attempts_;
  XFER_RETURN_IF_ERROR(Send({RailMessage::Kind::kRejoin, r, attempt, {}}));
  // The answer; the peer's reports, fences and answers to this side's
  // fences may come first. The peer may still be in its part of a setup
  // that failed here first, for up to an attempt's time, and waits for its
  // fences' answers: a request unanswered within two is a failed attempt.
  const Deadline answer_by = Deadline::After(2 * options_.attempt_timeout);
  for (;;) {
    if (answer_by.expired()) {
      rail.backoff.Failed();
      return Status::Ok();
    }
    auto message = Receive(std::chrono::milliseconds(answer_by.remaining_ms()));
    if (!message.ok()) return message.status();
    if (!message->has_value()) continue;
    const RailMessage& m = **message;
    if ((m.kind == RailMessage::Kind::kReady || m.kind == RailMessage::Kind::kRefuse) &&
        m.attempt == attempt && m.rail == r) {
      if (m.kind == RailMessage::Kind::kRefuse) {
        GiveUp(r, fmt::format("the peer cannot set it up again: {}", m.reason));
        return Status::Ok();
      }
      break;
    }
    XFER_RETURN_IF_ERROR(OnPeerMessage(m));
  }
  const Deadline deadline = Deadline::After(options_.attempt_timeout);
  const Status rejoined = striped_.Rejoin(
      r, [&] { return paths_.set_up(r, deadline); }, "rejoined: set up again with the peer",
      deadline);
  if (rejoined.ok()) {
    rail.slices_at_return = striped_.Stats(r).slices;
  } else {
    rail.backoff.Failed();
  }
  // A setup that failed part way may have left the peer waiting for the
  // rest until the deadline; it answers the next request after that.
  return Status::Ok();
}

void RailRecovery::GiveUp(uint32_t r, std::string_view why) {
  rails_[r].given_up = true;
  striped_.Remark(r, fmt::format("not brought back: {}; connect again to use it", why));
}

Status RailRecovery::ReportDownRails() {
  for (uint32_t r = 0; r < rails_.size(); ++r) {
    RailState& rail = rails_[r];
    const bool up = striped_.Stats(r).up;
    if (up) {
      rail.reported = false;
      continue;
    }
    if (rail.reported) continue;
    XFER_RETURN_IF_ERROR(Send({RailMessage::Kind::kDown, r, 0, striped_.Failure(r)}));
    rail.reported = true;
  }
  return Status::Ok();
}

Status RailRecovery::Serve(const RailMessage& rejoin) {
  const uint32_t r = rejoin.rail;
  if (Status can = paths_.check(r); !can.ok()) {
    return Send({RailMessage::Kind::kRefuse, r, rejoin.attempt, can.message()});
  }
  const Deadline deadline = Deadline::After(options_.attempt_timeout);
  if (striped_.Stats(r).up) {
    striped_.Leave(r, ConnectionLost("the peer is setting the rail up again"));
  }
  rails_[r].reported = true;  // the initiator knows: it asked
  // This side's fences answered first: once kReady is out, the initiator
  // sets up, and an answer to them would land in its setup's messages.
  // (The initiator answers them while it waits for kReady.)
  XFER_RETURN_IF_ERROR(SendFences());
  const Deadline answers_by = Deadline::After(2 * options_.attempt_timeout);
  while (!awaiting_.empty() && !answers_by.expired()) {
    auto message = Receive(std::chrono::milliseconds(answers_by.remaining_ms()));
    if (!message.ok()) return message.status();
    if (message->has_value()) XFER_RETURN_IF_ERROR(OnPeerMessage(**message));
  }
  awaiting_.clear();  // unanswered: their Fence calls time out
  XFER_RETURN_IF_ERROR(Send({RailMessage::Kind::kReady, r, rejoin.attempt, {}}));
  const Status rejoined = striped_.Rejoin(
      r, [&] { return paths_.set_up(r, deadline); }, "rejoined: set up again at the peer's request",
      deadline);
  (void)rejoined;  // the initiator asks again after its backoff
  return Status::Ok();
}

}  // namespace xfer::core
