#include "core/rail_recovery.h"

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
  if (kind < 1 || kind > 4) {
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
  std::unique_ptr<RailRecovery> recovery(
      new RailRecovery(control, striped, std::move(paths), options));
  try {
    recovery->thread_ = std::thread([r = recovery.get()] { r->Loop(); });
  } catch (const std::system_error& e) {
    return ResourceExhausted(fmt::format("cannot start the rails' return thread: {}", e.what()));
  }
  return recovery;
}

RailRecovery::RailRecovery(Socket& control, StripedEndpoint& striped, Paths paths,
                           Options options)
    : control_(control),
      striped_(striped),
      paths_(std::move(paths)),
      options_(options),
      rails_(striped.rails(), RailState(options)) {}

RailRecovery::~RailRecovery() { Stop(); }

void RailRecovery::Stop() {
  if (!stopping_.exchange(true)) control_.Shutdown();
  if (thread_.joinable()) thread_.join();
}

std::string RailRecovery::Ended() const {
  std::lock_guard lock(ended_mu_);
  return ended_;
}

void RailRecovery::Loop() {
  // How often down rails are looked for while the peer says nothing.
  constexpr std::chrono::milliseconds kLook{50};
  Status status;
  while (!stopping_.load() && status.ok()) {
    auto message = Receive(kLook);
    if (!message.ok()) {
      status = message.status();
      break;
    }
    if (message->has_value()) {
      const RailMessage& m = **message;
      if (options_.initiator) {
        OnPeerMessage(m);
      } else if (m.kind == RailMessage::Kind::kRejoin) {
        status = Serve(m);
      }
      // Anything else is a late answer to nothing this side is waiting
      // for: skipped.
      if (!status.ok()) break;
    }
    NoteProgress();
    status = options_.initiator ? TryDownRails() : ReportDownRails();
  }
  if (!stopping_.load()) {
    std::lock_guard lock(ended_mu_);
    ended_ = status.ToString();
  }
}

Result<std::optional<RailMessage>> RailRecovery::Receive(std::chrono::milliseconds wait) {
  for (;;) {
    uint8_t first = 0;
    const Status waiting = control_.PeekAll(&first, 1, Deadline::After(wait));
    if (waiting.code() == StatusCode::kTimeout) return std::optional<RailMessage>();
    XFER_RETURN_IF_ERROR(waiting);
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

void RailRecovery::OnPeerMessage(const RailMessage& message) {
  if (message.kind != RailMessage::Kind::kDown || !striped_.Stats(message.rail).up) return;
  striped_.Leave(message.rail,
                 ConnectionLost(fmt::format("the peer lost the rail: {}", message.reason)));
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
    if (now < rail.next_attempt) continue;
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
  // The answer; the peer's reports of other rails may come first. The peer
  // may still be in its part of a setup that failed here first, for up to
  // an attempt's time: a peer silent for two has stopped answering.
  const Deadline answer_by = Deadline::After(2 * options_.attempt_timeout);
  for (;;) {
    if (answer_by.expired()) {
      return Timeout(fmt::format("rail recovery: no answer to the request to bring rail {} back "
                                 "within {} ms",
                                 r, 2 * options_.attempt_timeout.count()));
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
    OnPeerMessage(m);
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
  XFER_RETURN_IF_ERROR(Send({RailMessage::Kind::kReady, r, rejoin.attempt, {}}));
  const Status rejoined = striped_.Rejoin(
      r, [&] { return paths_.set_up(r, deadline); }, "rejoined: set up again at the peer's request",
      deadline);
  (void)rejoined;  // the initiator asks again after its backoff
  return Status::Ok();
}

}  // namespace xfer::core
