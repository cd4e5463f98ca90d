// Test double of the engine's memory registry for transport tests: a fixed
// list of memfd-backed regions, as Engine::AllocateMemory would make them.
#ifndef XFER_TESTS_SUPPORT_TEST_MEMORY_H_
#define XFER_TESTS_SUPPORT_TEST_MEMORY_H_

#include <memory>
#include <mutex>
#include <vector>

#include "transport/local_memory.h"
#include "transport/remote_memory.h"

namespace xfer::testing {

class TestMemory : public transport::LocalMemory {
 public:
  ~TestMemory() override;
  // Adds a zero-filled memfd-backed region (or, with memfd=false, plain
  // heap memory registered with fd -1). Returns its view.
  transport::LocalRegionView Add(size_t length, Access access, bool memfd = true);

  // Takes region `id` out of the table, as Engine::DeregisterMemory does
  // before it revokes the region; its memory stays mapped until the
  // TestMemory is destroyed, so a test can check it was left untouched.
  void Withdraw(uint64_t id);

  Result<MemoryKind> Locate(uint64_t address, uint64_t length, Access needed) const override;
  std::vector<transport::LocalRegionView> Snapshot() const override;

  // The table a peer would receive in the handshake.
  std::vector<RemoteRegion> AsRemote() const;

 private:
  mutable std::mutex mu_;
  std::vector<transport::LocalRegionView> regions_;    // registered
  std::vector<transport::LocalRegionView> withdrawn_;  // kept mapped until destruction
};

}  // namespace xfer::testing

#endif  // XFER_TESTS_SUPPORT_TEST_MEMORY_H_
