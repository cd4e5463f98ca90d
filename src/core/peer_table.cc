#include "core/peer_table.h"

#include <chrono>
#include <thread>

#include <fmt/format.h>

namespace xfer::core {
namespace {

constexpr uint64_t kSlotMask = 0xffffffffu;

PeerId MakeId(uint32_t generation, uint32_t slot) {
  return (static_cast<uint64_t>(generation) << 32) | (static_cast<uint64_t>(slot) + 1);
}

}  // namespace

PeerTable::~PeerTable() = default;

PeerTable::Slot* PeerTable::SlotAt(uint64_t index) const {
  Chunk* chunk = chunks_[index / kChunkSlots].load(std::memory_order_acquire);
  return chunk == nullptr ? nullptr : &(*chunk)[index % kChunkSlots];
}

PeerTable::Slot* PeerTable::SlotOf(PeerId id) const {
  const uint64_t index_plus_one = id & kSlotMask;
  if (index_plus_one == 0 || index_plus_one > kCapacity) return nullptr;
  return SlotAt(index_plus_one - 1);
}

Result<uint32_t> PeerTable::TakeFreeSlotLocked() {
  if (!free_slots_.empty()) {
    const uint32_t slot = free_slots_.back();
    free_slots_.pop_back();
    return slot;
  }
  if (slots_used_ == kCapacity) {
    return ResourceExhausted(fmt::format("{} peers are connected, the most one engine holds",
                                         kCapacity));
  }
  const uint32_t slot = slots_used_++;
  if (slot % kChunkSlots == 0) {
    owned_chunks_.push_back(std::make_unique<Chunk>());
    chunks_[slot / kChunkSlots].store(owned_chunks_.back().get(), std::memory_order_release);
  }
  return slot;
}

Result<PeerId> PeerTable::Add(std::shared_ptr<PeerConnection> connection) {
  std::lock_guard lock(mu_);
  auto slot_index = TakeFreeSlotLocked();
  if (!slot_index.ok()) return slot_index.status();
  Slot& slot = *SlotAt(*slot_index);
  const PeerId published = MakeId(slot.generation, *slot_index);
  slot.connection.store(connection.get(), std::memory_order_relaxed);
  slot.owner = std::move(connection);
  // The id last: a reader that sees it sees the connection.
  slot.id.store(published, std::memory_order_seq_cst);
  return published;
}

PeerTable::Pin PeerTable::Find(PeerId id) const {
  Slot* slot = SlotOf(id);
  if (slot == nullptr) return {};
  // Dekker's pattern with Remove: either Remove sees this user, and waits,
  // or this load sees the unpublished id, and the pin is dropped.
  slot->users.fetch_add(1, std::memory_order_seq_cst);
  if (slot->id.load(std::memory_order_seq_cst) != id) {
    slot->users.fetch_sub(1, std::memory_order_release);
    return {};
  }
  return Pin(&slot->users, slot->connection.load(std::memory_order_relaxed));
}

std::shared_ptr<PeerConnection> PeerTable::Remove(PeerId id) {
  Slot* slot = nullptr;
  std::shared_ptr<PeerConnection> connection;
  {
    std::lock_guard lock(mu_);
    slot = SlotOf(id);
    if (slot == nullptr || slot->id.load(std::memory_order_relaxed) != id) return nullptr;
    slot->id.store(0, std::memory_order_seq_cst);
    connection = slot->owner;
  }
  // Closed before the wait: a post pinned on it then fails at once instead
  // of running to its io_timeout.
  connection->Close();
  // Pins last one call each; after Close those calls return promptly. The
  // load is seq_cst, the other half of Find's pattern.
  for (int spins = 0; slot->users.load(std::memory_order_seq_cst) != 0; ++spins) {
    if (spins < 1000) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }
  std::lock_guard lock(mu_);
  slot->connection.store(nullptr, std::memory_order_relaxed);
  slot->owner.reset();
  slot->generation += 1;
  free_slots_.push_back(static_cast<uint32_t>((id & kSlotMask) - 1));
  return connection;
}

std::vector<PeerId> PeerTable::Ids() const {
  std::lock_guard lock(mu_);
  std::vector<PeerId> ids;
  for (uint32_t i = 0; i < slots_used_; ++i) {
    const PeerId id = SlotAt(i)->id.load(std::memory_order_relaxed);
    if (id != 0) ids.push_back(id);
  }
  return ids;
}

std::vector<std::shared_ptr<PeerConnection>> PeerTable::Connections() const {
  std::lock_guard lock(mu_);
  std::vector<std::shared_ptr<PeerConnection>> connections;
  for (uint32_t i = 0; i < slots_used_; ++i) {
    const Slot& slot = *SlotAt(i);
    if (slot.id.load(std::memory_order_relaxed) != 0) connections.push_back(slot.owner);
  }
  return connections;
}

}  // namespace xfer::core
