// What registering memory costs: allocates (and so registers) a large
// region, then deregisters it, timing both, per GiB (2^30 bytes). The
// engine faults a large region's pages in on several threads.
//
// Given an RDMA device it also connects over verbs (to a second engine in
// this process, on the same device) and prints what connecting spent
// registering the region with the NIC (PeerInfo::registration): ibv_reg_mr
// pins the pages and fills the NIC's tables, in pieces of
// `registration_piece` bytes (the verbs transport option; default 256 MiB)
// registered up to 4 at once. A piece as large as the region registers it
// whole, on one thread: the two runs side by side show what the pieces buy.
//
//   register_large [MiB] [host|hugepage] [RDMA-device [piece-bytes]]
//                  (default: 1024 host, no device)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "xfer/engine.h"

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

std::unique_ptr<xfer::Engine> MakeEngine(const std::string& name, const std::string& listen,
                                         const std::string& device, const std::string& piece) {
  xfer::EngineOptions options;
  options.name = name;
  options.listen_address = listen;  // "" accepts no peers
  if (!device.empty()) {
    options.transports = {"verbs"};
    options.transport_options["verbs"]["device"] = device;
    if (!piece.empty()) options.transport_options["verbs"]["registration_piece"] = piece;
  }
  auto engine = xfer::Engine::Create(options);
  if (!engine.ok()) {
    std::fprintf(stderr, "%s\n", engine.status().ToString().c_str());
    return nullptr;
  }
  return std::move(engine.value());
}

// Connects `initiator` to a fresh engine over verbs and prints what the
// connection registered with the NIC. False on an error (printed).
bool ConnectAndReport(xfer::Engine& initiator, const std::string& device,
                      const std::string& piece) {
  auto target = MakeEngine("target", "127.0.0.1:0", device, piece);
  if (!target) return false;
  xfer::ConnectOptions connect;
  connect.transport = "verbs";
  const auto start = Clock::now();
  auto peer = initiator.Connect(target->listen_address(), connect);
  const auto connected = Clock::now();
  if (!peer.ok()) return std::fprintf(stderr, "%s\n", peer.status().ToString().c_str()), false;
  auto info = initiator.GetPeerInfo(*peer);
  if (!info.ok()) return std::fprintf(stderr, "%s\n", info.status().ToString().c_str()), false;
  const xfer::DeviceRegistration& r = info->registration;
  const double gib = static_cast<double>(r.bytes) / static_cast<double>(1 << 30);
  const double reg = Seconds(r.duration);
  std::printf("connect over verbs on %s: %llu MiB registered with the NIC as %u memory "
              "registrations in %.3f s (%.3f s per GiB); connect took %.3f s\n",
              info->nic.device.c_str(), static_cast<unsigned long long>(r.bytes >> 20),
              r.memory_registrations, reg, gib > 0 ? reg / gib : 0.0,
              Seconds(connected - start));
  return initiator.Disconnect(*peer).ok();
}

}  // namespace

int main(int argc, char** argv) {
  const size_t mib = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1024;
  const std::string kind = argc > 2 ? argv[2] : "host";
  const std::string device = argc > 3 ? argv[3] : "";
  const std::string piece = argc > 4 ? argv[4] : "";
  if (mib == 0 || (kind != "host" && kind != "hugepage") || argc > 5) {
    return std::fprintf(stderr,
                        "usage: register_large [MiB > 0] [host|hugepage] [RDMA-device "
                        "[piece-bytes]]\n"),
           2;
  }
  auto engine = MakeEngine("registrar", "", device, piece);
  if (!engine) return 1;
  xfer::MemoryOptions options;
  options.access = xfer::Access::kRemoteReadWrite;
  options.kind = kind == "hugepage" ? xfer::MemoryKind::kHugepage : xfer::MemoryKind::kHost;
  const size_t bytes = mib << 20;
  const auto start = Clock::now();
  auto region = engine->AllocateMemory(bytes, options);
  const auto registered = Clock::now();
  if (!region.ok()) return std::fprintf(stderr, "%s\n", region.status().ToString().c_str()), 1;
  if (!device.empty() && !ConnectAndReport(*engine, device, piece)) return 1;
  const auto deregistering = Clock::now();
  const xfer::Status gone = engine->DeregisterMemory(*region);
  const auto end = Clock::now();
  if (!gone.ok()) return std::fprintf(stderr, "%s\n", gone.ToString().c_str()), 1;
  const double gib = static_cast<double>(bytes) / static_cast<double>(1 << 30);
  const double reg = Seconds(registered - start);
  const double dereg = Seconds(end - deregistering);
  std::printf("%zu MiB of %s memory: registered in %.3f s (%.3f s per GiB), deregistered in "
              "%.3f s (%.3f s per GiB)\n",
              mib, kind.c_str(), reg, reg / gib, dereg, dereg / gib);
  return 0;
}
