// The shm transport between two real processes: descriptors cross a process
// boundary, process_vm reaches the other process's heap, and a peer killed
// with SIGKILL is reported as kConnectionLost.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <vector>

#include "common/wire.h"
#include "support/recording_sink.h"
#include "shm_test_util.h"

namespace xfer::testing {
namespace {

using std::chrono::seconds;

constexpr size_t kBytes = 300000;
constexpr size_t kOffset = 12345;
constexpr uint8_t kSeed = 91;

// Stands in for the engines' handshake: each side sends its region table.
Status SendTable(Socket& control, const std::vector<RemoteRegion>& table) {
  WireWriter w;
  w.U32(static_cast<uint32_t>(table.size()));
  for (const RemoteRegion& r : table) {
    w.U64(r.id);
    w.U64(r.address);
    w.U64(r.length);
    w.U32(static_cast<uint32_t>(r.access));
  }
  return control.SendMessage(w.bytes(), Deadline::After(seconds(5)));
}

Result<std::vector<RemoteRegion>> RecvTable(Socket& control) {
  auto body = control.RecvMessage(4096, Deadline::After(seconds(5)));
  if (!body.ok()) return body.status();
  WireReader r(*body);
  uint32_t count = 0;
  XFER_RETURN_IF_ERROR(r.U32(count));
  std::vector<RemoteRegion> table(count);
  for (RemoteRegion& region : table) {
    uint32_t access = 0;
    XFER_RETURN_IF_ERROR(r.U64(region.id));
    XFER_RETURN_IF_ERROR(r.U64(region.address));
    XFER_RETURN_IF_ERROR(r.U64(region.length));
    XFER_RETURN_IF_ERROR(r.U32(access));
    region.access = static_cast<Access>(access);
  }
  return table;
}

// Runs the fake handshake and CreateEndpoint; `peer_table` receives the
// peer's regions.
Result<std::unique_ptr<transport::Endpoint>> Connect(bool initiator, Socket& control,
                                                     TestMemory& memory, int peer_pid,
                                                     std::vector<RemoteRegion>& peer_table) {
  XFER_RETURN_IF_ERROR(SendTable(control, memory.AsRemote()));
  auto peer = RecvTable(control);
  if (!peer.ok()) return peer.status();
  peer_table = *peer;
  transport::EndpointSetup setup;
  setup.initiator = initiator;
  setup.control = &control;
  setup.peer_pid = peer_pid;
  setup.local = &memory;
  setup.announced = memory.Snapshot();
  setup.remote = transport::RemoteMemory(*peer);
  setup.io_timeout = std::chrono::milliseconds(5000);
  setup.deadline = Deadline::After(seconds(5));
  setup.devices = &TestDevices();
  setup.notifications = &xfer::testing::UnusedSink();
  transport::shm::ShmTransport shm;
  return shm.CreateEndpoint(setup);
}

// The child: a passive target. It checks that the parent's WRITEs landed in
// both of its regions when told to, answers with one byte, then idles until
// it is killed. Returns an exit code (never returns on success).
int RunTarget(Socket control) {
  TestMemory memory;
  auto memfd = memory.Add(size_t{1} << 20, Access::kRemoteReadWrite);
  auto heap = memory.Add(size_t{1} << 20, Access::kRemoteReadWrite, false);
  std::memset(heap.address, 0, heap.length);
  std::vector<RemoteRegion> parent_regions;
  auto endpoint = Connect(false, control, memory, getppid(), parent_regions);
  if (!endpoint.ok()) return 2;
  uint8_t command = 0;
  TransferRequest recv;
  if (!(*endpoint)->PostRecv(&command, 1, recv).ok() || !recv.Wait(seconds(10)).ok()) return 3;
  std::vector<uint8_t> expected(kBytes);
  FillPattern(expected.data(), kBytes, kSeed);
  uint8_t verdict = std::memcmp(Ptr(memfd) + kOffset, expected.data(), kBytes) == 0 &&
                    std::memcmp(Ptr(heap) + kOffset, expected.data(), kBytes) == 0;
  TransferRequest send;
  if (!(*endpoint)->PostSend(&verdict, 1, send, 0).ok() || !send.Wait(seconds(10)).ok()) return 4;
  sleep(30);  // the parent kills us long before
  return 5;
}

// Kills and reaps the child whatever the test's outcome.
struct Child {
  pid_t pid = -1;
  ~Child() {
    if (pid > 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
  }
};

TEST(ShmCrossProcessTest, WritesLandInAnotherProcessAndItsDeathIsReported) {
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
  Child child;
  child.pid = fork();
  ASSERT_GE(child.pid, 0);
  if (child.pid == 0) {
    close(fds[0]);
    _exit(RunTarget(Socket(UniqueFd(fds[1]))));
  }
  close(fds[1]);
  Socket control{UniqueFd(fds[0])};
  TestMemory memory;
  auto local = memory.Add(size_t{2} << 20, Access::kRemoteReadWrite);
  std::vector<RemoteRegion> child_regions;
  auto endpoint = Connect(true, control, memory, child.pid, child_regions);
  ASSERT_TRUE(endpoint.ok()) << endpoint.status().ToString();
  ASSERT_EQ(child_regions.size(), 2u);  // TestMemory ids in order: memfd, heap
  transport::Endpoint& ep = **endpoint;

  // WRITE into the child's memfd (mapped here) and heap (process_vm).
  FillPattern(local.address, kBytes, kSeed);
  TransferEntry writes[] = {{local.address, child_regions[0].address + kOffset, kBytes},
                            {local.address, child_regions[1].address + kOffset, kBytes}};
  TransferRequest request;
  ASSERT_TRUE(ep.PostWrite(writes, request, 0).ok());
  ASSERT_TRUE(request.Test().ok()) << request.Test().ToString();
  // READ both back.
  uint8_t* back = Ptr(local) + (size_t{1} << 20);
  TransferEntry reads[] = {{back, child_regions[0].address + kOffset, kBytes},
                           {back + kBytes, child_regions[1].address + kOffset, kBytes}};
  ASSERT_TRUE(ep.PostRead(reads, request, 0).ok());
  ASSERT_TRUE(request.Test().ok()) << request.Test().ToString();
  EXPECT_EQ(std::memcmp(back, local.address, kBytes), 0);
  EXPECT_EQ(std::memcmp(back + kBytes, local.address, kBytes), 0);

  // The child checks its own memory and answers.
  uint8_t verdict = 0, command = 1;
  TransferRequest recv, send;
  ASSERT_TRUE(ep.PostRecv(&verdict, 1, recv).ok());
  ASSERT_TRUE(ep.PostSend(&command, 1, send, 0).ok());
  ASSERT_TRUE(recv.Wait(seconds(10)).ok()) << recv.Test().ToString();
  EXPECT_EQ(verdict, 1) << "the child did not find the written bytes in its memory";

  // SIGKILL: no Close(), no goodbye; the kernel closes its socket.
  TransferRequest pending;
  ASSERT_TRUE(ep.PostRecv(&verdict, 1, pending).ok());
  kill(child.pid, SIGKILL);
  waitpid(child.pid, nullptr, 0);
  child.pid = -1;
  Status lost = pending.Wait(seconds(5));
  EXPECT_EQ(lost.code(), StatusCode::kConnectionLost) << lost.ToString();
  EXPECT_EQ(ep.PostWrite(writes, request, 0).code(), StatusCode::kConnectionLost);
}

}  // namespace
}  // namespace xfer::testing
