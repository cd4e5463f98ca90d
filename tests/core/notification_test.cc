// Engine notifications (Engine::Notify, SubmitOptions::notification,
// GetNotifications) on every transport, direct and staged: delivered after
// the data, with the sender's id and name, kept after a disconnect, never
// for a transfer the peer refused, and never ahead of the data even when
// the sender is killed mid-stream.
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "support/byte_pattern.h"
#include "support/connected_test_engines.h"
#include "support/transport_capabilities.h"
#include "support/verbs_test_env.h"
#include "xfer/engine.h"

namespace xfer {
namespace {

using namespace std::chrono_literals;

constexpr size_t kNotifyRegion = size_t{8} << 20;

// Whether [p, p + n) holds the pattern of `seed` (support/byte_pattern.h).
bool NoteMatches(const uint8_t* p, size_t n, uint32_t seed) {
  return testing::FirstPatternMismatch(p, n, seed) == n;
}

struct NotifyCase {
  std::string transport;
  DevicePath path;
};

std::vector<NotifyCase> NotifyCases() {
  std::vector<NotifyCase> cases;
  for (const std::string& t : testing::BuiltTransports()) {
    cases.push_back({t, DevicePath::kAuto});
    cases.push_back({t, DevicePath::kStaged});
  }
  return cases;
}

class NotificationTest : public ::testing::TestWithParam<NotifyCase>,
                         protected testing::ConnectedTestEngines {
 protected:
  void SetUp() override {
    CreateEngines({.transport = transport(), .initiator_path = GetParam().path});
    if (HasFatalFailure() || IsSkipped()) return;
    local_ = Allocate(*initiator_, kNotifyRegion);
    remote_ = Allocate(*target_, kNotifyRegion);
    ASSERT_NO_FATAL_FAILURE(ConnectEngines(2));
  }

  const std::string& transport() const { return GetParam().transport; }
  uint8_t* local() { return static_cast<uint8_t*>(local_.address); }
  uint8_t* remote() { return static_cast<uint8_t*>(remote_.address); }
  uint64_t remote_address() { return reinterpret_cast<uint64_t>(remote_.address); }

  MemoryRegion local_;
  MemoryRegion remote_;
};

// A request a failed assertion leaves in flight would outlive its storage:
// on the way out, the connection is closed, which ends it, and it is
// waited for. (Soft-RoCE has been seen to stall an 8 MiB READ for good.)
class SettledOnExit {
 public:
  SettledOnExit(Engine& engine, PeerId peer, TransferRequest& request)
      : engine_(engine), peer_(peer), request_(request) {}
  ~SettledOnExit() {
    if (request_.done()) return;
    (void)engine_.Disconnect(peer_);
    (void)request_.Wait(10s);
  }
  SettledOnExit(const SettledOnExit&) = delete;
  SettledOnExit& operator=(const SettledOnExit&) = delete;

 private:
  Engine& engine_;
  const PeerId peer_;
  TransferRequest& request_;
};

TEST_P(NotificationTest, AWritesNotificationArrivesAfterItsBytesWithTheSendersName) {
  // Larger than a staging chunk, so that a staged request has several.
  const size_t size = (size_t{5} << 20) + 17;
  testing::FillPattern(local(), size, 4);
  std::memset(remote(), 0, size);
  const TransferEntry entry{local(), remote_address(), size};
  SubmitOptions options;
  options.stream = 1;
  options.notification = "kv block 7 ready";
  TransferRequest request;
  SettledOnExit settled(*initiator_, peer_, request);
  ASSERT_TRUE(initiator_->Submit(peer_, OpCode::kWrite, std::span(&entry, 1), request, options)
                  .ok());
  auto got = target_->GetNotifications(10s);
  // Read the memory before waiting for the request: the notification alone
  // must vouch for the bytes.
  const bool landed = NoteMatches(remote(), size, 4);
  ASSERT_TRUE(request.Wait(10s).ok());
  EXPECT_EQ(request.bytes(), size) << "the notification's bytes counted as the transfer's";
  ASSERT_EQ(got.size(), 1u);
  EXPECT_TRUE(landed) << "the notification arrived before the data";
  EXPECT_EQ(got[0].peer, accepted_);
  EXPECT_EQ(got[0].peer_name, "initiator");
  EXPECT_EQ(got[0].message, "kv block 7 ready");
  EXPECT_TRUE(initiator_->GetNotifications(0ms).empty()) << "the sender got its own";
}

TEST_P(NotificationTest, AReadsNotificationArrivesOnceItsBytesWereRead) {
  testing::FillPattern(remote(), kNotifyRegion, 9);
  std::memset(local(), 0, kNotifyRegion);
  const TransferEntry entry{local(), remote_address(), kNotifyRegion};
  SubmitOptions options;
  options.notification = "read done";
  TransferRequest request;
  SettledOnExit settled(*initiator_, peer_, request);
  ASSERT_TRUE(
      initiator_->Submit(peer_, OpCode::kRead, std::span(&entry, 1), request, options).ok());
  auto got = target_->GetNotifications(10s);
  ASSERT_EQ(got.size(), 1u);
  // The target may now reuse its buffer: the read has what it had.
  std::memset(remote(), 0xff, kNotifyRegion);
  ASSERT_TRUE(request.Wait(10s).ok());
  EXPECT_TRUE(NoteMatches(local(), kNotifyRegion, 9)) << "read after its notification";
}

TEST_P(NotificationTest, NotificationsAloneArriveInOrderAndFilterBySender) {
  for (int i = 0; i < 20; ++i) {
    TransferRequest request;
    ASSERT_TRUE(initiator_->Notify(peer_, "note " + std::to_string(i), request, 1).ok());
    ASSERT_TRUE(request.Wait(10s).ok());
  }
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(target_->GetNotifications(100ms, accepted_ + 1).empty());
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s) << "the wait ignored its timeout";
  std::vector<std::string> got;
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (got.size() < 20 && std::chrono::steady_clock::now() < deadline) {
    for (auto& n : target_->GetNotifications(1s, accepted_)) got.push_back(n.message);
  }
  ASSERT_EQ(got.size(), 20u);
  for (size_t i = 0; i < 20; ++i) EXPECT_EQ(got[i], "note " + std::to_string(i));
}

// A reader asleep in GetNotifications is woken by the next notification,
// not by its timeout (over shm: the doorbell its wait asked for).
TEST_P(NotificationTest, AReaderWaitingIsWokenByTheNextNotification) {
  std::vector<Notification> got;
  std::chrono::steady_clock::duration waited{};
  std::thread reader([&] {
    const auto start = std::chrono::steady_clock::now();
    got = target_->GetNotifications(20s, accepted_);
    waited = std::chrono::steady_clock::now() - start;
  });
  std::this_thread::sleep_for(200ms);  // the reader is asleep by now
  TransferRequest request;
  ASSERT_TRUE(initiator_->Notify(peer_, "wake up", request).ok());
  ASSERT_TRUE(request.Wait(10s).ok());
  reader.join();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].message, "wake up");
  EXPECT_LT(waited, 10s) << "the reader slept to its timeout";
}

// Far more notifications than any transport buffers, sent while no one
// reads: the sender is never stalled for good, and all of them are there,
// in order, when the reader comes.
TEST_P(NotificationTest, NotificationsSentWhileNoOneReadsAreAllKeptInOrder) {
  constexpr int kNotes = 300;
  for (int i = 0; i < kNotes; ++i) {
    TransferRequest request;
    ASSERT_TRUE(initiator_->Notify(peer_, "kept " + std::to_string(i), request).ok());
    ASSERT_TRUE(request.Wait(10s).ok()) << i;
  }
  std::vector<std::string> got;
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (got.size() < kNotes && std::chrono::steady_clock::now() < deadline) {
    for (auto& n : target_->GetNotifications(1s, accepted_)) got.push_back(n.message);
  }
  ASSERT_EQ(got.size(), size_t{kNotes});
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], "kept " + std::to_string(i));
}

TEST_P(NotificationTest, EmptyOrOverlongNotificationsAreRefusedAndNothingStarts) {
  TransferRequest request;
  EXPECT_EQ(initiator_->Notify(peer_, "", request).code(), StatusCode::kInvalidArgument);
  const std::string overlong(kMaxNotificationBytes + 1, 'n');
  EXPECT_EQ(initiator_->Notify(peer_, overlong, request).code(), StatusCode::kInvalidArgument);
  const TransferEntry entry{local(), remote_address(), 64};
  SubmitOptions options;
  options.notification = overlong;
  EXPECT_EQ(initiator_->Submit(peer_, OpCode::kWrite, std::span(&entry, 1), request, options)
                .code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(initiator_->Notify(12345, "x", request).code(), StatusCode::kNotFound);
  EXPECT_TRUE(request.Test().ok()) << "a refused call armed its request";
  EXPECT_TRUE(target_->GetNotifications(200ms).empty());
}

TEST_P(NotificationTest, ANotificationStaysReadableAfterItsSenderDisconnected) {
  TransferRequest request;
  ASSERT_TRUE(initiator_->Notify(peer_, "last words", request).ok());
  ASSERT_TRUE(request.Wait(10s).ok());
  // Delivered before the disconnect is seen: wait for it to be queued.
  auto first = target_->GetNotifications(10s, accepted_);
  ASSERT_EQ(first.size(), 1u);
  ASSERT_TRUE(initiator_->Notify(peer_, "and more", request).ok());
  ASSERT_TRUE(request.Wait(10s).ok());
  std::this_thread::sleep_for(200ms);
  ASSERT_TRUE(initiator_->Disconnect(peer_).ok());
  initiator_.reset();
  auto got = target_->GetNotifications(10s);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].message, "and more");
  EXPECT_EQ(got[0].peer, accepted_);
}

// A WRITE the peer refuses (its region deregistered since the handshake)
// must not be followed by its notification.
TEST_P(NotificationTest, ATransferThePeerRefusedSendsNoNotification) {
  ASSERT_TRUE(target_->DeregisterMemory(remote_).ok());
  const TransferEntry entry{local(), remote_address(), 4096};
  SubmitOptions options;
  options.notification = "must not arrive";
  TransferRequest request;
  Status posted =
      initiator_->Submit(peer_, OpCode::kWrite, std::span(&entry, 1), request, options);
  if (posted.ok()) {
    EXPECT_FALSE(request.Wait(10s).ok()) << "a refused write completed OK";
  }
  EXPECT_TRUE(target_->GetNotifications(500ms).empty());
}

INSTANTIATE_TEST_SUITE_P(
    Transports, NotificationTest, ::testing::ValuesIn(NotifyCases()),
    [](const auto& param_info) {
      return param_info.param.transport +
             (param_info.param.path == DevicePath::kStaged ? "_staged" : "");
    });

// The sender is killed while it streams WRITE + notification pairs into
// distinct blocks: every notification the target got must find its block
// whole, and the target's engine must carry on.
class NotificationPeerDeathTest : public ::testing::TestWithParam<std::string> {};

constexpr size_t kDeathBlock = size_t{64} << 10;
constexpr size_t kDeathBlocks = 128;

// The child: reads the target's address from `from_parent`, connects,
// writes block i then notifies "i", for every block, then waits to be
// killed. Exits non-zero on any failure. Forked before the parent made
// any engine, so that the child inherits no threads.
[[noreturn]] void StreamNotifiedWrites(const std::string& transport, int from_parent) {
  std::string address;
  for (char c = 0;;) {
    pollfd p{from_parent, POLLIN, 0};
    if (poll(&p, 1, 10000) != 1 || read(from_parent, &c, 1) != 1) _exit(7);
    if (c == '\n') break;
    address += c;
  }
  EngineOptions options;
  options.name = "doomed";
  options.listen_address = "";
  options.transports = {transport};
  testing::UseVerbsDevice(options, testing::TestVerbsDevices().initiator);
  auto engine = Engine::Create(options);
  if (!engine.ok()) _exit(2);
  auto local = (*engine)->AllocateMemory(kDeathBlock * kDeathBlocks, {});
  if (!local.ok()) _exit(3);
  ConnectOptions connect;
  connect.transport = transport;
  auto peer = (*engine)->Connect(address, connect);
  if (!peer.ok()) _exit(4);
  auto info = (*engine)->GetPeerInfo(*peer);
  if (!info.ok() || info->regions.empty()) _exit(5);
  auto* src = static_cast<uint8_t*>(local->address);
  for (size_t i = 0; i < kDeathBlocks; ++i) {
    testing::FillPattern(src + i * kDeathBlock, kDeathBlock, static_cast<uint32_t>(i));
    const TransferEntry entry{src + i * kDeathBlock, info->regions[0].address + i * kDeathBlock,
                              kDeathBlock};
    SubmitOptions submit;
    const std::string note = std::to_string(i);
    submit.notification = note;
    TransferRequest request;
    if (!(*engine)->Submit(*peer, OpCode::kWrite, std::span(&entry, 1), request, submit).ok()) {
      _exit(6);
    }
    (void)request.Wait(10s);
  }
  pause();
  _exit(0);
}

TEST_P(NotificationPeerDeathTest, NotificationsNeverPrecedeTheirDataWhenTheSenderIsKilled) {
  if (GetParam() == "verbs" && !testing::HasVerbsDevice()) {
    GTEST_SKIP() << testing::VerbsSkipReason();
  }
  int to_child[2];
  ASSERT_EQ(pipe(to_child), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(to_child[1]);
    StreamNotifiedWrites(GetParam(), to_child[0]);
  }
  close(to_child[0]);
  auto target = testing::MakeTestEngine(GetParam(), "target", "127.0.0.1:0",
                                 testing::TestVerbsDevices().target, DevicePath::kAuto);
  ASSERT_TRUE(target);
  auto region = target->AllocateMemory(kDeathBlock * kDeathBlocks, {});
  ASSERT_TRUE(region.ok());
  auto* memory = static_cast<uint8_t*>(region->address);
  const std::string address = target->listen_address();
  const std::string line = address + "\n";
  ASSERT_EQ(write(to_child[1], line.data(), line.size()), static_cast<ssize_t>(line.size()));
  close(to_child[1]);
  size_t seen = 0;
  bool killed = false;
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (std::chrono::steady_clock::now() < deadline) {
    auto got = target->GetNotifications(100ms);
    for (const Notification& n : got) {
      const size_t i = std::stoul(n.message);
      ASSERT_LT(i, kDeathBlocks);
      EXPECT_TRUE(NoteMatches(memory + i * kDeathBlock, kDeathBlock, static_cast<uint32_t>(i)))
          << "notification " << i << " arrived before its block";
      EXPECT_EQ(n.peer_name, "doomed");
      ++seen;
    }
    // Killed mid-stream, once a few notifications came through.
    if (!killed && seen >= 8) {
      kill(child, SIGKILL);
      killed = true;
    }
    if (killed && got.empty()) break;
  }
  if (!killed) kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(killed) << "the sender delivered too few notifications: " << seen
                      << "; its exit status " << status;
  EXPECT_TRUE(WIFSIGNALED(status)) << "the sender failed on its own: exit " << WEXITSTATUS(status);
  // The engine carries on: a new peer can connect and notify.
  auto again = testing::MakeTestEngine(GetParam(), "next", "", testing::TestVerbsDevices().initiator,
                                DevicePath::kAuto);
  ConnectOptions options;
  options.transport = GetParam();
  auto peer = again->Connect(address, options);
  ASSERT_TRUE(peer.ok()) << peer.status().ToString();
  TransferRequest request;
  ASSERT_TRUE(again->Notify(*peer, "alive", request).ok());
  ASSERT_TRUE(request.Wait(10s).ok());
  auto alive = target->GetNotifications(10s);
  ASSERT_FALSE(alive.empty());
  EXPECT_EQ(alive.back().message, "alive");
}

INSTANTIATE_TEST_SUITE_P(Transports, NotificationPeerDeathTest,
                         ::testing::ValuesIn(testing::BuiltTransports()),
                         [](const auto& param_info) { return param_info.param; });

}  // namespace
}  // namespace xfer
