// The target of the fault trials (run_fault_trials.sh): an engine listening
// on 127.0.0.1:0 with one transport, serving one registered region that
// lies between two PROT_NONE guard pages, with unregistered canary bytes
// between the guards and the region on both sides, in the region's own
// first and last pages.
//
//   fault_target --transport shm|tcp [--length BYTES] [--io-timeout MS]
//                [--connect-timeout MS] [--damage 1]
//
// --damage 1 changes one canary byte itself before checking: the script's
// self-test that the check can fail.
//
// Prints one line on stdout once serving:
//   READY address=127.0.0.1:PORT region=0xADDR length=BYTES pid=PID
// then serves until a signal:
//   SIGUSR1  checks the bytes outside the region and prints
//            "CHECK ok" or "CHECK bad=N first=OFFSET", and goes on serving;
//   SIGTERM  (or SIGINT) checks likewise and exits: 0 when no byte outside
//            the registered range changed, 1 when one did.
// Other exits: 2 setup failed. Only the public API (include/xfer/) is used.
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>
#include <thread>

#include "fault_common.h"
#include "xfer/engine.h"

namespace {

using xfer::faults::CanaryByte;

// Canary bytes before the region inside its first page; odd, so the region
// starts unaligned (a transport rounding addresses down would hit them).
constexpr size_t kHeadCanary = 257;
// At least this many canary bytes after the region, up to the end of its
// last page.
constexpr size_t kTailCanary = 263;

struct Layout {
  uint8_t* base = nullptr;  // the whole mapping
  size_t page = 0;
  size_t span = 0;           // bytes mapped
  size_t region_offset = 0;  // from base
  size_t region_length = 0;
};

// Counts the bytes outside [region, region + length) that differ from the
// pattern; the guard pages are made readable to look and protected again.
size_t CountDamage(const Layout& l, size_t& first) {
  size_t bad = 0;
  first = SIZE_MAX;
  if (::mprotect(l.base, l.page, PROT_READ) != 0 ||
      ::mprotect(l.base + l.span - l.page, l.page, PROT_READ) != 0) {
    std::fprintf(stderr, "fault_target: mprotect to check the guards: %s\n", std::strerror(errno));
    return SIZE_MAX;
  }
  const size_t region_end = l.region_offset + l.region_length;
  for (size_t i = 0; i < l.span; ++i) {
    if (i == l.region_offset) i = region_end;
    if (i >= l.span) break;
    if (l.base[i] != CanaryByte(i)) {
      if (first == SIZE_MAX) first = i;
      ++bad;
    }
  }
  (void)::mprotect(l.base, l.page, PROT_NONE);
  (void)::mprotect(l.base + l.span - l.page, l.page, PROT_NONE);
  return bad;
}

bool Report(const Layout& l) {
  size_t first = 0;
  const size_t bad = CountDamage(l, first);
  if (bad == 0) {
    std::printf("CHECK ok\n");
  } else {
    // Offsets from the region's first byte: negative is before it.
    std::printf("CHECK bad=%zu first=%lld\n", bad,
                static_cast<long long>(first) - static_cast<long long>(l.region_offset));
  }
  std::fflush(stdout);
  return bad == 0;
}

}  // namespace

int main(int argc, char** argv) {
  const xfer::faults::Flags flags(argc, argv,
                                  {{"transport", "tcp"},
                                   {"length", std::to_string(2u << 20)},
                                   {"io-timeout", "1000"},
                                   {"connect-timeout", "2000"},
                                   {"damage", "0"}});
  // Blocked before the engine starts its threads, so that they inherit the
  // mask and only sigtimedwait below takes these signals.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  Layout l;
  l.page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  l.region_length = flags.U64("length");
  if (l.region_length == 0) {
    std::fprintf(stderr, "fault_target: --length must be positive\n");
    return 2;
  }
  const size_t middle = (kHeadCanary + l.region_length + kTailCanary + l.page - 1) / l.page * l.page;
  l.span = middle + 2 * l.page;
  void* mapped = ::mmap(nullptr, l.span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED) {
    std::fprintf(stderr, "fault_target: mmap: %s\n", std::strerror(errno));
    return 2;
  }
  l.base = static_cast<uint8_t*>(mapped);
  l.region_offset = l.page + kHeadCanary;
  // Everything gets the pattern, the region too (the initiator overwrites
  // it); then the guards lose all access.
  for (size_t i = 0; i < l.span; ++i) l.base[i] = CanaryByte(i);
  if (::mprotect(l.base, l.page, PROT_NONE) != 0 ||
      ::mprotect(l.base + l.span - l.page, l.page, PROT_NONE) != 0) {
    std::fprintf(stderr, "fault_target: mprotect: %s\n", std::strerror(errno));
    return 2;
  }

  xfer::EngineOptions options;
  options.name = "fault_target";
  options.listen_address = "127.0.0.1:0";
  options.transports = {flags.Str("transport")};
  options.io_timeout = flags.Ms("io-timeout");
  options.connect_timeout = flags.Ms("connect-timeout");
  auto engine = xfer::Engine::Create(options);
  if (!engine.ok()) {
    std::fprintf(stderr, "fault_target: Engine::Create: %s\n", engine.status().ToString().c_str());
    return 2;
  }
  auto region = (*engine)->RegisterMemory(l.base + l.region_offset, l.region_length,
                                          {xfer::Access::kRemoteReadWrite});
  if (!region.ok()) {
    std::fprintf(stderr, "fault_target: RegisterMemory: %s\n", region.status().ToString().c_str());
    return 2;
  }
  std::printf("READY address=%s region=%#llx length=%zu pid=%d\n",
              (*engine)->listen_address().c_str(),
              static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(region->address)),
              region->length, static_cast<int>(::getpid()));
  std::fflush(stdout);

  // Peers are accepted in the background; this only names them, and lets
  // go of those whose connection has ended so that they do not pile up.
  std::atomic<bool> stop{false};
  std::thread peers([&] {
    while (!stop.load()) {
      auto peer = (*engine)->WaitForPeer(std::chrono::milliseconds(200));
      if (peer.ok()) {
        auto info = (*engine)->GetPeerInfo(*peer);
        std::fprintf(stderr, "fault_target: peer %llu connected over %s\n",
                     static_cast<unsigned long long>(*peer),
                     info.ok() ? info->transport.c_str() : "?");
      }
    }
  });

  int exit_code = 0;
  for (;;) {
    const timespec tick{0, 200 * 1000 * 1000};
    const int sig = sigtimedwait(&signals, nullptr, &tick);
    if (sig < 0) continue;  // EAGAIN (tick) or EINTR
    if (flags.U64("damage") != 0) l.base[l.region_offset + l.region_length] ^= 0xff;
    const bool clean = Report(l);
    if (sig == SIGUSR1) continue;
    exit_code = clean ? 0 : 1;
    break;
  }
  stop.store(true);
  peers.join();
  // The engine deregisters and disconnects as it goes; the mapping outlives it.
  engine->reset();
  // A last look after teardown: nothing may land outside the region then either.
  if (!Report(l)) exit_code = 1;
  return exit_code;
}
