#include "core/two_process.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "common/kernel_channel.h"
#include "support/verbs_test_env.h"

namespace xfer::testing {
namespace {

bool WriteAll(int fd, const void* data, size_t n) {
  const auto* p = static_cast<const uint8_t*>(data);
  while (n > 0) {
    SendingThroughKernel();  // the parent acts on what this side wrote before
    ssize_t w = ::write(fd, p, n);
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

bool ReadAll(int fd, void* data, size_t n) {
  auto* p = static_cast<uint8_t*>(data);
  while (n > 0) {
    ssize_t r = ::read(fd, p, n);
    if (r <= 0) return false;
    ReceivedThroughKernel();
    p += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

[[noreturn]] void ChildMain(int in, int out, std::vector<std::string> transports, size_t length,
                            Access access, uint8_t fill, TransportOptions verbs) {
  EngineOptions options;
  options.name = "target";
  options.transports = std::move(transports);
  if (!verbs.empty()) options.transport_options["verbs"] = std::move(verbs);
  options.io_timeout = std::chrono::milliseconds(3000);
  auto engine = Engine::Create(options);
  if (!engine.ok()) _exit(2);
  auto region = (*engine)->AllocateMemory(length, {access, MemoryKind::kHost});
  if (!region.ok()) _exit(3);
  std::memset(region->address, fill, length);
  const std::string address = (*engine)->listen_address();
  const uint64_t header[3] = {address.size(), reinterpret_cast<uint64_t>(region->address), length};
  if (!WriteAll(out, header, sizeof(header)) || !WriteAll(out, address.data(), address.size())) _exit(4);
  auto peer = (*engine)->WaitForPeer(std::chrono::seconds(10));
  for (;;) {
    uint8_t command = 0;
    if (!ReadAll(in, &command, 1) || command == static_cast<uint8_t>(ChildCommand::kQuit)) break;
    uint64_t answer = UINT64_MAX;
    if (command == static_cast<uint8_t>(ChildCommand::kHash)) {
      answer = Fnv1a(region->address, length);
    } else if (command == static_cast<uint8_t>(ChildCommand::kReceive) && peer.ok()) {
      TransferRequest request;
      if ((*engine)->PostRecv(*peer, region->address, length, request).ok() &&
          request.Wait(std::chrono::seconds(5)).ok()) {
        answer = request.bytes();
      }
    }
    if (!WriteAll(out, &answer, sizeof(answer))) break;
  }
  _exit(0);
}

}  // namespace

uint64_t Fnv1a(const void* data, size_t length) {
  uint64_t hash = 1469598103934665603ull;
  const auto* p = static_cast<const uint8_t*>(data);
  for (size_t i = 0; i < length; ++i) hash = (hash ^ p[i]) * 1099511628211ull;
  return hash;
}

TargetProcess::TargetProcess(std::vector<std::string> transports, size_t length, Access access,
                             uint8_t fill)
    : TargetProcess(std::move(transports), length, access, fill,
                    VerbsDeviceOptions(TestVerbsDevices().target)) {}

TargetProcess::TargetProcess(std::vector<std::string> transports, size_t length, Access access,
                             uint8_t fill, TransportOptions verbs) {
  int down[2], up[2];
  if (pipe(down) != 0 || pipe(up) != 0) throw std::runtime_error("pipe");
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fork");
  if (pid_ == 0) {
    close(down[1]);
    close(up[0]);
    ChildMain(down[0], up[1], std::move(transports), length, access, fill, std::move(verbs));
  }
  close(down[0]);
  close(up[1]);
  to_child_ = down[1];
  from_child_ = up[0];
  uint64_t header[3];
  if (!ReadAll(from_child_, header, sizeof(header)) || header[0] > 256) {
    throw std::runtime_error("target process failed to start");
  }
  address_.resize(header[0]);
  if (!ReadAll(from_child_, address_.data(), address_.size())) throw std::runtime_error("read address");
  region_ = {header[1], header[2]};
}

TargetProcess::~TargetProcess() {
  if (pid_ > 0) {
    uint8_t quit = static_cast<uint8_t>(ChildCommand::kQuit);
    WriteAll(to_child_, &quit, 1);
    // A child still waiting for a peer that was refused reads no command;
    // give it a moment, then end it rather than wait out its timeout.
    int status;
    for (int i = 0; i < 100 && pid_ > 0; ++i) {
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    }
    Kill();
  }
  close(to_child_);
  close(from_child_);
}

uint64_t TargetProcess::Ask(ChildCommand command) {
  uint8_t byte = static_cast<uint8_t>(command);
  uint64_t answer = UINT64_MAX;
  if (!WriteAll(to_child_, &byte, 1) || !ReadAll(from_child_, &answer, sizeof(answer))) {
    return UINT64_MAX;
  }
  return answer;
}

void TargetProcess::Kill() {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  int status;
  waitpid(pid_, &status, 0);
  pid_ = -1;
}

}  // namespace xfer::testing
