// A dead, closing, silent or hostile peer: reported within the timeout,
// with the right code, never a hang or a crash. The killed peers are real
// processes (fork), so their queue pairs vanish as they would in
// production. Needs an RDMA device (skips otherwise).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <cstring>
#include <future>
#include <thread>

#include "common/wire.h"
#include "support/recording_sink.h"
#include "transport/verbs/setup_message.h"
#include "verbs_test_util.h"

namespace xfer::transport::verbs::testing {
namespace {

using namespace std::chrono_literals;
using xfer::testing::TestMemory;

constexpr size_t kRegion = 1 << 20;

EndpointSetup MakeSetup(Socket& control, const TestMemory& local, const TestMemory& peer,
                        bool initiator, std::chrono::milliseconds io_timeout,
                        std::chrono::milliseconds setup_timeout = 10000ms) {
  EndpointSetup setup;
  setup.initiator = initiator;
  setup.streams = 2;
  setup.control = &control;
  setup.peer_host = "127.0.0.1";
  setup.peer_pid = getpid();
  setup.local = &local;
  setup.announced = local.Snapshot();
  setup.remote = RemoteMemory(peer.AsRemote());
  setup.io_timeout = io_timeout;
  setup.deadline = Deadline::After(setup_timeout);
  setup.notifications = &xfer::testing::UnusedSink();
  return setup;
}

// The target side of a connection in a child process, so that killing it
// takes its QPs away as a crash would.
class VerbsPeerProcessTest : public VerbsDeviceTest {
 protected:
  void TearDown() override {
    if (child_ > 0) {
      kill(child_, SIGKILL);
      waitpid(child_, nullptr, 0);
    }
    if (ready_fd_ >= 0) close(ready_fd_);
  }

  // Forks the target, then connects to it. With `keep_child_control`, this
  // process keeps the child's end of the control socket open, so the
  // child's death shows only on the queue pairs.
  void Start(bool keep_child_control, std::chrono::milliseconds io_timeout = 5000ms) {
    local_ = initiator_memory_.Add(kRegion, Access::kNone);
    remote_ = target_memory_.Add(kRegion, Access::kRemoteReadWrite);
    int fds[2];
    int ready[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
    ASSERT_EQ(pipe(ready), 0);
    child_ = fork();
    ASSERT_GE(child_, 0);
    if (child_ == 0) {
      close(fds[0]);
      close(ready[0]);
      Socket control{UniqueFd(fds[1])};
      VerbsTransport transport(SideOptions(false));
      auto setup = MakeSetup(control, target_memory_, initiator_memory_, false, io_timeout);
      auto endpoint = transport.CreateEndpoint(setup);
      const char verdict = endpoint.ok() ? 'y' : 'n';
      if (write(ready[1], &verdict, 1) != 1) _exit(3);
      for (;;) pause();
    }
    close(ready[1]);
    ready_fd_ = ready[0];
    control_ = Socket(UniqueFd(fds[0]));
    if (keep_child_control) {
      child_control_ = Socket(UniqueFd(fds[1]));
    } else {
      close(fds[1]);
    }
    VerbsTransport transport(SideOptions(true));
    auto setup = MakeSetup(control_, initiator_memory_, target_memory_, true, io_timeout);
    auto endpoint = transport.CreateEndpoint(setup);
    ASSERT_TRUE(endpoint.ok()) << endpoint.status().ToString();
    endpoint_ = std::move(endpoint.value());
    char verdict = 0;
    ASSERT_EQ(read(ready_fd_, &verdict, 1), 1);
    ASSERT_EQ(verdict, 'y');
  }

  Status WriteAll() {
    TransferRequest request;
    const TransferEntry entry{Bytes(local_), Addr(Bytes(remote_)), kRegion};
    Status posted = endpoint_->PostWrite({&entry, 1}, request, 0);
    if (!posted.ok()) return posted;
    (void)request.Wait(kWait);
    EXPECT_TRUE(request.done()) << "a write to a dead peer hung";
    return request.Test();
  }

  void KillChild() {
    kill(child_, SIGKILL);
    waitpid(child_, nullptr, 0);
    child_ = -1;
  }

  TestMemory initiator_memory_;
  TestMemory target_memory_;
  LocalRegionView local_;
  LocalRegionView remote_;
  Socket control_;
  Socket child_control_;
  std::unique_ptr<Endpoint> endpoint_;  // after the memories and sockets
  pid_t child_ = -1;
  int ready_fd_ = -1;
};

// Only the queue pairs can tell: a real NIC exhausts its RC retries
// (IBV_WC_RETRY_EXC_ERR, ~0.5 s with timeout 14); Soft-RoCE treats
// retry_cnt 7 as "retry forever", so there the io_timeout check reports it.
TEST_F(VerbsPeerProcessTest, KilledPeerIsReportedWithinTheTimeoutWithoutTheControlSocket) {
  Start(/*keep_child_control=*/true, 2000ms);
  FillPattern(Bytes(local_), kRegion, 1);
  ASSERT_TRUE(WriteAll().ok());
  // The memfd pages are shared with the child: the bytes really landed.
  EXPECT_EQ(FirstPatternMismatch(Bytes(remote_), kRegion, 1), kRegion);
  KillChild();
  const auto start = std::chrono::steady_clock::now();
  Status status = WriteAll();
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_TRUE(status.code() == StatusCode::kConnectionLost ||
              status.code() == StatusCode::kTimeout)
      << status.ToString();
  EXPECT_LT(elapsed, 3500ms) << status.ToString();
  TransferRequest request;
  const TransferEntry entry{Bytes(local_), Addr(Bytes(remote_)), 8};
  EXPECT_EQ(endpoint_->PostWrite({&entry, 1}, request, 1).code(), StatusCode::kConnectionLost);
}

TEST_F(VerbsPeerProcessTest, KilledPeerIsReportedByTheControlSocketAtOnce) {
  Start(/*keep_child_control=*/false);
  ASSERT_TRUE(WriteAll().ok());
  KillChild();
  const auto start = std::chrono::steady_clock::now();
  // Even an idle connection learns of it: no transfer needed.
  TransferRequest recv;
  Status posted = endpoint_->PostRecv(Bytes(local_), 64, recv);
  if (posted.ok()) {
    (void)recv.Wait(kWait);
    ASSERT_TRUE(recv.done()) << "a posted receive outlived the peer";
    posted = recv.Test();
  }
  EXPECT_EQ(posted.code(), StatusCode::kConnectionLost) << posted.ToString();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
  EXPECT_EQ(WriteAll().code(), StatusCode::kConnectionLost);
}

class VerbsLocalFailureTest : public VerbsDeviceTest {};

TEST_F(VerbsLocalFailureTest, CloseFinishesInFlightRequestsAndRefusesNewOnes) {
  xfer::testing::EndpointPair pair;
  auto local = pair.initiator_memory.Add(4 * kRegion, Access::kNone);
  auto remote = pair.target_memory.Add(4 * kRegion, Access::kRemoteReadWrite);
  VerbsTransport initiator(SideOptions(true));
  VerbsTransport target(SideOptions(false));
  ASSERT_TRUE(xfer::testing::ConnectPair(initiator, target, pair, 2).ok());
  TransferRequest requests[4];
  for (uint32_t i = 0; i < 4; ++i) {
    const TransferEntry entry{Bytes(local) + i * kRegion, Addr(Bytes(remote)) + i * kRegion,
                              kRegion};
    ASSERT_TRUE(pair.initiator->PostWrite({&entry, 1}, requests[i], i).ok());
  }
  pair.initiator->Close();
  for (auto& request : requests) {
    ASSERT_TRUE(request.done()) << "Close returned with a request in flight";
    const StatusCode code = request.Test().code();
    EXPECT_TRUE(code == StatusCode::kOk || code == StatusCode::kConnectionLost)
        << request.Test().ToString();
  }
  const TransferEntry entry{Bytes(local), Addr(Bytes(remote)), 8};
  EXPECT_EQ(pair.initiator->PostWrite({&entry, 1}, requests[0], 0).code(),
            StatusCode::kConnectionLost);
  pair.initiator->Close();  // idempotent
}

// Our endpoint against a peer that speaks raw bytes on the control socket.
class VerbsHostileSetupTest : public VerbsDeviceTest {
 protected:
  void SetUp() override {
    VerbsDeviceTest::SetUp();
    if (IsSkipped()) return;
    memory_.Add(4096, Access::kRemoteReadWrite);
    raw_memory_.Add(4096, Access::kRemoteReadWrite);
    int fds[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
    control_ = Socket(UniqueFd(fds[0]));
    raw_ = Socket(UniqueFd(fds[1]));
  }

  // Runs our side as the initiator while `peer` plays the other on raw_.
  Status Run(const std::function<void(Socket&)>& peer, std::chrono::milliseconds deadline = 5000ms) {
    auto raw = std::async(std::launch::async, [&] { peer(raw_); });
    VerbsTransport transport(SideOptions(true));
    auto setup = MakeSetup(control_, memory_, raw_memory_, true, 2000ms, deadline);
    auto endpoint = transport.CreateEndpoint(setup);
    raw.get();
    return endpoint.status();
  }

  // The initiator's SETUP, read by the raw peer.
  static Result<PeerMessage> ReadMessage(Socket& raw) {
    auto bytes = raw.RecvMessage(kMaxSetupMessageBytes, Deadline::After(kWait));
    if (!bytes.ok()) return bytes.status();
    return DecodePeerMessage(*bytes);
  }

  TestMemory memory_;
  TestMemory raw_memory_;
  Socket control_;
  Socket raw_;
};

TEST_F(VerbsHostileSetupTest, GarbageIsAProtocolErrorAndThePeerIsTold) {
  Status verdict;
  const auto start = std::chrono::steady_clock::now();
  Status status = Run([&](Socket& raw) {
    ASSERT_TRUE(ReadMessage(raw).ok());
    const std::vector<uint8_t> garbage = {'n', 'o', 't', ' ', 'x', 'f', 'e', 'r'};
    ASSERT_TRUE(raw.SendMessage(garbage, Deadline::After(kWait)).ok());
    // The initiator tells us why in its next message.
    ASSERT_TRUE(raw.SendMessage(EncodeVerdict(Status::Ok()), Deadline::After(kWait)).ok());
    auto told = ReadMessage(raw);
    ASSERT_TRUE(told.ok()) << told.status().ToString();
    verdict = told->verdict;
  });
  EXPECT_EQ(status.code(), StatusCode::kProtocolError) << status.ToString();
  EXPECT_EQ(verdict.code(), StatusCode::kProtocolError) << verdict.ToString();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
}

TEST_F(VerbsHostileSetupTest, RegionsThatDifferFromTheHandshakeAreRefused) {
  Status status = Run([&](Socket& raw) {
    auto ours = ReadMessage(raw);
    ASSERT_TRUE(ours.ok());
    SetupMessage lie = ours->setup;  // plausible QPs...
    lie.keys = {{99, 0x1000, 1 << 30, 0x1234, Access::kRemoteReadWrite}};  // ...a made-up region
    ASSERT_TRUE(raw.SendMessage(EncodeSetup(lie), Deadline::After(kWait)).ok());
    ASSERT_TRUE(raw.SendMessage(EncodeVerdict(Status::Ok()), Deadline::After(kWait)).ok());
    (void)ReadMessage(raw);
  });
  EXPECT_EQ(status.code(), StatusCode::kProtocolError) << status.ToString();
  EXPECT_NE(status.message().find("region"), std::string::npos) << status.ToString();
}

TEST_F(VerbsHostileSetupTest, APeersFailureIsReportedWithItsReason) {
  Status status = Run([&](Socket& raw) {
    ASSERT_TRUE(ReadMessage(raw).ok());
    ASSERT_TRUE(raw.SendMessage(EncodeVerdict(FailedPrecondition("no RDMA device: test")),
                                Deadline::After(kWait))
                    .ok());
  });
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition) << status.ToString();
  EXPECT_NE(status.message().find("no RDMA device: test"), std::string::npos) << status.ToString();
}

TEST_F(VerbsHostileSetupTest, APeerThatHangsUpIsConnectionLost) {
  Status status = Run([&](Socket& raw) {
    ASSERT_TRUE(ReadMessage(raw).ok());
    raw.Close();
  });
  EXPECT_EQ(status.code(), StatusCode::kConnectionLost) << status.ToString();
}

TEST_F(VerbsHostileSetupTest, ASilentPeerTimesOutAtTheDeadline) {
  const auto start = std::chrono::steady_clock::now();
  Status status = Run([&](Socket& raw) { ASSERT_TRUE(ReadMessage(raw).ok()); }, 700ms);
  EXPECT_EQ(status.code(), StatusCode::kTimeout) << status.ToString();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
}

}  // namespace
}  // namespace xfer::transport::verbs::testing
