// The initiator of the fault trials (run_fault_trials.sh): connects to a
// fault_target and runs verified one-sided transfers into its region until
// told to stop, an error, or a wrong byte.
//
//   fault_initiator --address HOST:PORT --transport shm|tcp
//       [--region 0xADDR --length BYTES]   what the target printed; checked
//                                          against what the peer announces
//       [--io-timeout MS] [--connect-timeout MS]
//       [--count N]        transfers (WRITE then READ back); 0: until error
//       [--max-size BYTES] sizes are log-uniform in [1, max-size]
//       [--seed N] [--hang-ms MS]
//       [--corrupt-at N]   flip a byte read back by transfer N (from 1): the
//                          script's self-test that the comparison can fail
//       [--progress-ms MS] print "PROGRESS transfers=N" at most this often
//                          (0: never)
//
// Each transfer writes fresh data (depending on the transfer and the
// position) to a random remote offset as a batch of 1..4 entries, reads it
// back into another buffer and compares every byte. Before the loop it
// checks that ranges crossing the region's ends are refused (kOutOfRange).
//
// Prints "STARTED" after the first verified transfer, and at the end one of
//   DONE transfers=N bytes=B corruptions=0 elapsed_s=T
//   ERROR op=.. status="..." since_last_ok_ms=.. transfers=N
// Exit codes: 0 clean finish; 2 a clear error from the engine (a Status
// such as kConnectionLost or kTimeout, within the wait); 3 data mismatch;
// 4 hang: a request not finished --hang-ms after it was submitted; 1 setup
// (engine, connect) failed; 5 the out-of-range probes were not refused.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "fault_common.h"
#include "xfer/engine.h"

namespace {

using Clock = std::chrono::steady_clock;
using xfer::faults::SplitMix;

constexpr int kClean = 0;
constexpr int kSetup = 1;
constexpr int kClearError = 2;
constexpr int kMismatch = 3;
constexpr int kHang = 4;
constexpr int kProbe = 5;

// Local slack so local addresses are unaligned too.
constexpr size_t kLocalSlack = 4096;

double MsSince(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// Data of one transfer: 8-byte words from `base` and the position, so a
// shifted, stale or partial copy differs.
void Fill(uint8_t* p, size_t n, uint64_t base) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const uint64_t w = base ^ (static_cast<uint64_t>(i) * 0x9e3779b97f4a7c15ull);
    std::memcpy(p + i, &w, 8);
  }
  const uint64_t w = base ^ (static_cast<uint64_t>(i) * 0x9e3779b97f4a7c15ull) ^ 0x5555;
  std::memcpy(p + i, &w, n - i);
}

}  // namespace

int main(int argc, char** argv) {
  const xfer::faults::Flags flags(argc, argv,
                                  {{"address", ""},
                                   {"transport", "tcp"},
                                   {"region", "0"},
                                   {"length", "0"},
                                   {"io-timeout", "1000"},
                                   {"connect-timeout", "2000"},
                                   {"count", "0"},
                                   {"max-size", std::to_string(1u << 20)},
                                   {"seed", "1"},
                                   {"hang-ms", "0"},
                                   {"progress-ms", "0"},
                                   {"corrupt-at", "0"}});
  const auto io_timeout = flags.Ms("io-timeout");
  // A request unfinished this long after submit is a hang: the engine owed
  // an answer within io_timeout. Default 3x, past the script's 2x bound.
  const std::chrono::milliseconds hang =
      flags.U64("hang-ms") != 0 ? flags.Ms("hang-ms") : 3 * io_timeout + std::chrono::milliseconds(500);
  const uint64_t count = flags.U64("count");
  const size_t max_size = flags.U64("max-size");
  uint64_t rng = flags.U64("seed");
  const auto progress_every = flags.Ms("progress-ms");
  const uint64_t corrupt_at = flags.U64("corrupt-at");

  xfer::EngineOptions options;
  options.name = "fault_initiator";
  options.listen_address = "";
  options.transports = {flags.Str("transport")};
  options.io_timeout = io_timeout;
  options.connect_timeout = flags.Ms("connect-timeout");
  auto created = xfer::Engine::Create(options);
  if (!created.ok()) {
    std::printf("SETUP Engine::Create: %s\n", created.status().ToString().c_str());
    return kSetup;
  }
  xfer::Engine& engine = **created;
  auto src = engine.AllocateMemory(max_size + kLocalSlack, {});
  auto dst = engine.AllocateMemory(max_size + kLocalSlack, {});
  if (!src.ok() || !dst.ok()) {
    std::printf("SETUP AllocateMemory: %s\n",
                (src.ok() ? dst.status() : src.status()).ToString().c_str());
    return kSetup;
  }
  xfer::ConnectOptions connect;
  connect.transport = flags.Str("transport");
  auto peer = engine.Connect(flags.Str("address"), connect);
  if (!peer.ok()) {
    std::printf("SETUP Connect: %s\n", peer.status().ToString().c_str());
    return kSetup;
  }
  auto info = engine.GetPeerInfo(*peer);
  if (!info.ok() || info->regions.size() != 1) {
    std::printf("SETUP the peer should announce one region\n");
    return kSetup;
  }
  const xfer::RemoteRegion remote = info->regions[0];
  if ((flags.U64("region") != 0 && flags.U64("region") != remote.address) ||
      (flags.U64("length") != 0 && flags.U64("length") != remote.length)) {
    std::printf("SETUP the peer announced [%#" PRIx64 ", +%" PRIu64 "), not what --region/--length say\n",
                remote.address, remote.length);
    return kSetup;
  }
  if (remote.length < max_size) {
    std::printf("SETUP the peer's region (%" PRIu64 " bytes) is smaller than --max-size\n", remote.length);
    return kSetup;
  }
  const size_t max_entries = std::min<size_t>(4, std::max<uint32_t>(1, info->max_entries_per_post));
  auto* s = static_cast<uint8_t*>(src->address);
  auto* d = static_cast<uint8_t*>(dst->address);

  // Ranges crossing either end of the region, and one wholly before it:
  // refused before any byte moves (the target's canaries prove none did).
  {
    const xfer::TransferEntry probes[] = {{s, remote.address - 1, 2},
                                          {s, remote.address + remote.length - 1, 2},
                                          {s, remote.address - 64, 64},
                                          {s, remote.address + remote.length, 1}};
    std::memset(s, 0xee, 64);
    for (const auto& probe : probes) {
      for (const auto op : {xfer::OpCode::kWrite, xfer::OpCode::kRead}) {
        xfer::TransferRequest request;
        xfer::Status st = engine.Submit(*peer, op, std::span(&probe, 1), request);
        if (st.ok()) st = request.Wait(hang);
        if (st.code() != xfer::StatusCode::kOutOfRange) {
          std::printf("PROBE remote [%#" PRIx64 ", +%zu) %s: want out of range, got %s\n",
                      probe.remote, probe.length, op == xfer::OpCode::kWrite ? "WRITE" : "READ",
                      st.ToString().c_str());
          return kProbe;
        }
      }
    }
  }

  const auto start = Clock::now();
  auto last_ok = start;
  auto last_progress = start;
  uint64_t transfers = 0;
  uint64_t bytes = 0;
  uint64_t corruptions = 0;
  const double log_max = std::log(static_cast<double>(max_size));

  // One batch, submitted and waited for; returns the exit code to leave
  // with, or -1 to go on.
  auto run = [&](xfer::OpCode op, const xfer::TransferEntry* entries, size_t n) -> int {
    xfer::TransferRequest request;
    const auto submitted = Clock::now();
    xfer::Status st = engine.Submit(*peer, op, std::span(entries, n), request);
    if (st.ok()) {
      st = request.Wait(hang);
      if (!request.done()) {
        std::printf("HANG op=%s unfinished after %.1f ms (io_timeout %lld ms) transfers=%" PRIu64 "\n",
                    op == xfer::OpCode::kWrite ? "WRITE" : "READ", MsSince(submitted),
                    static_cast<long long>(io_timeout.count()), transfers);
        std::fflush(stdout);
        // The request cannot be left in flight on the way out.
        _exit(kHang);
      }
    }
    if (!st.ok()) {
      std::printf("ERROR op=%s status=\"%s\" since_last_ok_ms=%.1f transfers=%" PRIu64 "\n",
                  op == xfer::OpCode::kWrite ? "WRITE" : "READ", st.ToString().c_str(),
                  MsSince(last_ok), transfers);
      return kClearError;
    }
    last_ok = Clock::now();
    return -1;
  };

  while (count == 0 || transfers < count) {
    const size_t size = std::clamp<size_t>(
        static_cast<size_t>(std::exp(log_max * static_cast<double>(SplitMix(rng) >> 11) * 0x1p-53)),
        1, max_size);
    const uint64_t offset = SplitMix(rng) % (remote.length - size + 1);
    const size_t src_off = SplitMix(rng) % kLocalSlack;
    const size_t dst_off = SplitMix(rng) % kLocalSlack;
    const uint64_t base = SplitMix(rng);
    Fill(s + src_off, size, base);
    // Small transfers: make sure the buffer read into holds other bytes.
    if (size <= (64u << 10)) {
      for (size_t i = 0; i < size; ++i) d[dst_off + i] = static_cast<uint8_t>(~s[src_off + i]);
    }
    // Split into 1..max_entries pieces, submitted last piece first.
    const size_t pieces = std::min<size_t>(size, 1 + SplitMix(rng) % max_entries);
    xfer::TransferEntry w[4];
    xfer::TransferEntry r[4];
    size_t at = 0;
    for (size_t p = 0; p < pieces; ++p) {
      const size_t len = p + 1 == pieces ? size - at : size / pieces;
      w[pieces - 1 - p] = {s + src_off + at, remote.address + offset + at, len};
      r[pieces - 1 - p] = {d + dst_off + at, remote.address + offset + at, len};
      at += len;
    }
    int code = run(xfer::OpCode::kWrite, w, pieces);
    if (code < 0) code = run(xfer::OpCode::kRead, r, pieces);
    if (code >= 0) {
      std::fflush(stdout);
      return code;
    }
    if (transfers + 1 == corrupt_at) d[dst_off + size / 2] ^= 0x01;
    if (std::memcmp(s + src_off, d + dst_off, size) != 0) {
      size_t first = 0;
      while (s[src_off + first] == d[dst_off + first]) ++first;
      std::printf("MISMATCH transfer=%" PRIu64 " remote_offset=%" PRIu64 " size=%zu pieces=%zu first_bad=%zu\n",
                  transfers, offset, size, pieces, first);
      ++corruptions;
    }
    ++transfers;
    bytes += size;
    if (transfers == 1) {
      std::printf("STARTED\n");
      std::fflush(stdout);
    }
    if (progress_every.count() > 0 && Clock::now() - last_progress >= progress_every) {
      last_progress = Clock::now();
      std::printf("PROGRESS transfers=%" PRIu64 "\n", transfers);
      std::fflush(stdout);
    }
  }
  std::printf("DONE transfers=%" PRIu64 " bytes=%" PRIu64 " corruptions=%" PRIu64 " elapsed_s=%.2f\n",
              transfers, bytes, corruptions, MsSince(start) / 1000.0);
  std::fflush(stdout);
  return corruptions == 0 ? kClean : kMismatch;
}
