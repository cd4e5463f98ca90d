// This process's view of the peer's registered memory: the regions it shared
// by memfd, mapped here, and the rest, reachable only through process_vm.
#ifndef XFER_TRANSPORT_SHM_PEER_MAPPING_H_
#define XFER_TRANSPORT_SHM_PEER_MAPPING_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cuda/device_runtime.h"
#include "transport/remote_memory.h"
#include "transport/shm/device_table.h"
#include "transport/shm/region_table.h"
#include "transport/shm/revocation_table.h"
#include "xfer/memory.h"
#include "xfer/status.h"

namespace xfer::transport::shm {

// One peer region as the copy engine reaches it.
struct PeerRegion {
  uint64_t address = 0;  // first byte, in the peer's address space
  uint64_t length = 0;
  Access access = Access::kNone;
  // Our MAP_SHARED mapping of the region's memfd, or nullptr when the peer
  // registered memory it did not get from the engine (no descriptor): such a
  // region is reached with process_vm_readv/writev on the peer's pid.
  uint8_t* mapped = nullptr;
  // CUDA device memory of the peer's (kind kCuda): `device_mapped` is this
  // process's address of the region's first byte, through the peer's
  // allocation opened with its IPC handle on device `device`; or nullptr,
  // with `unreachable` saying why no copy can reach the region.
  MemoryKind kind = MemoryKind::kHost;
  int device = -1;
  uint8_t* device_mapped = nullptr;
  std::string unreachable;
  // The region's row in the peer's revocation table: every copy, mapped or
  // process_vm, is bracketed by BeginCopy/EndCopy on it.
  RevocationSlot* revocation = nullptr;
};

// Owns the mappings; unmaps them on destruction or Release(). Move-only.
// Resolve() is const and touches only immutable state, so it may run on
// any number of threads at once; Release() must not race with it (the
// endpoint drains its posts first).
class PeerMapping {
 public:
  PeerMapping() = default;
  ~PeerMapping();
  PeerMapping(PeerMapping&& other) noexcept;
  PeerMapping& operator=(PeerMapping&& other) noexcept;
  PeerMapping(const PeerMapping&) = delete;
  PeerMapping& operator=(const PeerMapping&) = delete;

  // Records every region of `remote`, each with its slot of `revocations`
  // (the peer's table, mapped against `remote`), and maps those in `shared`
  // (validated rows of `remote`, see ReceiveRegionTable) read+write,
  // MAP_SHARED. Each descriptor must be a regular file at least as long as
  // its region; the descriptors are closed once mapped. Opens the IPC
  // handle of each shareable row of `device_rows` (validated, see
  // ReceiveDeviceTable) through `devices`, once per allocation; a handle
  // that does not open leaves its regions unreachable, with the driver's
  // reason, rather than failing the connection. `devices` outlives the
  // mapping. Errors: kProtocolError (a descriptor that is not a mappable
  // file of the right size), kResourceExhausted (out of address space or
  // memory).
  static Result<PeerMapping> Create(const RemoteMemory& remote, std::vector<SharedRegion> shared,
                                    std::vector<DeviceRow> device_rows,
                                    RevocationTable revocations, cuda::DeviceRuntime& devices);

  // The peer region holding all of [address, address + length) and granting
  // `needed`. Allocation-free and syscall-free on success: the posting hot
  // path calls it for every entry. Errors: kInvalidArgument (length 0),
  // kOutOfRange (not inside one region, overflow included),
  // kPermissionDenied.
  Result<const PeerRegion*> Resolve(uint64_t address, uint64_t length, Access needed) const;

  // Our pointer to the peer's byte at `address`.
  // REQUIRES: region.mapped != nullptr and `address` lies inside `region`.
  static uint8_t* Translate(const PeerRegion& region, uint64_t address) {
    return region.mapped + (address - region.address);
  }

  // Unmaps everything now, the revocation table included; afterwards
  // Resolve() finds nothing. Idempotent.
  void Release();

 private:
  struct Mapping {
    void* base = nullptr;
    size_t length = 0;
  };
  struct DeviceImport {
    cuda::IpcHandle handle{};
    int device = -1;
    uint64_t base = 0;  // the allocation's address in this process
    uint64_t size = 0;  // its length, as this process's driver says
  };
  void OpenDeviceRows(std::vector<DeviceRow> rows);

  std::vector<PeerRegion> regions_;  // sorted by address, non-overlapping
  std::vector<Mapping> mappings_;    // what Release() unmaps
  std::vector<DeviceImport> imports_;  // what Release() closes
  cuda::DeviceRuntime* devices_ = nullptr;
  RevocationTable revocations_;      // the slots regions_ point into
};

}  // namespace xfer::transport::shm

#endif  // XFER_TRANSPORT_SHM_PEER_MAPPING_H_
