// Two processes: a target (a forked child) that registers 1 MiB and
// checks what lands in it, and an initiator (the parent) that WRITEs a
// pattern there and READs it back. The transport is forced from the
// command line, so the bytes really cross a process boundary by it.
//
//   copy_between_processes [shm|tcp|verbs]     (default: tcp)
//
// The processes talk over two pipes besides libxfer: the child sends its
// listen address, the parent says when it is done, the child answers with
// the number of bytes it found as expected. Every wait is bounded.
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include "xfer/engine.h"

using namespace std::chrono_literals;

namespace {

constexpr size_t kBytes = 1 << 20;
constexpr int kPipeTimeoutMs = 10000;

unsigned char PatternByte(size_t i) { return static_cast<unsigned char>(i * 7 + 1); }

// How many of the kBytes at `bytes` hold the pattern.
size_t CountPattern(const void* bytes) {
  const auto* b = static_cast<const unsigned char*>(bytes);
  size_t matching = 0;
  for (size_t i = 0; i < kBytes; ++i) {
    if (b[i] == PatternByte(i)) ++matching;
  }
  return matching;
}

// Reads one '\n'-terminated line, or "" on timeout, error or EOF.
std::string ReadLine(int fd) {
  std::string line;
  char c = 0;
  while (true) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, kPipeTimeoutMs) != 1 || ::read(fd, &c, 1) != 1) return "";
    if (c == '\n') return line;
    line += c;
  }
}

bool WriteLine(int fd, const std::string& text) {
  const std::string line = text + "\n";
  return ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
}

// The child: serves one initiator, then counts the bytes that match.
int RunTarget(const std::string& transport, int to_parent, int from_parent) {
  xfer::EngineOptions options;
  options.name = "target";
  options.transports = {transport};
  auto engine = xfer::Engine::Create(options);
  if (!engine.ok()) return std::fprintf(stderr, "target: %s\n", engine.status().ToString().c_str()), 1;
  auto region = (*engine)->AllocateMemory(kBytes, {xfer::Access::kRemoteReadWrite});
  if (!region.ok()) return std::fprintf(stderr, "target: %s\n", region.status().ToString().c_str()), 1;
  if (!WriteLine(to_parent, (*engine)->listen_address())) return 1;
  auto peer = (*engine)->WaitForPeer(10s);
  if (!peer.ok()) return std::fprintf(stderr, "target: %s\n", peer.status().ToString().c_str()), 1;
  if (ReadLine(from_parent) != "done") return 1;
  return WriteLine(to_parent, std::to_string(CountPattern(region->address))) ? 0 : 1;
}

// The parent: WRITE the pattern, READ it back into a cleared buffer.
int RunInitiator(const std::string& transport, const std::string& address, pid_t target) {
  xfer::EngineOptions options;
  options.name = "initiator";
  options.listen_address = "";
  options.transports = {transport};
  auto engine = xfer::Engine::Create(options);
  if (!engine.ok()) return std::fprintf(stderr, "%s\n", engine.status().ToString().c_str()), 1;
  auto local = (*engine)->AllocateMemory(kBytes, {xfer::Access::kNone});
  if (!local.ok()) return std::fprintf(stderr, "%s\n", local.status().ToString().c_str()), 1;
  auto peer = (*engine)->Connect(address, {.transport = transport});
  if (!peer.ok()) return std::fprintf(stderr, "connect: %s\n", peer.status().ToString().c_str()), 1;
  auto info = (*engine)->GetPeerInfo(*peer);
  if (!info.ok() || info->regions.empty()) return std::fprintf(stderr, "no remote region\n"), 1;
  const xfer::RemoteRegion& remote = info->regions.front();

  auto* bytes = static_cast<unsigned char*>(local->address);
  for (size_t i = 0; i < kBytes; ++i) bytes[i] = PatternByte(i);
  const xfer::TransferEntry entry{local->address, remote.address, kBytes};
  xfer::Status status = (*engine)->Transfer(*peer, xfer::OpCode::kWrite, {&entry, 1}, 5s);
  if (!status.ok()) return std::fprintf(stderr, "write: %s\n", status.ToString().c_str()), 1;

  std::memset(bytes, 0, kBytes);
  xfer::TransferRequest read;
  status = (*engine)->Submit(*peer, xfer::OpCode::kRead, {&entry, 1}, read);
  if (status.ok()) status = read.Wait(5s);
  if (!status.ok()) return std::fprintf(stderr, "read: %s\n", status.ToString().c_str()), 1;
  const size_t read_back = CountPattern(bytes);

  std::printf("transport %s: wrote %zu bytes into process %d and read %zu of them back intact;",
              info->transport.c_str(), kBytes, static_cast<int>(target), read_back);
  return read_back == kBytes ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string transport = argc > 1 ? argv[1] : "tcp";
  int to_parent[2];
  int to_child[2];
  if (::pipe(to_parent) != 0 || ::pipe(to_child) != 0) return std::perror("pipe"), 1;
  // Fork before either side creates an engine (and its threads).
  const pid_t child = ::fork();
  if (child < 0) return std::perror("fork"), 1;
  if (child == 0) {
    ::close(to_parent[0]);
    ::close(to_child[1]);
    ::_exit(RunTarget(transport, to_parent[1], to_child[0]));
  }
  ::close(to_parent[1]);
  ::close(to_child[0]);

  int result = 1;
  const std::string address = ReadLine(to_parent[0]);
  if (address.empty()) {
    std::fprintf(stderr, "the target sent no listen address\n");
  } else {
    result = RunInitiator(transport, address, child);
  }
  if (result == 0 && WriteLine(to_child[1], "done")) {
    const std::string matching = ReadLine(to_parent[0]);
    std::printf(" the target checked %s bytes\n", matching.c_str());
    if (matching != std::to_string(kBytes)) result = 1;
  }
  ::close(to_child[1]);  // a target still waiting sees EOF and gives up
  // Once this side has failed, the target may still be waiting for a peer
  // that will never come: end it now rather than at its timeout.
  if (result != 0) ::kill(child, SIGTERM);
  int child_status = 0;
  const bool reaped = ::waitpid(child, &child_status, 0) == child;
  if (result == 0 && (!reaped || !WIFEXITED(child_status) || WEXITSTATUS(child_status) != 0)) {
    std::fprintf(stderr, "the target process failed\n");
    result = 1;
  }
  return result;
}
