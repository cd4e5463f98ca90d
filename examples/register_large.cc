// What registering memory costs: allocates (and so registers) a large
// region, then deregisters it, timing both, per GiB (2^30 bytes). The
// engine faults a large region's pages in on several threads; over verbs
// each connection also registers it with the NIC when it connects.
//
//   register_large [MiB] [host|hugepage]     (default: 1024 host)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "xfer/engine.h"

int main(int argc, char** argv) {
  const size_t mib = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1024;
  const std::string kind = argc > 2 ? argv[2] : "host";
  if (mib == 0 || (kind != "host" && kind != "hugepage")) {
    return std::fprintf(stderr, "usage: register_large [MiB > 0] [host|hugepage]\n"), 2;
  }
  xfer::EngineOptions engine_options;
  engine_options.name = "registrar";
  engine_options.listen_address = "";  // accepts no peers
  auto engine = xfer::Engine::Create(engine_options);
  if (!engine.ok()) return std::fprintf(stderr, "%s\n", engine.status().ToString().c_str()), 1;
  xfer::MemoryOptions options;
  options.access = xfer::Access::kRemoteReadWrite;
  options.kind = kind == "hugepage" ? xfer::MemoryKind::kHugepage : xfer::MemoryKind::kHost;
  const size_t bytes = mib << 20;
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  auto region = (*engine)->AllocateMemory(bytes, options);
  const auto registered = Clock::now();
  if (!region.ok()) return std::fprintf(stderr, "%s\n", region.status().ToString().c_str()), 1;
  const xfer::Status gone = (*engine)->DeregisterMemory(*region);
  const auto end = Clock::now();
  if (!gone.ok()) return std::fprintf(stderr, "%s\n", gone.ToString().c_str()), 1;
  const double gib = static_cast<double>(bytes) / static_cast<double>(1 << 30);
  const double reg = std::chrono::duration<double>(registered - start).count();
  const double dereg = std::chrono::duration<double>(end - registered).count();
  std::printf("%zu MiB of %s memory: registered in %.3f s (%.3f s per GiB), deregistered in "
              "%.3f s (%.3f s per GiB)\n",
              mib, kind.c_str(), reg, reg / gib, dereg, dereg / gib);
  return 0;
}
