#include "transport/shm/notification_ring.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <utility>

#include "transport/shm/table_header.h"

namespace xfer::transport::shm {
namespace {

constexpr TableKind kNotificationRing{0x52535358, 1, "notification ring"};  // "XSSR"

// The header's three words, each on its own cache line: the sender's and
// the receiver's stores do not contend.
constexpr size_t kLine = 64;
constexpr size_t kTailOffset = 0;
constexpr size_t kHeadOffset = kLine;
constexpr size_t kArmedOffset = 2 * kLine;
constexpr size_t kSlotsOffset = 3 * kLine;
constexpr size_t kSlotBytes = 8 + kMaxNotificationBytes;  // u32 length, u32 reserved, bytes
constexpr size_t kRingBytes = kSlotsOffset + kRingSlots * kSlotBytes;

static_assert(std::atomic_ref<uint64_t>::is_always_lock_free);
static_assert(std::atomic_ref<uint32_t>::is_always_lock_free);
static_assert(kSlotBytes % 8 == 0);

size_t MapLength() {
  const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return (kRingBytes + page - 1) / page * page;
}

Result<void*> MapRing(int fd) {
  void* base = mmap(nullptr, MapLength(), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED) {
    return ResourceExhausted(ErrnoMessage("mmap of the shm notification ring", errno));
  }
  return base;
}

template <typename T>
T& At(void* base, size_t offset) {
  return *reinterpret_cast<T*>(static_cast<uint8_t*>(base) + offset);
}

}  // namespace

RingMapping::RingMapping(UniqueFd fd, void* base) : fd_(std::move(fd)), base_(base) {}

RingMapping::~RingMapping() {
  if (base_ != nullptr) munmap(base_, MapLength());
}

RingMapping::RingMapping(RingMapping&& other) noexcept
    : fd_(std::move(other.fd_)), base_(std::exchange(other.base_, nullptr)) {}

RingMapping& RingMapping::operator=(RingMapping&& other) noexcept {
  if (this != &other) {
    if (base_ != nullptr) munmap(base_, MapLength());
    fd_ = std::move(other.fd_);
    base_ = std::exchange(other.base_, nullptr);
  }
  return *this;
}

Result<RingMapping> RingMapping::Create() {
  UniqueFd fd(memfd_create("xfer-shm-notifications", MFD_CLOEXEC | MFD_ALLOW_SEALING));
  if (!fd.valid()) return ResourceExhausted(ErrnoMessage("memfd_create", errno));
  if (ftruncate(fd.get(), static_cast<off_t>(MapLength())) != 0) {
    return ResourceExhausted(ErrnoMessage("ftruncate", errno));
  }
  // Sealed against resizing, so that neither side's mapping can fault.
  if (fcntl(fd.get(), F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
    return ResourceExhausted(ErrnoMessage("fcntl(F_ADD_SEALS)", errno));
  }
  auto base = MapRing(fd.get());
  if (!base.ok()) return base.status();
  // The memfd starts zero-filled: an empty ring. Armed, though: a reader
  // may already sleep in GetNotifications, having armed the rings of the
  // connections it knew, before this one existed; the first notification
  // rings the doorbell, and the reader's own polls take over from there.
  RingMapping mapping(std::move(fd), *base);
  std::atomic_ref<uint32_t>(mapping.armed()).store(1, std::memory_order_seq_cst);
  return mapping;
}

Result<RingMapping> RingMapping::Map(UniqueFd fd) {
  struct stat st {};
  if (fstat(fd.get(), &st) != 0) {
    return ProtocolError(ErrnoMessage("fstat on the peer's notification ring", errno));
  }
  if (!S_ISREG(st.st_mode) || st.st_size < 0 || static_cast<size_t>(st.st_size) != MapLength()) {
    return ProtocolError(
        fmt::format("peer's shm notification ring is not a {}-byte file", MapLength()));
  }
  auto base = MapRing(fd.get());
  if (!base.ok()) return base.status();
  // The descriptor is not needed once mapped (the mapping keeps the file).
  return RingMapping(UniqueFd(), *base);
}

uint64_t& RingMapping::tail() const { return At<uint64_t>(base_, kTailOffset); }
uint64_t& RingMapping::head() const { return At<uint64_t>(base_, kHeadOffset); }
uint32_t& RingMapping::armed() const { return At<uint32_t>(base_, kArmedOffset); }

uint32_t& RingMapping::length(uint64_t index) const {
  return At<uint32_t>(base_, kSlotsOffset + (index % kRingSlots) * kSlotBytes);
}

uint8_t* RingMapping::bytes(uint64_t index) const {
  return &At<uint8_t>(base_, kSlotsOffset + (index % kRingSlots) * kSlotBytes + 8);
}

OutboundRing::Pushed OutboundRing::Push(std::span<const uint8_t> message) {
  std::lock_guard lock(mu_);
  // Acquire: the receiver read a slot before it released it.
  const uint64_t head = std::atomic_ref<uint64_t>(mapping_.head()).load(std::memory_order_acquire);
  if (tail_ - head >= kRingSlots) return {false, true};
  mapping_.length(tail_) = static_cast<uint32_t>(message.size());
  std::memcpy(mapping_.bytes(tail_), message.data(), message.size());
  ++tail_;
  // seq_cst, then the seq_cst look at `armed`: see the header.
  std::atomic_ref<uint64_t>(mapping_.tail()).store(tail_, std::memory_order_seq_cst);
  std::atomic_ref<uint32_t> armed(mapping_.armed());
  const bool was_armed =
      armed.load(std::memory_order_seq_cst) != 0 && armed.exchange(0, std::memory_order_seq_cst) != 0;
  return {true, was_armed || tail_ - head >= kRingSlots / 2};
}

Status InboundRing::Drain() {
  std::lock_guard lock(mu_);
  return DrainLocked();
}

Status InboundRing::Arm() {
  std::lock_guard lock(mu_);
  if (!failure_.ok()) return failure_;
  std::atomic_ref<uint32_t>(mapping_.armed()).store(1, std::memory_order_seq_cst);
  if (std::atomic_ref<uint64_t>(mapping_.tail()).load(std::memory_order_seq_cst) == head_) {
    return Status::Ok();
  }
  return DrainLocked();
}

Status InboundRing::DrainLocked() {
  if (!failure_.ok()) return failure_;
  const uint64_t tail = std::atomic_ref<uint64_t>(mapping_.tail()).load(std::memory_order_acquire);
  if (tail - head_ > kRingSlots) {
    failure_ = ProtocolError(fmt::format(
        "shm: the peer published notifications up to #{} into a ring of {} that held them up "
        "to #{}",
        tail, kRingSlots, head_));
    return failure_;
  }
  uint8_t message[kMaxNotificationBytes];
  for (; head_ != tail; ++head_) {
    // Read once: the peer's word, checked before it sizes anything.
    const uint32_t length = mapping_.length(head_);
    if (length < 1 || length > kMaxNotificationBytes) {
      failure_ = ProtocolError(fmt::format(
          "shm: a {}-byte notification from the peer; they hold 1 to {} bytes", length,
          kMaxNotificationBytes));
      return failure_;
    }
    std::memcpy(message, mapping_.bytes(head_), length);
    if (Status delivered = sink_.Deliver(std::span<const uint8_t>(message, length));
        !delivered.ok()) {
      failure_ = delivered.WithContext("shm: a notification from the peer");
      return failure_;
    }
    // Release: the slot was read before the sender may reuse it.
    std::atomic_ref<uint64_t>(mapping_.head()).store(head_ + 1, std::memory_order_release);
  }
  return Status::Ok();
}

Status SendNotificationRing(Socket& socket, const InboundRing& ring, Deadline deadline) {
  return SendTableFile(socket, kNotificationRing, static_cast<uint32_t>(kRingSlots), ring.fd(),
                       deadline);
}

Result<RingMapping> ReceiveNotificationRing(Socket& socket, Deadline deadline) {
  auto file = ReceiveTableFile(socket, kNotificationRing, deadline);
  if (!file.ok()) return file.status();
  if (file->count != kRingSlots) {
    return ProtocolError(fmt::format("peer's shm notification ring has {} slots, not {}",
                                     file->count, kRingSlots));
  }
  return RingMapping::Map(std::move(file->fd));
}

}  // namespace xfer::transport::shm
