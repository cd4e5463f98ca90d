// One direction of an shm connection's notifications: a ring of slots in a
// memfd that the receiving side creates and shares with the sender, which
// copies each notification into the next slot once the bytes it reports
// have landed.
//
// Why a ring and not the connection's socket: a notification on the
// socket costs the sender a system call and the receiver a thread woken
// to read it, tens of microseconds on a busy host, against a few hundred
// nanoseconds for the copies it reports. The receiver instead reads the
// ring itself, from Engine::GetNotifications (InboundRing::Drain). Only
// when it sleeps there (Arm), or when the ring is half full, does the
// sender ring a doorbell, a frame on the socket, whose progress thread
// then drains the ring into the engine's inbox.
//
// Layout (one host, one ABI, as every shm table): three cache lines
// holding `tail` (the notifications the sender has published), `head`
// (those the receiver has taken) and `armed` (the receiver wants a
// doorbell), then kRingSlots slots {u32 length, u32 reserved, bytes}.
// Counters only grow; slot i % kRingSlots holds notification i.
//
// The protocol, each side serialising its own threads:
//   sender:   full if tail - head == kRingSlots; else fill slot[tail],
//             tail += 1 (seq_cst); doorbell if armed was 1 (taking it,
//             seq_cst) or the ring is now half full
//   receiver: Drain: t = tail (acquire); deliver slots [head, t); head = t
//             (release, so that the sender reuses a slot only after it
//             was read). Arm: armed = 1 (seq_cst); then look at tail
//             (seq_cst): a receiver that arms and finds nothing new gets a
//             doorbell for the next notification (Dekker, as
//             revocation_table.h). A new ring starts armed: its first
//             notification rings, for a reader that went to sleep before
//             the connection existed.
//
// Guards against bugs, not malice (as revocation_table.h): the receiver
// checks what it reads (the count published, each length) and fails the
// connection on nonsense; a peer's bytes are delivered as its bytes.
#ifndef XFER_TRANSPORT_SHM_NOTIFICATION_RING_H_
#define XFER_TRANSPORT_SHM_NOTIFICATION_RING_H_

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <span>

#include "common/socket.h"
#include "transport/notification_sink.h"
#include "xfer/status.h"
#include "xfer/transfer.h"

namespace xfer::transport::shm {

inline constexpr uint64_t kRingSlots = 32;

// One mapping of a ring file. Move-only; unmaps on destruction.
class RingMapping {
 public:
  RingMapping() = default;
  ~RingMapping();
  RingMapping(RingMapping&& other) noexcept;
  RingMapping& operator=(RingMapping&& other) noexcept;
  RingMapping(const RingMapping&) = delete;
  RingMapping& operator=(const RingMapping&) = delete;

  // A fresh ring in a sealed memfd, empty (the receiver's).
  // Errors: kResourceExhausted.
  static Result<RingMapping> Create();
  // The peer's ring as received. Errors: kProtocolError (not a file of a
  // ring's size), kResourceExhausted.
  static Result<RingMapping> Map(UniqueFd fd);

  // The memfd to hand the peer (the creator's; -1 on the side that mapped
  // it, which needs no descriptor once mapped).
  int fd() const { return fd_.get(); }

  uint64_t& tail() const;
  uint64_t& head() const;
  uint32_t& armed() const;
  // Slot `index % kRingSlots`: its length word and its bytes.
  uint32_t& length(uint64_t index) const;
  uint8_t* bytes(uint64_t index) const;

 private:
  RingMapping(UniqueFd fd, void* base);

  UniqueFd fd_;
  void* base_ = nullptr;
};

// The sending side: writes into the peer's ring. Thread-safe.
class OutboundRing {
 public:
  explicit OutboundRing(RingMapping mapping) : mapping_(std::move(mapping)) {}

  struct Pushed {
    bool written = false;   // false: the ring is full; try again later
    bool doorbell = false;  // ring the peer's doorbell now
  };
  // Copies `message` (1..kMaxNotificationBytes bytes: the caller checked)
  // into the next slot and publishes it, or reports the ring full (and asks
  // for a doorbell, so that the peer drains it).
  Pushed Push(std::span<const uint8_t> message);

 private:
  std::mutex mu_;  // serialises this side's writers
  RingMapping mapping_;
  uint64_t tail_ = 0;  // GUARDED_BY(mu_): this side's copy of the shared tail
};

// The receiving side: reads its own ring. Thread-safe.
class InboundRing {
 public:
  // `sink` receives the notifications and outlives the ring.
  InboundRing(RingMapping mapping, NotificationSink& sink)
      : mapping_(std::move(mapping)), sink_(sink) {}

  // The memfd to hand the peer.
  int fd() const { return mapping_.fd(); }

  // Hands every notification published so far to the sink, in order.
  // Errors, after which the ring is not read again: kProtocolError (the
  // peer published more than the ring holds, or a slot's length is not
  // 1..kMaxNotificationBytes), the sink's (kResourceExhausted); the caller
  // fails the connection with it.
  Status Drain();

  // Asks the sender for a doorbell with its next notification, then drains
  // what came before it. Errors: as Drain.
  Status Arm();

 private:
  // REQUIRES: mu_ held.
  Status DrainLocked();

  std::mutex mu_;  // serialises readers: the progress thread, pollers
  RingMapping mapping_;
  NotificationSink& sink_;
  uint64_t head_ = 0;  // GUARDED_BY(mu_): authoritative; the shared one is for the sender
  Status failure_;     // GUARDED_BY(mu_): once set, the ring is not read again
};

// Sends the receiver's ring descriptor (a table header with the slot
// count, the descriptor as SCM_RIGHTS) / receives and maps the peer's.
// Errors: as Socket::SendFds / RecvFds, and RingMapping::Map.
Status SendNotificationRing(Socket& socket, const InboundRing& ring, Deadline deadline);
Result<RingMapping> ReceiveNotificationRing(Socket& socket, Deadline deadline);

}  // namespace xfer::transport::shm

#endif  // XFER_TRANSPORT_SHM_NOTIFICATION_RING_H_
