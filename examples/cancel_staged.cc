// Cancelling and deadlines: an engine that stages its buffers (as device
// memory is staged over verbs) queues requests one behind another; one
// cancelled while queued moves nothing, one whose deadline passes while
// queued fails with kTimeout, and the connection carries on. Two engines
// in one process, for brevity.
//
//   cancel_staged [shm|tcp]     (default: tcp)
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include "xfer/engine.h"

using namespace std::chrono_literals;

int main(int argc, char** argv) {
  const std::string transport = argc > 1 ? argv[1] : "tcp";
  constexpr size_t kBig = 64 << 20;
  xfer::EngineOptions target_options;
  target_options.name = "target";
  target_options.transports = {transport};
  auto target = xfer::Engine::Create(target_options);
  if (!target.ok()) return std::fprintf(stderr, "%s\n", target.status().ToString().c_str()), 1;
  auto remote_buffer = (*target)->AllocateMemory(kBig + 2 * 4096, {xfer::Access::kRemoteWrite});
  if (!remote_buffer.ok()) return 1;

  xfer::EngineOptions options;
  options.name = "initiator";
  options.listen_address = "";
  options.transports = {transport};
  options.device_path = xfer::DevicePath::kStaged;  // requests queue in the staging pipeline
  auto engine = xfer::Engine::Create(options);
  if (!engine.ok()) return std::fprintf(stderr, "%s\n", engine.status().ToString().c_str()), 1;
  auto local = (*engine)->AllocateMemory(kBig + 2 * 4096, {xfer::Access::kNone});
  if (!local.ok()) return 1;
  std::memset(local->address, 0x5a, local->length);
  auto peer = (*engine)->Connect((*target)->listen_address(), {.transport = transport});
  if (!peer.ok()) return std::fprintf(stderr, "connect: %s\n", peer.status().ToString().c_str()), 1;
  const uint64_t remote = (*engine)->GetPeerInfo(*peer)->regions.at(0).address;
  auto* bytes = static_cast<unsigned char*>(local->address);

  // A long request, then two short ones queued behind it.
  const xfer::TransferEntry big{bytes, remote, kBig};
  const xfer::TransferEntry cancelled{bytes + kBig, remote + kBig, 4096};
  const xfer::TransferEntry late{bytes + kBig + 4096, remote + kBig + 4096, 4096};
  xfer::TransferRequest first, second, third;
  xfer::SubmitOptions deadline;
  deadline.timeout = 1ms;  // shorter than the request ahead of it takes
  if (!(*engine)->Submit(*peer, xfer::OpCode::kWrite, {&big, 1}, first).ok() ||
      !(*engine)->Submit(*peer, xfer::OpCode::kWrite, {&cancelled, 1}, second).ok() ||
      !(*engine)->Submit(*peer, xfer::OpCode::kWrite, {&late, 1}, third, deadline).ok()) {
    return std::fprintf(stderr, "submit failed\n"), 1;
  }
  xfer::Status cancel = (*engine)->Cancel(*peer, second);
  const xfer::Status s1 = first.Wait(10s);
  const xfer::Status s2 = second.Wait(10s);
  const xfer::Status s3 = third.Wait(10s);
  const auto* landed = static_cast<const unsigned char*>(remote_buffer->address);
  std::printf("first: %s, %zu bytes\n", s1.ToString().c_str(), first.bytes());
  std::printf("second, cancelled while queued (%s): %s; its target bytes %s\n",
              cancel.ToString().c_str(), s2.ToString().c_str(),
              landed[kBig] == 0 ? "untouched" : "written");
  std::printf("third, deadline 1 ms while queued: %s; its target bytes %s\n",
              s3.ToString().c_str(), landed[kBig + 4096] == 0 ? "untouched" : "written");
  // The connection carries on.
  const xfer::Status again = (*engine)->Transfer(*peer, xfer::OpCode::kWrite, {&late, 1}, 5s);
  std::printf("a later transfer on the same connection: %s\n", again.ToString().c_str());
  return s1.ok() && s2.code() == xfer::StatusCode::kCancelled &&
                 s3.code() == xfer::StatusCode::kTimeout && landed[kBig] == 0 && again.ok()
             ? 0
             : 1;
}
