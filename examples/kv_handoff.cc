// A KV-cache handoff, the way disaggregated serving moves one: a prefill
// process WRITEs each KV block straight into the decoder's memory, with a
// notification on the same request; the decoder learns from the
// notification alone that the block is there, and never polls memory or
// waits for a second message. The blocks' descriptors are prepared once
// (PrepareTransfers) and submitted by index, each with a deadline.
//
//   kv_handoff [shm|tcp|verbs]     (default: tcp)
//
// The decoder is a forked child; a pipe carries only its listen address.
// Every wait is bounded.
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "xfer/engine.h"

using namespace std::chrono_literals;

namespace {

constexpr size_t kBlockBytes = 256 << 10;
constexpr size_t kBlocks = 16;

unsigned char BlockByte(size_t block, size_t i) {
  return static_cast<unsigned char>(block * 31 + i * 7 + 1);
}

bool BlockIsWhole(const unsigned char* block_memory, size_t block) {
  for (size_t i = 0; i < kBlockBytes; ++i) {
    if (block_memory[i] != BlockByte(block, i)) return false;
  }
  return true;
}

// The decoder: takes each block once its notification says it is there.
int RunDecoder(const std::string& transport, int to_parent) {
  xfer::EngineOptions options;
  options.name = "decoder";
  options.transports = {transport};
  auto engine = xfer::Engine::Create(options);
  if (!engine.ok()) return std::fprintf(stderr, "decoder: %s\n", engine.status().ToString().c_str()), 1;
  auto cache = (*engine)->AllocateMemory(kBlocks * kBlockBytes, {xfer::Access::kRemoteWrite});
  if (!cache.ok()) return std::fprintf(stderr, "decoder: %s\n", cache.status().ToString().c_str()), 1;
  const std::string address = (*engine)->listen_address() + "\n";
  if (::write(to_parent, address.data(), address.size()) != static_cast<ssize_t>(address.size())) return 1;
  auto* memory = static_cast<const unsigned char*>(cache->address);
  size_t whole = 0;
  std::string sender;
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  for (size_t taken = 0; taken < kBlocks && std::chrono::steady_clock::now() < deadline;) {
    for (const xfer::Notification& note : (*engine)->GetNotifications(1s)) {
      // "block <i>": the block is in memory now; use it.
      const size_t block = std::stoul(note.message.substr(6));
      if (block < kBlocks && BlockIsWhole(memory + block * kBlockBytes, block)) ++whole;
      sender = note.peer_name;
      ++taken;
    }
  }
  std::printf("decoder: %zu of %zu KV blocks from '%s' were whole when their notification came\n",
              whole, kBlocks, sender.c_str());
  return whole == kBlocks ? 0 : 1;
}

// The prefill side: one WRITE per block, each carrying its notification;
// all in flight at once.
int RunPrefill(const std::string& transport, const std::string& address) {
  xfer::EngineOptions options;
  options.name = "prefill";
  options.listen_address = "";
  options.transports = {transport};
  auto engine = xfer::Engine::Create(options);
  if (!engine.ok()) return std::fprintf(stderr, "%s\n", engine.status().ToString().c_str()), 1;
  auto local = (*engine)->AllocateMemory(kBlocks * kBlockBytes, {xfer::Access::kNone});
  if (!local.ok()) return std::fprintf(stderr, "%s\n", local.status().ToString().c_str()), 1;
  auto peer = (*engine)->Connect(address, {.transport = transport});
  if (!peer.ok()) return std::fprintf(stderr, "connect: %s\n", peer.status().ToString().c_str()), 1;
  auto info = (*engine)->GetPeerInfo(*peer);
  if (!info.ok() || info->regions.empty()) return std::fprintf(stderr, "no KV cache to fill\n"), 1;
  const uint64_t cache = info->regions.front().address;

  auto* bytes = static_cast<unsigned char*>(local->address);
  // The block descriptors are fixed for the life of the cache: prepare
  // them once, then submit each block by index, with no per-entry checks.
  std::vector<xfer::TransferEntry> blocks(kBlocks);
  for (size_t block = 0; block < kBlocks; ++block) {
    blocks[block] = {bytes + block * kBlockBytes, cache + block * kBlockBytes, kBlockBytes};
  }
  auto list = (*engine)->PrepareTransfers(*peer, blocks);
  if (!list.ok()) return std::fprintf(stderr, "prepare: %s\n", list.status().ToString().c_str()), 1;
  std::vector<xfer::TransferRequest> requests(kBlocks);
  std::vector<std::string> notes(kBlocks);
  for (size_t block = 0; block < kBlocks; ++block) {
    unsigned char* source = bytes + block * kBlockBytes;
    for (size_t i = 0; i < kBlockBytes; ++i) source[i] = BlockByte(block, i);
    notes[block] = "block " + std::to_string(block);
    xfer::SubmitOptions submit;
    submit.notification = notes[block];
    submit.timeout = 10s;  // a block not handed off by then fails, and says so
    const auto index = static_cast<uint32_t>(block);
    xfer::Status status = (*engine)->SubmitPrepared(*list, xfer::OpCode::kWrite, index, 1,
                                                    requests[block], submit);
    if (!status.ok()) return std::fprintf(stderr, "block %zu: %s\n", block, status.ToString().c_str()), 1;
  }
  for (size_t block = 0; block < kBlocks; ++block) {
    xfer::Status status = requests[block].Wait(20s);
    if (!status.ok()) return std::fprintf(stderr, "block %zu: %s\n", block, status.ToString().c_str()), 1;
  }
  std::printf("prefill: wrote %zu KV blocks of %zu KiB over %s, each with its notification\n",
              kBlocks, kBlockBytes >> 10, info->transport.c_str());
  return 0;
}

std::string ReadLine(int fd) {
  std::string line;
  char c = 0;
  while (true) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 10000) != 1 || ::read(fd, &c, 1) != 1) return "";
    if (c == '\n') return line;
    line += c;
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::string transport = argc > 1 ? argv[1] : "tcp";
  int to_parent[2];
  if (::pipe(to_parent) != 0) return std::perror("pipe"), 1;
  std::fflush(stdout);
  // Fork before either side creates an engine (and its threads).
  const pid_t child = ::fork();
  if (child < 0) return std::perror("fork"), 1;
  if (child == 0) {
    ::close(to_parent[0]);
    const int code = RunDecoder(transport, to_parent[1]);
    std::fflush(stdout);
    ::_exit(code);
  }
  ::close(to_parent[1]);
  const std::string address = ReadLine(to_parent[0]);
  const int code = address.empty() ? 1 : RunPrefill(transport, address);
  std::fflush(stdout);
  if (address.empty()) ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  const bool decoder_ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  return code == 0 && decoder_ok ? 0 : 1;
}
