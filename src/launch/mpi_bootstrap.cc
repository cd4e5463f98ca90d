#include "launch/mpi_bootstrap.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <thread>

#include <fmt/format.h>

#include "bench/cluster/rank_messages.h"

namespace xfer::launch {
namespace {

// One tag per kind of message; MPI keeps each (source, tag) in order.
constexpr int kTagHello = 1;
constexpr int kTagTable = 2;
constexpr int kTagReport = 3;
constexpr int kTagHeartbeat = 4;
constexpr int kTagVerdict = 5;

constexpr auto kPollInterval = std::chrono::microseconds(100);
constexpr auto kHeartbeatInterval = std::chrono::milliseconds(100);

Status MpiError(const char* call, int code) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(code, text, &length);
  return IoError(fmt::format("{}: {}", call, std::string_view(text, static_cast<size_t>(length))));
}

// The rank among this host's ranks, as the launcher numbered them: Open
// MPI's mpirun, MPICH's Hydra, or Slurm's srun (direct launch, srun
// --mpi=pmix), which sets only its own.
uint32_t LocalRankFromEnvironment() {
  for (const char* name : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"}) {
    const char* text = std::getenv(name);
    if (text == nullptr) continue;
    uint32_t value = 0;
    const char* end = text + std::strlen(text);
    auto [ptr, ec] = std::from_chars(text, end, value);
    if (ec == std::errc() && ptr == end) return value;
  }
  return 0;
}

// The exchange's table: each part as an 8-byte little-endian length and
// its bytes.
std::string EncodeTable(const std::vector<std::string>& parts) {
  std::string table;
  for (const std::string& part : parts) {
    uint64_t length = part.size();
    for (int i = 0; i < 8; ++i) table.push_back(static_cast<char>((length >> (8 * i)) & 0xff));
    table += part;
  }
  return table;
}

Result<std::vector<std::string>> DecodeTable(std::string_view table, uint32_t parts) {
  std::vector<std::string> out;
  size_t at = 0;
  for (uint32_t i = 0; i < parts; ++i) {
    if (table.size() - at < 8) return ProtocolError("rank 0's address table is truncated");
    uint64_t length = 0;
    for (int b = 0; b < 8; ++b) {
      length |= uint64_t{static_cast<uint8_t>(table[at + static_cast<size_t>(b)])} << (8 * b);
    }
    at += 8;
    if (length > table.size() - at) return ProtocolError("rank 0's address table is truncated");
    out.emplace_back(table.substr(at, length));
    at += length;
  }
  if (at != table.size()) return ProtocolError("rank 0's address table has trailing bytes");
  return out;
}

Status Interrupted(const std::atomic<int>& stop, const std::string& waiting_for) {
  return FailedPrecondition(
      fmt::format("interrupted by signal {} while waiting for {}", stop.load(), waiting_for));
}

}  // namespace

bool MpiBootstrap::LaunchedAsRank() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"}) {
    if (std::getenv(name) != nullptr) return true;
  }
  return false;
}

Result<std::unique_ptr<MpiBootstrap>> MpiBootstrap::Init() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized == 0 && MPI_Init(nullptr, nullptr) != MPI_SUCCESS) {
    return FailedPrecondition("MPI_Init failed: start the ranks with mpirun -np N");
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return std::unique_ptr<MpiBootstrap>(new MpiBootstrap(
      static_cast<uint32_t>(rank), static_cast<uint32_t>(size), LocalRankFromEnvironment()));
}

void MpiBootstrap::Finalize() {
  if (finalized_) return;
  for (PendingSend& send : sends_) MPI_Wait(&send.request, MPI_STATUS_IGNORE);
  sends_.clear();
  MPI_Finalize();
  finalized_ = true;
}

std::string MpiBootstrap::Name(uint32_t rank) const {
  return rank < names_.size() ? names_[rank] : fmt::format("rank {}", rank);
}

std::string MpiBootstrap::NameList(const std::vector<uint32_t>& pending) const {
  std::string list;
  for (uint32_t rank : pending) {
    if (!list.empty()) list += ", ";
    list += Name(rank);
  }
  return list;
}

Status MpiBootstrap::Send(uint32_t to, int tag, std::string data) {
  ReapSends();
  sends_.push_back({std::move(data), MPI_REQUEST_NULL});
  PendingSend& send = sends_.back();
  const int rc = MPI_Isend(send.data.data(), static_cast<int>(send.data.size()), MPI_BYTE,
                           static_cast<int>(to), tag, MPI_COMM_WORLD, &send.request);
  if (rc != MPI_SUCCESS) {
    sends_.pop_back();
    return MpiError("MPI_Isend", rc);
  }
  return Status::Ok();
}

void MpiBootstrap::ReapSends() {
  while (!sends_.empty()) {
    int done = 0;
    MPI_Test(&sends_.front().request, &done, MPI_STATUS_IGNORE);
    if (done == 0) return;
    sends_.pop_front();
  }
}

Result<bool> MpiBootstrap::TryReceive(uint32_t from, int tag, std::string& out) {
  int arrived = 0;
  MPI_Status status;
  int rc = MPI_Iprobe(static_cast<int>(from), tag, MPI_COMM_WORLD, &arrived, &status);
  if (rc != MPI_SUCCESS) return MpiError("MPI_Iprobe", rc);
  if (arrived == 0) return false;
  int count = 0;
  MPI_Get_count(&status, MPI_BYTE, &count);
  if (count < 0 || static_cast<size_t>(count) > cluster::kMaxRankMessageBytes) {
    return ProtocolError(fmt::format("{} sent a message of {} bytes, more than the {} a rank "
                                     "may send", Name(from), count,
                                     cluster::kMaxRankMessageBytes));
  }
  out.assign(static_cast<size_t>(count), '\0');
  rc = MPI_Recv(out.data(), count, MPI_BYTE, static_cast<int>(from), tag, MPI_COMM_WORLD,
                MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS) return MpiError("MPI_Recv", rc);
  return true;
}

Result<std::string> MpiBootstrap::ReceiveBy(uint32_t from, int tag, Clock::time_point deadline,
                                            std::chrono::milliseconds bound,
                                            const std::atomic<int>& stop,
                                            const std::string& waiting_for) {
  std::string message;
  while (true) {
    auto got = TryReceive(from, tag, message);
    if (!got.ok()) return got.status();
    if (*got) return message;
    if (stop.load() != 0) return Interrupted(stop, waiting_for);
    if (Clock::now() >= deadline) {
      return Timeout(fmt::format("no {} within {} ms: {} died or stalled", waiting_for,
                                 bound.count(), Name(from)));
    }
    ReapSends();
    std::this_thread::sleep_for(kPollInterval);
  }
}

Result<std::vector<std::string>> MpiBootstrap::AllGather(const std::string& mine,
                                                         std::chrono::milliseconds timeout,
                                                         const std::atomic<int>& stop) {
  const auto deadline = Clock::now() + timeout;
  if (rank_ != 0) {
    XFER_RETURN_IF_ERROR(Send(0, kTagHello, mine));
    auto table = ReceiveBy(0, kTagTable, deadline, timeout, stop, "rank 0's address table");
    if (!table.ok()) return table.status();
    return DecodeTable(*table, size_);
  }
  // Built up, not indexed: size_ >= 1 (this rank), which the optimiser
  // cannot see.
  std::vector<std::string> parts{mine};
  parts.resize(size_);
  std::vector<uint32_t> pending;
  for (uint32_t r = 1; r < size_; ++r) pending.push_back(r);
  while (!pending.empty()) {
    for (auto it = pending.begin(); it != pending.end();) {
      auto got = TryReceive(*it, kTagHello, parts[*it]);
      if (!got.ok()) return got.status();
      it = *got ? pending.erase(it) : it + 1;
    }
    if (pending.empty()) break;
    if (stop.load() != 0) return Interrupted(stop, "the hellos of " + NameList(pending));
    if (Clock::now() >= deadline) {
      return Timeout(fmt::format("no hello within {} ms from {}: not started, died or stalled",
                                 timeout.count(), NameList(pending)));
    }
    std::this_thread::sleep_for(kPollInterval);
  }
  const std::string table = EncodeTable(parts);
  for (uint32_t r = 1; r < size_; ++r) XFER_RETURN_IF_ERROR(Send(r, kTagTable, table));
  return parts;
}

Result<std::vector<std::string>> MpiBootstrap::GatherToRoot(const std::string& mine,
                                                            std::chrono::milliseconds silence,
                                                            const std::atomic<int>& stop) {
  if (rank_ != 0) {
    XFER_RETURN_IF_ERROR(Send(0, kTagReport, mine));
    return std::vector<std::string>{};
  }
  // Built up, not indexed: size_ >= 1 (this rank), which the optimiser
  // cannot see.
  std::vector<std::string> parts{mine};
  parts.resize(size_);
  std::vector<uint32_t> pending;
  const auto entered = Clock::now();
  std::vector<Clock::time_point> last_seen(size_, entered);
  for (uint32_t r = 1; r < size_; ++r) pending.push_back(r);
  std::string beat;
  while (!pending.empty()) {
    int arrived = 1;
    while (arrived != 0) {
      MPI_Status status;
      const int rc = MPI_Iprobe(MPI_ANY_SOURCE, kTagHeartbeat, MPI_COMM_WORLD, &arrived, &status);
      if (rc != MPI_SUCCESS) return MpiError("MPI_Iprobe", rc);
      if (arrived == 0) break;
      const auto from = static_cast<uint32_t>(status.MPI_SOURCE);
      auto got = TryReceive(from, kTagHeartbeat, beat);
      if (!got.ok()) return got.status();
      if (from < size_) last_seen[from] = Clock::now();
    }
    const auto now = Clock::now();
    std::vector<uint32_t> silent;
    for (auto it = pending.begin(); it != pending.end();) {
      auto got = TryReceive(*it, kTagReport, parts[*it]);
      if (!got.ok()) return got.status();
      if (*got) {
        it = pending.erase(it);
        continue;
      }
      if (now - last_seen[*it] > silence) silent.push_back(*it);
      ++it;
    }
    if (pending.empty()) break;
    if (stop.load() != 0) return Interrupted(stop, "the reports of " + NameList(pending));
    if (!silent.empty()) {
      return Timeout(fmt::format("{} sent no report and no heartbeat for {} ms: died or stalled",
                                 NameList(silent), silence.count()));
    }
    std::this_thread::sleep_for(kPollInterval);
  }
  return parts;
}

Result<cluster::Release> MpiBootstrap::Meet(const cluster::Release& release,
                                            std::chrono::milliseconds timeout,
                                            const std::atomic<int>& stop) {
  if (rank_ == 0) {
    const std::string verdict = (release.go_on ? "1" : "0") + release.reason;
    for (uint32_t r = 1; r < size_; ++r) XFER_RETURN_IF_ERROR(Send(r, kTagVerdict, verdict));
    return release;
  }
  auto verdict = ReceiveBy(0, kTagVerdict, Clock::now() + timeout, timeout, stop,
                           "rank 0's verdict");
  if (!verdict.ok()) return verdict.status();
  if (verdict->empty() || ((*verdict)[0] != '0' && (*verdict)[0] != '1')) {
    return ProtocolError("rank 0's verdict does not parse");
  }
  return cluster::Release{(*verdict)[0] == '1', verdict->substr(1)};
}

void MpiBootstrap::Heartbeat() {
  if (rank_ == 0) return;
  const auto now = Clock::now();
  if (now - last_heartbeat_ < kHeartbeatInterval) return;
  last_heartbeat_ = now;
  (void)Send(0, kTagHeartbeat, std::string());  // best effort: the report follows
}

void MpiBootstrap::AbortAll(int exit_code) {
  MPI_Abort(MPI_COMM_WORLD, exit_code);
  std::_Exit(exit_code);
}

}  // namespace xfer::launch
