// The engine across two real processes, for every transport: data lands
// byte for byte, bad ranges are refused with memory untouched, and a dead or
// hostile peer is reported within the timeout.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "common/socket.h"
#include "core/two_process.h"
#include "support/verbs_test_env.h"
#include "xfer/engine.h"

namespace xfer {
namespace {

using namespace std::chrono_literals;
using testing::ChildCommand;
using testing::Fnv1a;
using testing::TargetProcess;

constexpr size_t kEngineRegion = 1 << 20;

std::unique_ptr<Engine> MakeInitiator(const std::string& transport) {
  EngineOptions options;
  options.name = "initiator";
  options.listen_address = "";
  options.transports = {transport};
  options.connect_timeout = 3000ms;
  options.io_timeout = 2000ms;
  testing::UseVerbsDevice(options, testing::TestVerbsDevices().initiator);
  auto engine = Engine::Create(options);
  EXPECT_TRUE(engine.ok()) << engine.status().ToString();
  return std::move(engine.value());
}

class EngineTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "verbs" && !testing::HasVerbsDevice()) {
      GTEST_SKIP() << testing::VerbsSkipReason();
    }
  }

  void Connect(TargetProcess& target) {
    engine_ = MakeInitiator(GetParam());
    auto local = engine_->AllocateMemory(kEngineRegion, {});
    ASSERT_TRUE(local.ok());
    local_ = *local;
    ConnectOptions options;
    options.transport = GetParam();
    options.streams = 2;
    auto peer = engine_->Connect(target.address(), options);
    ASSERT_TRUE(peer.ok()) << peer.status().ToString();
    peer_ = *peer;
  }
  uint8_t* local() { return static_cast<uint8_t*>(local_.address); }

  std::unique_ptr<Engine> engine_;
  MemoryRegion local_;
  PeerId peer_ = 0;
};

TEST(EngineOptionsTest, TransportOptionsAreCheckedByTheirTransportAtCreate) {
  auto create = [](std::map<std::string, TransportOptions, std::less<>> settings,
                   std::vector<std::string> transports) {
    EngineOptions options;
    options.listen_address = "";
    options.transports = std::move(transports);
    options.transport_options = std::move(settings);
    return Engine::Create(options).status();
  };
  EXPECT_TRUE(create({{"shm", {}}}, {}).ok());
  const Status unknown = create({{"rdma", {{"device", "x"}}}}, {});
  EXPECT_EQ(unknown.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(unknown.message().find("options for unknown transport 'rdma'"), std::string::npos)
      << unknown.ToString();
  // A typo is refused even for a transport this engine leaves out.
  const Status typo = create({{"tcp", {{"nodelay", "1"}}}}, {"shm"});
  EXPECT_EQ(typo.message(), "the tcp transport takes no options (got 'nodelay')");
  if (testing::kBuiltWithVerbs) {
    const Status port = create({{"verbs", {{"port", "256"}}}}, {});
    EXPECT_EQ(port.message(), "verbs transport option 'port': '256' is not an integer in [1, 255]");
  }
}

// Issue 28, item 2: every option a built-in transport takes is listed, from
// the transport's own table, with what a tool needs to offer it.
// src/doctor/run_file.cc reads this text from run files (it does not link
// the engine): a change here must change it there.
TEST(EngineOptionsTest, TheNicsDataMoverNameIsWhatTheDoctorReads) {
  EXPECT_STREQ(DataMoverName(DataMover::kNic), "nic");
}

TEST(EngineOptionsTest, BuiltinTransportOptionsListEachTransportsTable) {
  const std::vector<TransportOptionInfo> options = BuiltinTransportOptions();
  const std::vector<std::string> transports = BuiltinTransports();
  for (const TransportOptionInfo& option : options) {
    EXPECT_NE(std::find(transports.begin(), transports.end(), option.transport), transports.end())
        << option.transport;
    EXPECT_FALSE(option.key.empty());
    EXPECT_FALSE(option.doc.empty()) << option.key;
    EXPECT_FALSE(option.default_text.empty()) << option.key;
    EXPECT_TRUE(!option.integer || option.min <= option.max) << option.key;
    // Every listed key is one Engine::Create takes.
    EngineOptions engine;
    engine.listen_address = "";
    engine.transport_options[option.transport][option.key] =
        option.integer ? std::to_string(option.choices.empty() ? option.min : option.choices[0])
                       : "some-device";
    EXPECT_TRUE(Engine::Create(engine).ok()) << option.transport << " " << option.key;
  }
  if (testing::kBuiltWithVerbs) {
    const auto mtu = std::find_if(options.begin(), options.end(), [](const auto& option) {
      return option.transport == "verbs" && option.key == "mtu";
    });
    ASSERT_NE(mtu, options.end());
    EXPECT_EQ(mtu->flag, "-m");
    EXPECT_EQ(mtu->choices, (std::vector<uint64_t>{256, 512, 1024, 2048, 4096}));
  } else {
    EXPECT_TRUE(options.empty());  // shm and tcp take none
  }
}

TEST_P(EngineTest, ConnectionUsesTheForcedTransportAndSeesPeerRegions) {
  TargetProcess target(BuiltinTransports(), kEngineRegion, Access::kRemoteReadWrite, 0);
  Connect(target);
  auto info = engine_->GetPeerInfo(peer_);
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->transport, GetParam());
  EXPECT_EQ(info->name, "target");
  ASSERT_EQ(info->regions.size(), 1u);
  EXPECT_EQ(info->regions[0].address, target.region().address);
  EXPECT_EQ(info->regions[0].length, kEngineRegion);
  // The NIC port is named exactly where a NIC moves the bytes.
  if (info->data_mover == DataMover::kNic) {
    EXPECT_FALSE(info->nic.device.empty());
    EXPECT_GE(info->nic.port, 1u);
    EXPECT_GE(info->nic.mtu_bytes, 256u);
    EXPECT_LE(info->nic.mtu_bytes, 4096u);
  } else {
    EXPECT_EQ(info->nic.device, "");
    EXPECT_EQ(info->nic.mtu_bytes, 0u);
  }
}

TEST_P(EngineTest, WriteBatchLandsByteForByteAndReadsBack) {
  TargetProcess target({GetParam()}, kEngineRegion, Access::kRemoteReadWrite, 0);
  Connect(target);
  for (size_t i = 0; i < kEngineRegion; ++i) local()[i] = static_cast<uint8_t>(i * 7 + 3);
  const uint64_t remote = target.region().address;
  // Three pieces out of order, covering the region exactly.
  const TransferEntry batch[] = {{local() + 4096, remote + 4096, kEngineRegion - 4096 - 100},
                                 {local(), remote, 4096},
                                 {local() + kEngineRegion - 100, remote + kEngineRegion - 100, 100}};
  ASSERT_TRUE(engine_->Transfer(peer_, OpCode::kWrite, batch, 5s).ok());
  EXPECT_EQ(target.Ask(ChildCommand::kHash), Fnv1a(local(), kEngineRegion));

  std::vector<uint8_t> expected(local(), local() + kEngineRegion);
  std::memset(local(), 0, kEngineRegion);
  ASSERT_TRUE(engine_->Transfer(peer_, OpCode::kRead, batch, 5s).ok());
  EXPECT_EQ(std::memcmp(local(), expected.data(), kEngineRegion), 0);
}

// PeerInfo::max_entries_per_post (the transport's capability): a longer
// batch is refused whole, before any byte moves, and the connection goes on.
TEST_P(EngineTest, ABatchLongerThanOnePostTakesIsRefusedBeforeAnyByteMoves) {
  TargetProcess target({GetParam()}, kEngineRegion, Access::kRemoteReadWrite, 0);
  Connect(target);
  auto info = engine_->GetPeerInfo(peer_);
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  const uint64_t longest = info->max_entries_per_post;
  if (longest >= kEngineRegion) {
    GTEST_SKIP() << GetParam() << " takes batches of up to " << longest << " entries";
  }
  const uint64_t remote = target.region().address;
  const uint64_t before = target.Ask(ChildCommand::kHash);
  std::memset(local(), 0x5c, kEngineRegion);
  std::vector<TransferEntry> batch;
  for (uint64_t i = 0; i <= longest; ++i) batch.push_back({local() + i, remote + i, 1});
  const Status refused = engine_->Transfer(peer_, OpCode::kWrite, batch, 5s);
  EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument) << refused.ToString();
  EXPECT_EQ(target.Ask(ChildCommand::kHash), before) << "a refused batch wrote";
  batch.resize(4);
  EXPECT_TRUE(engine_->Transfer(peer_, OpCode::kWrite, batch, 5s).ok());
  EXPECT_NE(target.Ask(ChildCommand::kHash), before);
}

TEST_P(EngineTest, AsyncRequestsOnSeveralStreamsComplete) {
  TargetProcess target({GetParam()}, kEngineRegion, Access::kRemoteReadWrite, 0);
  Connect(target);
  std::memset(local(), 0x5a, kEngineRegion);
  TransferRequest requests[8];
  const size_t piece = kEngineRegion / 8;
  for (uint32_t i = 0; i < 8; ++i) {
    const TransferEntry entry{local() + i * piece, target.region().address + i * piece, piece};
    ASSERT_TRUE(engine_->Submit(peer_, OpCode::kWrite, std::span(&entry, 1), requests[i], i).ok());
  }
  for (auto& request : requests) {
    ASSERT_TRUE(request.Wait(5s).ok());
    EXPECT_EQ(request.bytes(), piece);
  }
  EXPECT_EQ(target.Ask(ChildCommand::kHash), Fnv1a(local(), kEngineRegion));
}

TEST_P(EngineTest, OutOfRangeAndUnregisteredRemotesAreRefusedUntouched) {
  TargetProcess target({GetParam()}, kEngineRegion, Access::kRemoteReadWrite, 0x11);
  Connect(target);
  const uint64_t before = target.Ask(ChildCommand::kHash);
  const uint64_t remote = target.region().address;
  std::memset(local(), 0xee, kEngineRegion);
  const TransferEntry past_end{local(), remote + kEngineRegion - 10, 20};
  const TransferEntry before_start{local(), remote - 4096, 8};
  const TransferEntry wraps{local(), UINT64_MAX - 4, 16};
  for (const auto& bad : {past_end, before_start, wraps}) {
    TransferRequest request;
    Status status = engine_->Submit(peer_, OpCode::kWrite, std::span(&bad, 1), request);
    EXPECT_EQ(status.code(), StatusCode::kOutOfRange) << status.ToString();
  }
  const TransferEntry unregistered_local{reinterpret_cast<void*>(0x1000), remote, 8};
  EXPECT_EQ(engine_->Transfer(peer_, OpCode::kWrite, std::span(&unregistered_local, 1), 1s).code(),
            StatusCode::kOutOfRange);
  EXPECT_EQ(target.Ask(ChildCommand::kHash), before);
  // The connection still works afterwards.
  const TransferEntry good{local(), remote, 64};
  EXPECT_TRUE(engine_->Transfer(peer_, OpCode::kWrite, std::span(&good, 1), 5s).ok());
}

TEST_P(EngineTest, ReadOnlyRegionRefusesWrites) {
  TargetProcess target({GetParam()}, kEngineRegion, Access::kRemoteRead, 0x22);
  Connect(target);
  const uint64_t before = target.Ask(ChildCommand::kHash);
  const TransferEntry entry{local(), target.region().address, 4096};
  EXPECT_EQ(engine_->Transfer(peer_, OpCode::kWrite, std::span(&entry, 1), 1s).code(),
            StatusCode::kPermissionDenied);
  EXPECT_EQ(target.Ask(ChildCommand::kHash), before);
  EXPECT_TRUE(engine_->Transfer(peer_, OpCode::kRead, std::span(&entry, 1), 5s).ok());
  EXPECT_EQ(local()[0], 0x22);
}

TEST_P(EngineTest, SendLandsInThePeersPostedReceive) {
  TargetProcess target({GetParam()}, 4096, Access::kRemoteReadWrite, 0);
  Connect(target);
  for (size_t i = 0; i < 4096; ++i) local()[i] = static_cast<uint8_t>(i ^ 0x3c);
  std::thread receiver([&] { EXPECT_EQ(target.Ask(ChildCommand::kReceive), 1000u); });
  TransferRequest send;
  ASSERT_TRUE(engine_->PostSend(peer_, local(), 1000, send).ok());
  EXPECT_TRUE(send.Wait(5s).ok());
  receiver.join();
  std::vector<uint8_t> expected(local(), local() + 1000);
  expected.resize(4096, 0);
  EXPECT_EQ(target.Ask(ChildCommand::kHash), Fnv1a(expected.data(), expected.size()));
}

TEST_P(EngineTest, PeerKilledMidTransferIsReportedWithinTheTimeout) {
  TargetProcess target({GetParam()}, kEngineRegion, Access::kRemoteReadWrite, 0);
  Connect(target);
  const TransferEntry entry{local(), target.region().address, kEngineRegion};
  ASSERT_TRUE(engine_->Transfer(peer_, OpCode::kWrite, std::span(&entry, 1), 5s).ok());
  target.Kill();
  const auto start = std::chrono::steady_clock::now();
  Status status;
  while (std::chrono::steady_clock::now() - start < 8s) {
    status = engine_->Transfer(peer_, OpCode::kWrite, std::span(&entry, 1), 3s);
    if (!status.ok()) break;
    std::this_thread::sleep_for(10ms);
  }
  ASSERT_FALSE(status.ok()) << "transfers to a killed peer kept succeeding";
  EXPECT_TRUE(status.code() == StatusCode::kConnectionLost || status.code() == StatusCode::kTimeout ||
              status.code() == StatusCode::kNotFound)
      << status.ToString();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 8s);
}

INSTANTIATE_TEST_SUITE_P(Transports, EngineTest, ::testing::Values("shm", "tcp", "verbs"),
                         [](const auto& param_info) { return param_info.param; });

TEST(EngineSelectionTest, SameHostPeersPickShmUnlessForced) {
  TargetProcess target({"shm", "tcp"}, 4096, Access::kRemoteReadWrite, 0);
  auto engine = MakeInitiator("shm");
  auto peer = engine->Connect(target.address(), {});
  ASSERT_TRUE(peer.ok()) << peer.status().ToString();
  EXPECT_EQ(engine->GetPeerInfo(*peer)->transport, "shm");
}

// What a build has is what it says it has: a build without RDMA verbs
// (XFER_VERBS=OFF, or no rdma-core) refuses "verbs" by name.
TEST(EngineSelectionTest, TheBuildsTransportsAreExactlyTheBuiltinOnes) {
  const std::vector<std::string> expected =
      testing::kBuiltWithVerbs ? std::vector<std::string>{"shm", "tcp", "verbs"}
                               : std::vector<std::string>{"shm", "tcp"};
  EXPECT_EQ(BuiltinTransports(), expected);
  EngineOptions options;
  options.transports = {"verbs"};
  auto engine = Engine::Create(options);
  EXPECT_EQ(engine.ok(), testing::kBuiltWithVerbs) << engine.status().ToString();
  if (!testing::kBuiltWithVerbs) {
    EXPECT_EQ(engine.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(engine.status().message().find("verbs"), std::string::npos)
        << engine.status().ToString();
  }
}

TEST(EngineSelectionTest, NoCommonTransportIsRefusedWithReason) {
  TargetProcess target({"tcp"}, 4096, Access::kRemoteReadWrite, 0);
  auto engine = MakeInitiator("shm");
  auto peer = engine->Connect(target.address(), {});
  ASSERT_FALSE(peer.ok());
  EXPECT_EQ(peer.status().code(), StatusCode::kNotSupported) << peer.status().ToString();
}

// Verbs is chosen over tcp when both peers have a usable RDMA device (it is
// never chosen over shm, which these same-host peers do not enable here),
// and the engine falls back to tcp when a peer has none or its setup fails.
std::unique_ptr<Engine> MakeVerbsTcpInitiator(std::optional<int> gid_index = std::nullopt) {
  EngineOptions options;
  options.name = "initiator";
  options.listen_address = "";
  options.transports = {"tcp", "verbs"};
  options.connect_timeout = 5000ms;
  options.io_timeout = 2000ms;
  testing::UseVerbsDevice(options, testing::TestVerbsDevices().initiator);
  if (gid_index) options.transport_options["verbs"]["gid_index"] = std::to_string(*gid_index);
  auto engine = Engine::Create(options);
  EXPECT_TRUE(engine.ok()) << engine.status().ToString();
  return std::move(engine.value());
}

// A write through the connection, checked byte for byte.
void ExpectWriteLands(Engine& engine, PeerId peer, TargetProcess& target) {
  auto local = engine.AllocateMemory(4096, {});
  ASSERT_TRUE(local.ok());
  auto* bytes = static_cast<uint8_t*>(local->address);
  for (size_t i = 0; i < 4096; ++i) bytes[i] = static_cast<uint8_t>(i * 13 + 1);
  const TransferEntry entry{bytes, target.region().address, 4096};
  ASSERT_TRUE(engine.Transfer(peer, OpCode::kWrite, std::span(&entry, 1), 5s).ok());
  EXPECT_EQ(target.Ask(ChildCommand::kHash), Fnv1a(bytes, 4096));
}

TEST(EngineSelectionTest, VerbsIsChosenOverTcpExactlyWhenThereIsADevice) {
  if (!testing::kBuiltWithVerbs) GTEST_SKIP() << testing::VerbsSkipReason();
  TargetProcess target({"tcp", "verbs"}, 4096, Access::kRemoteReadWrite, 0);
  auto engine = MakeVerbsTcpInitiator();
  auto peer = engine->Connect(target.address(), {});
  ASSERT_TRUE(peer.ok()) << peer.status().ToString();
  EXPECT_EQ(engine->GetPeerInfo(*peer)->transport,
            testing::HasVerbsDevice() ? "verbs" : "tcp");
  ExpectWriteLands(*engine, *peer, target);
}

TEST(EngineSelectionTest, ForcedVerbsWithoutADeviceFailsWithTheReason) {
  if (!testing::kBuiltWithVerbs) GTEST_SKIP() << testing::VerbsSkipReason();
  if (testing::HasVerbsDevice()) GTEST_SKIP() << "this host has an RDMA device";
  TargetProcess target({"tcp", "verbs"}, 4096, Access::kRemoteReadWrite, 0);
  auto engine = MakeVerbsTcpInitiator();
  auto peer = engine->Connect(target.address(), {.transport = "verbs"});
  ASSERT_FALSE(peer.ok());
  EXPECT_EQ(peer.status().code(), StatusCode::kFailedPrecondition) << peer.status().ToString();
  EXPECT_NE(peer.status().message().find("no RDMA device"), std::string::npos)
      << peer.status().ToString();
}

TEST(EngineSelectionTest, AcceptorWithoutAUsableDeviceFallsBackToTcp) {
  if (!testing::kBuiltWithVerbs) GTEST_SKIP() << testing::VerbsSkipReason();
  // The acceptor's verbs names a device that does not exist: unusable there.
  TargetProcess target({"tcp", "verbs"}, 4096, Access::kRemoteReadWrite, 0,
                       TransportOptions{{"device", "no-such-rdma-device"}});
  auto engine = MakeVerbsTcpInitiator();
  auto peer = engine->Connect(target.address(), {});
  ASSERT_TRUE(peer.ok()) << peer.status().ToString();
  EXPECT_EQ(engine->GetPeerInfo(*peer)->transport, "tcp");
  ExpectWriteLands(*engine, *peer, target);
}

TEST(EngineSelectionTest, ForcedVerbsOnAnAcceptorWithoutItIsRefusedWithTheReason) {
  if (!testing::HasVerbsDevice()) GTEST_SKIP() << testing::VerbsSkipReason();
  TargetProcess target({"tcp", "verbs"}, 4096, Access::kRemoteReadWrite, 0,
                       TransportOptions{{"device", "no-such-rdma-device"}});
  auto engine = MakeVerbsTcpInitiator();
  auto peer = engine->Connect(target.address(), {.transport = "verbs"});
  ASSERT_FALSE(peer.ok());
  EXPECT_EQ(peer.status().code(), StatusCode::kNotFound) << peer.status().ToString();
  EXPECT_NE(peer.status().message().find("no-such-rdma-device"), std::string::npos)
      << peer.status().ToString();
}

TEST(EngineSelectionTest, VerbsSetupFailureFallsBackToTcpUnlessForced) {
  if (!testing::HasVerbsDevice()) GTEST_SKIP() << testing::VerbsSkipReason();
  TargetProcess target({"tcp", "verbs"}, 4096, Access::kRemoteReadWrite, 0);
  // A GID index the port does not have: the device is usable, but the
  // initiator's verbs setup fails (and tells the acceptor).
  auto engine = MakeVerbsTcpInitiator(100000);
  auto peer = engine->Connect(target.address(), {});
  ASSERT_TRUE(peer.ok()) << peer.status().ToString();
  EXPECT_EQ(engine->GetPeerInfo(*peer)->transport, "tcp");
  ExpectWriteLands(*engine, *peer, target);

  auto forced = engine->Connect(target.address(), {.transport = "verbs"});
  ASSERT_FALSE(forced.ok());
  EXPECT_EQ(forced.status().code(), StatusCode::kInvalidArgument) << forced.status().ToString();
  EXPECT_NE(forced.status().message().find("gid"), std::string::npos)
      << forced.status().ToString();
}

TEST(EngineVerbsTest, HugepageRegionsTravelOverVerbs) {
  if (!testing::HasVerbsDevice()) GTEST_SKIP() << testing::VerbsSkipReason();
  TargetProcess target({"verbs"}, 4096, Access::kRemoteReadWrite, 0);
  auto engine = MakeInitiator("verbs");
  auto huge = engine->AllocateMemory(2 << 20, {Access::kNone, MemoryKind::kHugepage});
  if (!huge.ok()) GTEST_SKIP() << "no free 2 MiB hugepage: " << huge.status().ToString();
  auto peer = engine->Connect(target.address(), {.transport = "verbs"});
  ASSERT_TRUE(peer.ok()) << peer.status().ToString();
  auto* bytes = static_cast<uint8_t*>(huge->address);
  for (size_t i = 0; i < 4096; ++i) bytes[i] = static_cast<uint8_t>(i * 5 + 2);
  const TransferEntry entry{bytes, target.region().address, 4096};
  ASSERT_TRUE(engine->Transfer(*peer, OpCode::kWrite, std::span(&entry, 1), 5s).ok());
  EXPECT_EQ(target.Ask(ChildCommand::kHash), Fnv1a(bytes, 4096));
  std::memset(bytes, 0, 4096);
  ASSERT_TRUE(engine->Transfer(*peer, OpCode::kRead, std::span(&entry, 1), 5s).ok());
  EXPECT_EQ(Fnv1a(bytes, 4096), target.Ask(ChildCommand::kHash));
}

TEST(EngineHostileTest, ConnectToGarbageServerFailsWithProtocolError) {
  auto listener = Listener::Bind({"127.0.0.1", 0});
  ASSERT_TRUE(listener.ok());
  std::thread server([&] {
    auto socket = listener->Accept(Deadline::After(5s));
    if (!socket.ok()) return;
    const uint8_t garbage[] = {8, 0, 0, 0, 'n', 'o', 't', 'x', 'f', 'e', 'r', '!'};
    (void)socket->SendAll(garbage, sizeof(garbage), Deadline::After(1s));
    std::this_thread::sleep_for(500ms);
  });
  auto engine = MakeInitiator("tcp");
  auto peer = engine->Connect(FormatHostPort(listener->local_address()), {});
  server.join();
  ASSERT_FALSE(peer.ok());
  EXPECT_EQ(peer.status().code(), StatusCode::kProtocolError) << peer.status().ToString();
}

TEST(EngineHostileTest, OversizedHandshakeIsRejectedAndReported) {
  EngineOptions options;
  options.connect_timeout = 1000ms;
  auto engine = Engine::Create(options);
  ASSERT_TRUE(engine.ok());
  auto where = ParseHostPort((*engine)->listen_address());
  auto socket = ConnectTcp(*where, Deadline::After(2s));
  ASSERT_TRUE(socket.ok());
  const uint8_t huge[] = {0xff, 0xff, 0xff, 0x7f};  // a 2 GiB "message"
  ASSERT_TRUE(socket->SendAll(huge, sizeof(huge), Deadline::After(1s)).ok());
  auto peer = (*engine)->WaitForPeer(1500ms);
  ASSERT_FALSE(peer.ok());
  EXPECT_EQ(peer.status().code(), StatusCode::kTimeout);
  EXPECT_NE(peer.status().message().find("rejected"), std::string::npos) << peer.status().ToString();
}

// A loopback port that refuses connections for as long as this object lives.
// The socket is bound but never listens, so a connect gets an RST; it holds
// the port without SO_REUSEADDR, so no test running alongside can take it
// (closing a listener and reusing its port races with them).
class RefusingPort {
 public:
  RefusingPort() : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    sockaddr_in where{};
    where.sin_family = AF_INET;
    where.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(where);
    if (fd_.get() < 0 || ::bind(fd_.get(), reinterpret_cast<sockaddr*>(&where), length) != 0 ||
        ::getsockname(fd_.get(), reinterpret_cast<sockaddr*>(&where), &length) != 0) {
      ADD_FAILURE() << ErrnoMessage("binding a refusing port", errno);
      return;
    }
    address_ = "127.0.0.1:" + std::to_string(ntohs(where.sin_port));
  }
  const std::string& address() const { return address_; }

 private:
  UniqueFd fd_;
  std::string address_;
};

TEST(EngineHostileTest, ConnectToARefusingPortFailsWithinTheTimeout) {
  RefusingPort port;
  ASSERT_FALSE(port.address().empty());
  auto engine = MakeInitiator("tcp");
  const auto start = std::chrono::steady_clock::now();
  auto peer = engine->Connect(port.address(), {});
  EXPECT_FALSE(peer.ok());
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
}

TEST(EngineOptionsTest, RejectsBadOptions) {
  EngineOptions unknown;
  unknown.transports = {"carrier-pigeon"};
  EXPECT_EQ(Engine::Create(unknown).status().code(), StatusCode::kInvalidArgument);
  EngineOptions bad_address;
  bad_address.listen_address = "localhost";
  EXPECT_EQ(Engine::Create(bad_address).status().code(), StatusCode::kInvalidArgument);
  EngineOptions zero_timeout;
  zero_timeout.io_timeout = std::chrono::milliseconds(0);
  EXPECT_EQ(Engine::Create(zero_timeout).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace xfer
