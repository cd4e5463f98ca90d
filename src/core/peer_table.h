// The engine's connected peers, found on the hot path without a lock, an
// allocation or a read-modify-write on a line other peers' users touch.
//
// A PeerId names a slot and the generation of its use: (generation << 32) |
// (slot + 1). A slot is reused only under a new generation, so a stale id
// never finds the connection that replaced its own.
#ifndef XFER_CORE_PEER_TABLE_H_
#define XFER_CORE_PEER_TABLE_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "core/peer_connection.h"
#include "xfer/engine.h"
#include "xfer/status.h"

namespace xfer::core {

class PeerTable {
  struct Slot;

 public:
  // At most this many peers are connected at once.
  static constexpr size_t kCapacity = size_t{1} << 16;

  // A connection held for one call: Remove waits until no Pin holds it, so
  // it stays alive while pinned. Pins are for the length of a call that
  // does not block past the engine's io_timeout, never longer.
  class Pin {
   public:
    Pin() = default;
    ~Pin() { Drop(); }
    Pin(Pin&& other) noexcept : users_(other.users_), connection_(other.connection_) {
      other.users_ = nullptr;
      other.connection_ = nullptr;
    }
    Pin& operator=(Pin&&) = delete;
    Pin(const Pin&) = delete;
    Pin& operator=(const Pin&) = delete;

    explicit operator bool() const { return connection_ != nullptr; }
    PeerConnection& operator*() const { return *connection_; }
    PeerConnection* operator->() const { return connection_; }

   private:
    friend class PeerTable;
    Pin(std::atomic<uint32_t>* users, PeerConnection* connection)
        : users_(users), connection_(connection) {}
    void Drop() {
      if (users_ != nullptr) users_->fetch_sub(1, std::memory_order_release);
    }
    std::atomic<uint32_t>* users_ = nullptr;
    PeerConnection* connection_ = nullptr;
  };

  PeerTable() = default;
  ~PeerTable();  // the engine has removed every peer by then
  PeerTable(const PeerTable&) = delete;
  PeerTable& operator=(const PeerTable&) = delete;

  // Publishes `connection` under a fresh id. Errors: kResourceExhausted
  // (kCapacity peers connected).
  Result<PeerId> Add(std::shared_ptr<PeerConnection> connection);

  // The connection of `id`, pinned; empty when no such peer is connected.
  // Thread-safe and lock-free.
  Pin Find(PeerId id) const;

  // Unpublishes `id` (later Finds miss it), closes its connection, so that
  // posts in flight on it fail rather than block, waits for every Pin of it
  // to drop, and returns it. Null when `id` is not connected.
  std::shared_ptr<PeerConnection> Remove(PeerId id);

  // Every connected peer's id.
  std::vector<PeerId> Ids() const;
  // Every connected peer, each kept alive by the returned pointers.
  std::vector<std::shared_ptr<PeerConnection>> Connections() const;

 private:
  static constexpr size_t kChunkSlots = 64;
  static constexpr size_t kChunks = kCapacity / kChunkSlots;

  // One cache line per slot: a peer's users never share a line with
  // another peer's.
  struct alignas(64) Slot {
    std::atomic<PeerId> id{0};  // 0: not published
    std::atomic<uint32_t> users{0};
    std::atomic<PeerConnection*> connection{nullptr};
    uint32_t generation = 0;                // GUARDED_BY(mu_)
    std::shared_ptr<PeerConnection> owner;  // GUARDED_BY(mu_)
  };
  using Chunk = std::array<Slot, kChunkSlots>;

  Slot* SlotAt(uint64_t index) const;  // null before its chunk exists
  Slot* SlotOf(PeerId id) const;       // null for an id no slot can have
  Result<uint32_t> TakeFreeSlotLocked();

  // Chunks are published once and freed only with the table, so that a
  // lock-free reader never touches freed memory.
  std::array<std::atomic<Chunk*>, kChunks> chunks_{};
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<Chunk>> owned_chunks_;  // GUARDED_BY(mu_)
  std::vector<uint32_t> free_slots_;                   // GUARDED_BY(mu_)
  uint32_t slots_used_ = 0;                            // GUARDED_BY(mu_)
};

}  // namespace xfer::core

#endif  // XFER_CORE_PEER_TABLE_H_
