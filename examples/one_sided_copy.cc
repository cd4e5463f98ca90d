// The smallest complete libxfer program: two engines (in one process here,
// for brevity; normally two processes or hosts), one WRITE and one READ.
// Built and run by ctest, so this example cannot rot.
#include <chrono>
#include <cstdio>
#include <cstring>

#include "xfer/engine.h"

using namespace std::chrono_literals;

int main() {
  // The target: listens, and registers memory the initiator may write/read.
  xfer::EngineOptions target_options;
  target_options.name = "target";
  target_options.listen_address = "127.0.0.1:0";  // any free port
  auto target = xfer::Engine::Create(target_options);
  if (!target.ok()) return std::fprintf(stderr, "%s\n", target.status().ToString().c_str()), 1;
  auto target_buffer = (*target)->AllocateMemory(1 << 20, {xfer::Access::kRemoteReadWrite});
  if (!target_buffer.ok()) return 1;

  // The initiator: registers its own buffer, then connects (shm is chosen on
  // one host; pass ConnectOptions{.transport = "tcp"} to force tcp).
  xfer::EngineOptions initiator_options;
  initiator_options.name = "initiator";
  initiator_options.listen_address = "";  // does not accept peers
  auto initiator = xfer::Engine::Create(initiator_options);
  if (!initiator.ok()) return 1;
  auto local = (*initiator)->AllocateMemory(1 << 20, {xfer::Access::kNone});
  if (!local.ok()) return 1;
  auto peer = (*initiator)->Connect((*target)->listen_address(), {});
  if (!peer.ok()) return std::fprintf(stderr, "%s\n", peer.status().ToString().c_str()), 1;
  auto info = (*initiator)->GetPeerInfo(*peer);
  const xfer::RemoteRegion& remote = info->regions.at(0);  // what the target registered

  // WRITE 1 MiB into the target, synchronously.
  std::memset(local->address, 0xab, local->length);
  const xfer::TransferEntry write{local->address, remote.address, local->length};
  xfer::Status status = (*initiator)->Transfer(*peer, xfer::OpCode::kWrite, {&write, 1}, 5s);
  if (!status.ok()) return std::fprintf(stderr, "write: %s\n", status.ToString().c_str()), 1;

  // READ the first 4 KiB back, asynchronously.
  std::memset(local->address, 0, 4096);
  const xfer::TransferEntry read{local->address, remote.address, 4096};
  xfer::TransferRequest request;
  status = (*initiator)->Submit(*peer, xfer::OpCode::kRead, {&read, 1}, request);
  if (status.ok()) status = request.Wait(5s);
  if (!status.ok()) return std::fprintf(stderr, "read: %s\n", status.ToString().c_str()), 1;

  const auto* bytes = static_cast<const unsigned char*>(local->address);
  std::printf("transport %s: wrote %zu bytes, read back %zu bytes, first byte 0x%02x\n",
              info->transport.c_str(), local->length, request.bytes(), bytes[0]);
  return bytes[0] == 0xab && bytes[4095] == 0xab ? 0 : 1;
}
