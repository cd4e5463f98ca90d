#include "transport/shm/revocation_table.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <thread>
#include <utility>
#include <vector>

#include "common/wire.h"
#include "transport/shm/table_header.h"

namespace xfer::transport::shm {
namespace {

// The announcement is the table header (table_header.h) with the slot
// count, sent with Socket::SendFds and the table's one descriptor.
constexpr TableKind kRevocationTable{0x52565358, 1, "revocation table"};  // "XSVR"

// Revoke polls the copy count: spinning briefly catches the common case of
// a copy about to end, sleeping after that keeps a stalled peer from
// burning a core for the whole deadline.
constexpr int kSpinPolls = 1000;
constexpr auto kPollSleep = std::chrono::microseconds(100);

size_t MapLengthFor(size_t count) {
  const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t bytes = std::max<size_t>(count * sizeof(RevocationSlot), 1);
  return (bytes + page - 1) / page * page;
}

Result<void*> MapTable(int fd, size_t map_length) {
  void* base = mmap(nullptr, map_length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED) {
    return ResourceExhausted(ErrnoMessage("mmap of the shm revocation table", errno));
  }
  return base;
}

}  // namespace

RevocationTable::RevocationTable(UniqueFd fd, void* base, size_t map_length, size_t count)
    : fd_(std::move(fd)),
      base_(base),
      map_length_(map_length),
      slots_(static_cast<RevocationSlot*>(base)),
      count_(count) {}

RevocationTable::~RevocationTable() {
  if (base_ != nullptr) munmap(base_, map_length_);
}

RevocationTable::RevocationTable(RevocationTable&& other) noexcept
    : fd_(std::move(other.fd_)),
      base_(std::exchange(other.base_, nullptr)),
      map_length_(std::exchange(other.map_length_, 0)),
      slots_(std::exchange(other.slots_, nullptr)),
      count_(std::exchange(other.count_, 0)) {}

RevocationTable& RevocationTable::operator=(RevocationTable&& other) noexcept {
  if (this != &other) {
    if (base_ != nullptr) munmap(base_, map_length_);
    fd_ = std::move(other.fd_);
    base_ = std::exchange(other.base_, nullptr);
    map_length_ = std::exchange(other.map_length_, 0);
    slots_ = std::exchange(other.slots_, nullptr);
    count_ = std::exchange(other.count_, 0);
  }
  return *this;
}

Result<RevocationTable> RevocationTable::Create(std::span<const LocalRegionView> announced) {
  const size_t map_length = MapLengthFor(announced.size());
  UniqueFd fd(memfd_create("xfer-shm-revocations", MFD_CLOEXEC | MFD_ALLOW_SEALING));
  if (!fd.valid()) return ResourceExhausted(ErrnoMessage("memfd_create", errno));
  if (ftruncate(fd.get(), static_cast<off_t>(map_length)) != 0) {
    return ResourceExhausted(ErrnoMessage("ftruncate", errno));
  }
  // Sealed against resizing, so that neither side's mapping can fault.
  if (fcntl(fd.get(), F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
    return ResourceExhausted(ErrnoMessage("fcntl(F_ADD_SEALS)", errno));
  }
  auto base = MapTable(fd.get(), map_length);
  if (!base.ok()) return base.status();
  RevocationTable table(std::move(fd), *base, map_length, announced.size());
  // In address order, as the peer's RemoteMemory lists the regions.
  std::vector<LocalRegionView> by_address(announced.begin(), announced.end());
  std::sort(by_address.begin(), by_address.end(),
            [](const LocalRegionView& a, const LocalRegionView& b) { return a.address < b.address; });
  // The memfd starts zero-filled: nothing revoked, no copies. Only the ids
  // need writing, and they are written before the descriptor is shared.
  for (size_t i = 0; i < by_address.size(); ++i) table.slots_[i].region_id = by_address[i].id;
  return table;
}

Result<RevocationTable> RevocationTable::Map(UniqueFd fd, const RemoteMemory& remote) {
  const auto& regions = remote.regions();
  const size_t map_length = MapLengthFor(regions.size());
  struct stat st {};
  if (fstat(fd.get(), &st) != 0) {
    return ProtocolError(ErrnoMessage("fstat on the peer's revocation table", errno));
  }
  if (!S_ISREG(st.st_mode) || st.st_size < 0 || static_cast<size_t>(st.st_size) != map_length) {
    return ProtocolError(fmt::format(
        "peer's shm revocation table is not a {}-byte file for its {} regions", map_length,
        regions.size()));
  }
  auto base = MapTable(fd.get(), map_length);
  if (!base.ok()) return base.status();
  // The descriptor is not needed once mapped (the mapping keeps the file).
  RevocationTable table(UniqueFd(), *base, map_length, regions.size());
  for (size_t i = 0; i < regions.size(); ++i) {
    if (table.slots_[i].region_id != regions[i].id) {
      return ProtocolError(fmt::format(
          "peer's shm revocation slot {} names region id {}, its handshake table id {}", i,
          table.slots_[i].region_id, regions[i].id));
    }
  }
  return table;
}

Status RevocationTable::Revoke(uint64_t region_id, Deadline deadline,
                               const std::function<bool()>& peer_exited) const {
  RevocationSlot* slot = std::find_if(slots_, slots_ + count_, [&](const RevocationSlot& s) {
    return s.region_id == region_id;
  });
  if (slot == slots_ + count_) return Status::Ok();
  // seq_cst store before AwaitNoCopies' seq_cst load: see the header.
  std::atomic_ref<uint32_t>(slot->revoked).fetch_or(kRevoked, std::memory_order_seq_cst);
  return AwaitNoCopies(*slot, deadline, peer_exited);
}

Status RevocationTable::RevokeAll(Deadline deadline,
                                  const std::function<bool()>& peer_exited) const {
  for (size_t i = 0; i < count_; ++i) {
    std::atomic_ref<uint32_t>(slots_[i].revoked).fetch_or(kRevoked | kClosing,
                                                         std::memory_order_seq_cst);
  }
  Status first_failure;
  for (size_t i = 0; i < count_; ++i) {
    Status status = AwaitNoCopies(slots_[i], deadline, peer_exited);
    if (first_failure.ok()) first_failure = status;
  }
  return first_failure;
}

Status RevocationTable::AwaitNoCopies(RevocationSlot& slot, Deadline deadline,
                                      const std::function<bool()>& peer_exited) {
  std::atomic_ref<uint32_t> copies(slot.copies);
  for (int polls = 0; copies.load(std::memory_order_seq_cst) != 0; ++polls) {
    // Past the spins only: a live peer's copy usually ends within them.
    if (polls >= kSpinPolls && peer_exited && peer_exited()) return Status::Ok();
    if (deadline.expired()) {
      return Timeout(fmt::format(
          "shm: the peer still had {} copies into region id {} in progress at the deadline",
          copies.load(std::memory_order_relaxed), slot.region_id));
    }
    if (polls < kSpinPolls) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(kPollSleep);
    }
  }
  return Status::Ok();
}

Status SendRevocationTable(Socket& socket, const RevocationTable& table, Deadline deadline) {
  return SendTableFile(socket, kRevocationTable, static_cast<uint32_t>(table.size()), table.fd(),
                       deadline);
}

Result<RevocationTable> ReceiveRevocationTable(Socket& socket, const RemoteMemory& remote,
                                               Deadline deadline) {
  auto file = ReceiveTableFile(socket, kRevocationTable, deadline);
  if (!file.ok()) return file.status();
  if (file->count != remote.regions().size()) {
    return ProtocolError(fmt::format(
        "peer's shm revocation table has {} slots for the {} regions of its handshake",
        file->count, remote.regions().size()));
  }
  return RevocationTable::Map(std::move(file->fd), remote);
}

}  // namespace xfer::transport::shm
