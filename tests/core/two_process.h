// A target engine in a forked child process, driven over pipes, so engine
// tests cross a real process boundary (shm maps the child's memory, tcp
// crosses loopback) and can kill the peer mid-transfer.
#ifndef XFER_TESTS_CORE_TWO_PROCESS_H_
#define XFER_TESTS_CORE_TWO_PROCESS_H_

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "xfer/engine.h"

namespace xfer::testing {

// FNV-1a over a byte range: how the child reports its memory contents.
uint64_t Fnv1a(const void* data, size_t length);

struct ChildRegion {
  uint64_t address = 0;
  uint64_t length = 0;
};

// Commands the parent sends; each gets one u64 answer.
enum class ChildCommand : uint8_t {
  kHash = 'H',        // FNV-1a of the whole region
  kReceive = 'R',     // post a receive of the region's size, wait, answer its byte count
  kQuit = 'Q',
};

class TargetProcess {
 public:
  // Forks a child whose engine allows `transports`, allocates `length`
  // bytes with `access`, fills them with `fill`, and waits for commands.
  TargetProcess(std::vector<std::string> transports, size_t length, Access access, uint8_t fill);
  // The same, with the child's EngineOptions::verbs given; the constructor
  // above uses the target device of XFER_TEST_VERBS_DEVICES
  // (support/verbs_test_env.h).
  TargetProcess(std::vector<std::string> transports, size_t length, Access access, uint8_t fill,
                TransportOptions verbs);
  ~TargetProcess();

  const std::string& address() const { return address_; }
  const ChildRegion& region() const { return region_; }
  pid_t pid() const { return pid_; }

  // Sends a command, returns the child's answer (UINT64_MAX on failure).
  uint64_t Ask(ChildCommand command);
  void Kill();

 private:
  pid_t pid_ = -1;
  int to_child_ = -1;
  int from_child_ = -1;
  std::string address_;
  ChildRegion region_;
};

}  // namespace xfer::testing

#endif  // XFER_TESTS_CORE_TWO_PROCESS_H_
