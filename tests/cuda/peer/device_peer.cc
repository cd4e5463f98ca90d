// A passive peer for the device-memory tests, run as its own process (CUDA
// IPC needs two): an engine on the transport argv[1] names (default shm)
// with one CUDA region and one host region, announced on stdout as
// "ADDRESS DEVICE_REGION HOST_REGION LENGTH", kept until stdin closes.
// Exit 0, or 1 with the error on stderr.
#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "xfer/engine.h"

namespace {

constexpr size_t kLength = size_t{4} << 20;

int Fail(const xfer::Status& status) {
  std::fprintf(stderr, "device_peer: %s\n", status.ToString().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  xfer::EngineOptions options;
  options.name = "device-peer";
  options.listen_address = "127.0.0.1:0";
  options.transports = {argc > 1 ? argv[1] : "shm"};
  auto engine = xfer::Engine::Create(options);
  if (!engine.ok()) return Fail(engine.status());
  xfer::MemoryOptions device;
  device.kind = xfer::MemoryKind::kCuda;
  device.device = 0;
  auto device_region = (*engine)->AllocateMemory(kLength, device);
  if (!device_region.ok()) return Fail(device_region.status());
  auto host_region = (*engine)->AllocateMemory(kLength, {});
  if (!host_region.ok()) return Fail(host_region.status());
  std::printf("%s %llu %llu %zu\n", (*engine)->listen_address().c_str(),
              static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(device_region->address)),
              static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(host_region->address)),
              kLength);
  std::fflush(stdout);
  char byte = 0;
  while (::read(STDIN_FILENO, &byte, 1) > 0) {
  }
  return 0;
}
