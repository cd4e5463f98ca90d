// Authenticated connections (EngineOptions::secret): peers that share the
// secret connect on every transport; a peer without it, or with another,
// is refused before it learns anything, and the acceptor logs one line and
// keeps serving; a recorded handshake replayed later fails. The hostile
// peers here speak the protocol by hand over a raw socket, so the tests can
// see every byte the engine sent them.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <mutex>
#include <thread>
#include <string>
#include <vector>

#include "common/socket.h"
#include "core/authenticated_channel.h"
#include "core/handshake.h"
#include "core/host_identity.h"
#include "support/verbs_test_env.h"
#include "xfer/engine.h"

namespace xfer {
namespace {

using namespace std::chrono_literals;

constexpr size_t kRegion = 64 << 10;
const std::string kSecret = "correct horse battery staple";
const std::string kOtherSecret = "incorrect horse battery staple";

// The lines an engine's refusal_log received.
struct RefusalLines {
  std::mutex mu;
  std::vector<std::string> lines;

  std::vector<std::string> Copy() {
    std::lock_guard lock(mu);
    return lines;
  }
};

EngineOptions Options(const std::string& transport, const std::string& name,
                      const std::string& listen, const std::string& secret) {
  EngineOptions options;
  options.name = name;
  options.listen_address = listen;
  if (!transport.empty()) options.transports = {transport};
  options.connect_timeout = 3000ms;
  options.io_timeout = 2000ms;
  options.secret = secret;
  return options;
}

std::unique_ptr<Engine> Create(EngineOptions options) {
  auto engine = Engine::Create(options);
  EXPECT_TRUE(engine.ok()) << engine.status().ToString();
  return engine.ok() ? std::move(engine.value()) : nullptr;
}

// A target engine with one registered region whose address the tests look
// for in every byte a refused peer received.
class AuthenticatedTarget {
 public:
  AuthenticatedTarget(const std::string& transport, const std::string& secret,
                      const std::string& device) {
    EngineOptions options = Options(transport, "target", "127.0.0.1:0", secret);
    testing::UseVerbsDevice(options, device);
    options.refusal_log = [this](std::string_view line) {
      std::lock_guard lock(refusals.mu);
      refusals.lines.emplace_back(line);
    };
    engine = Create(options);
    if (engine == nullptr) return;
    auto allocated = engine->AllocateMemory(kRegion, {});
    EXPECT_TRUE(allocated.ok()) << allocated.status().ToString();
    if (allocated.ok()) region = *allocated;
  }

  // The region's address as it travels in a region table (8 bytes, LE).
  std::vector<uint8_t> AddressBytes() const {
    std::vector<uint8_t> bytes(8);
    const auto address = reinterpret_cast<uint64_t>(region.address);
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(address >> (8 * i));
    return bytes;
  }

  RefusalLines refusals;
  std::unique_ptr<Engine> engine;
  MemoryRegion region{};
};

bool Contains(const std::vector<uint8_t>& haystack, const std::vector<uint8_t>& needle) {
  return std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end()) !=
         haystack.end();
}

// Everything the peer sends until it closes (or 3 s pass), as raw bytes.
std::vector<uint8_t> DrainUntilClosed(Socket& socket) {
  std::vector<uint8_t> all;
  const Deadline deadline = Deadline::After(3s);
  for (;;) {
    auto message = socket.RecvMessage(core::kMaxHandshakeBytes, deadline);
    if (!message.ok()) break;
    all.insert(all.end(), message->begin(), message->end());
  }
  return all;
}

// A Hello such as a real initiator sends, announcing no regions.
std::vector<uint8_t> HostileHello() {
  core::Hello hello;
  hello.identity = {"intruder", 1, core::LocalHostIdentity()};
  hello.transports = {"shm", "tcp"};
  return core::EncodeHello(hello);
}

core::Nonce SomeNonce(uint8_t fill) {
  core::Nonce nonce;
  nonce.fill(fill);
  return nonce;
}

class AuthenticationTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "verbs" && !testing::HasVerbsDevice()) {
      GTEST_SKIP() << testing::VerbsSkipReason();
    }
  }

  // Connects an initiator holding `secret` to `target` over the transport
  // under test.
  Result<PeerId> ConnectWith(AuthenticatedTarget& target, const std::string& secret,
                             std::unique_ptr<Engine>& initiator) {
    EngineOptions options = Options(GetParam(), "initiator", "", secret);
    testing::UseVerbsDevice(options, testing::TestVerbsDevices().initiator);
    initiator = Create(options);
    if (initiator == nullptr) return Internal("no initiator");
    ConnectOptions connect;
    connect.transport = GetParam();
    return initiator->Connect(target.engine->listen_address(), connect);
  }
};

TEST_P(AuthenticationTest, PeersSharingTheSecretConnectAndMoveData) {
  AuthenticatedTarget target(GetParam(), kSecret, testing::TestVerbsDevices().target);
  ASSERT_NE(target.engine, nullptr);
  std::unique_ptr<Engine> initiator;
  auto peer = ConnectWith(target, kSecret, initiator);
  ASSERT_TRUE(peer.ok()) << peer.status().ToString();
  auto info = initiator->GetPeerInfo(*peer);
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->transport, GetParam());
  ASSERT_EQ(info->regions.size(), 1u);

  auto local = initiator->AllocateMemory(kRegion, {});
  ASSERT_TRUE(local.ok());
  std::memset(local->address, 0xa7, kRegion);
  const TransferEntry entry{local->address, info->regions[0].address, kRegion};
  ASSERT_TRUE(initiator->Transfer(*peer, OpCode::kWrite, {&entry, 1}, 5s).ok());
  EXPECT_EQ(static_cast<uint8_t*>(target.region.address)[kRegion - 1], 0xa7);
  EXPECT_TRUE(target.refusals.Copy().empty());
}

TEST_P(AuthenticationTest, AWrongSecretIsRefusedLoggedOnceAndTheAcceptorKeepsServing) {
  AuthenticatedTarget target(GetParam(), kSecret, testing::TestVerbsDevices().target);
  ASSERT_NE(target.engine, nullptr);
  std::unique_ptr<Engine> intruder;
  const auto start = std::chrono::steady_clock::now();
  auto refused = ConnectWith(target, kOtherSecret, intruder);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kPermissionDenied) << refused.status().ToString();
  EXPECT_NE(refused.status().message().find("failed authentication"), std::string::npos)
      << refused.status().ToString();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);

  std::unique_ptr<Engine> friendly;
  auto peer = ConnectWith(target, kSecret, friendly);
  ASSERT_TRUE(peer.ok()) << peer.status().ToString();
  auto accepted = target.engine->WaitForPeer(3s);
  ASSERT_TRUE(accepted.ok()) << accepted.status().ToString();
  const auto lines = target.refusals.Copy();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("xfer engine 'target': refused a connection from 127.0.0.1"),
            std::string::npos)
      << lines[0];
}

TEST_P(AuthenticationTest, ASecretOnOneSideOnlyRefusesTheConnectionOnBoth) {
  AuthenticatedTarget guarded(GetParam(), kSecret, testing::TestVerbsDevices().target);
  ASSERT_NE(guarded.engine, nullptr);
  std::unique_ptr<Engine> without_secret;
  auto refused = ConnectWith(guarded, "", without_secret);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kPermissionDenied);
  EXPECT_NE(refused.status().message().find("requires a shared secret"), std::string::npos)
      << refused.status().ToString();

  AuthenticatedTarget open(GetParam(), "", testing::TestVerbsDevices().target);
  ASSERT_NE(open.engine, nullptr);
  std::unique_ptr<Engine> with_secret;
  auto unauthenticated = ConnectWith(open, kSecret, with_secret);
  ASSERT_FALSE(unauthenticated.ok());
  EXPECT_EQ(unauthenticated.status().code(), StatusCode::kPermissionDenied);
  EXPECT_NE(unauthenticated.status().message().find("has no shared secret"), std::string::npos)
      << unauthenticated.status().ToString();
  // Both acceptors refused and said so, once each.
  for (auto* target : {&guarded, &open}) {
    const auto deadline = std::chrono::steady_clock::now() + 2s;
    while (target->refusals.Copy().empty() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(10ms);
    }
    EXPECT_EQ(target->refusals.Copy().size(), 1u);
  }
}

INSTANTIATE_TEST_SUITE_P(Transports, AuthenticationTest, ::testing::Values("shm", "tcp", "verbs"),
                         [](const auto& param) { return param.param; });

// The hostile peers below need no transport: they never get that far.
TEST(AuthenticationHostileTest, APeerWithTheWrongSecretLearnsNoRegion) {
  AuthenticatedTarget target("", kSecret, "");
  ASSERT_NE(target.engine, nullptr);
  auto where = ParseHostPort(target.engine->listen_address());
  ASSERT_TRUE(where.ok());
  const auto wrong = core::SharedSecret::Create(kOtherSecret);
  ASSERT_TRUE(wrong.ok());
  // A hostile initiator carries on past the proof it cannot check, with a
  // MAC under its own key.
  auto socket = ConnectTcp(*where, Deadline::After(2s));
  ASSERT_TRUE(socket.ok());
  const core::Nonce ours = SomeNonce(0x11);
  ASSERT_TRUE(socket->SendMessage(core::EncodeAuthOffer({core::AuthMode::kHmacSha256, ours}),
                                   Deadline::After(1s))
                  .ok());
  auto answer = socket->RecvMessage(core::kMaxHandshakeBytes, Deadline::After(2s));
  ASSERT_TRUE(answer.ok()) << answer.status().ToString();
  auto challenge = core::DecodeAuthChallenge(*answer);
  ASSERT_TRUE(challenge.ok()) << challenge.status().ToString();
  EXPECT_EQ(challenge->mode, core::AuthMode::kHmacSha256);
  std::vector<uint8_t> hello = HostileHello();
  const core::Mac forged =
      core::MessageMac(*wrong, "hello", ours, challenge->acceptor_nonce, hello);
  hello.insert(hello.end(), forged.begin(), forged.end());
  ASSERT_TRUE(socket->SendMessage(hello, Deadline::After(1s)).ok());

  const std::vector<uint8_t> after = DrainUntilClosed(*socket);
  EXPECT_TRUE(after.empty()) << after.size() << " bytes reached a refused peer";
  std::vector<uint8_t> everything = *answer;
  everything.insert(everything.end(), after.begin(), after.end());
  EXPECT_FALSE(Contains(everything, target.AddressBytes()));
  EXPECT_FALSE(Contains(everything, {'t', 'a', 'r', 'g', 'e', 't'}));  // not even its name
}

TEST(AuthenticationHostileTest, AReplayedHandshakeFails) {
  AuthenticatedTarget target("", kSecret, "");
  ASSERT_NE(target.engine, nullptr);
  auto where = ParseHostPort(target.engine->listen_address());
  ASSERT_TRUE(where.ok());
  const auto key = core::SharedSecret::Create(kSecret);
  ASSERT_TRUE(key.ok());
  const core::Nonce ours = SomeNonce(0x22);
  const std::vector<uint8_t> offer = core::EncodeAuthOffer({core::AuthMode::kHmacSha256, ours});

  // An authentic exchange, recorded.
  std::vector<uint8_t> recorded_hello = HostileHello();
  core::Nonce first_nonce{};
  {
    auto socket = ConnectTcp(*where, Deadline::After(2s));
    ASSERT_TRUE(socket.ok());
    ASSERT_TRUE(socket->SendMessage(offer, Deadline::After(1s)).ok());
    auto answer = socket->RecvMessage(core::kMaxHandshakeBytes, Deadline::After(2s));
    ASSERT_TRUE(answer.ok());
    auto challenge = core::DecodeAuthChallenge(*answer);
    ASSERT_TRUE(challenge.ok());
    ASSERT_TRUE(core::SameMac(challenge->acceptor_proof,
                              core::AcceptorProof(*key, ours, challenge->acceptor_nonce)));
    first_nonce = challenge->acceptor_nonce;
    const core::Mac mac = core::MessageMac(*key, "hello", ours, first_nonce, recorded_hello);
    recorded_hello.insert(recorded_hello.end(), mac.begin(), mac.end());
    ASSERT_TRUE(socket->SendMessage(recorded_hello, Deadline::After(1s)).ok());
    auto reply = socket->RecvMessage(core::kMaxHandshakeBytes + core::kMacBytes,
                                     Deadline::After(2s));
    ASSERT_TRUE(reply.ok()) << reply.status().ToString();
    EXPECT_TRUE(Contains(*reply, target.AddressBytes()));  // the authentic peer sees the region
  }
  // The same bytes again: the acceptor's fresh nonce makes the MAC stale.
  auto socket = ConnectTcp(*where, Deadline::After(2s));
  ASSERT_TRUE(socket.ok());
  ASSERT_TRUE(socket->SendMessage(offer, Deadline::After(1s)).ok());
  auto answer = socket->RecvMessage(core::kMaxHandshakeBytes, Deadline::After(2s));
  ASSERT_TRUE(answer.ok());
  auto challenge = core::DecodeAuthChallenge(*answer);
  ASSERT_TRUE(challenge.ok());
  EXPECT_NE(challenge->acceptor_nonce, first_nonce);
  ASSERT_TRUE(socket->SendMessage(recorded_hello, Deadline::After(1s)).ok());
  const std::vector<uint8_t> after = DrainUntilClosed(*socket);
  EXPECT_TRUE(after.empty());
  EXPECT_FALSE(Contains(after, target.AddressBytes()));
  const auto deadline = std::chrono::steady_clock::now() + 2s;
  while (target.refusals.Copy().empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(10ms);
  }
  const auto lines = target.refusals.Copy();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("does not carry a valid MAC"), std::string::npos) << lines[0];
}

// The initiator's half of mutual: an acceptor that cannot prove the secret
// never receives the initiator's Hello (its identity and regions).
TEST(AuthenticationHostileTest, AnImpostorAcceptorNeverSeesTheInitiatorsRegions) {
  auto listener = Listener::Bind({"127.0.0.1", 0});
  ASSERT_TRUE(listener.ok());
  EngineOptions options = Options("", "initiator", "", kSecret);
  auto initiator = Create(options);
  ASSERT_NE(initiator, nullptr);
  auto region = initiator->AllocateMemory(kRegion, {});
  ASSERT_TRUE(region.ok());

  Result<PeerId> peer = Internal("not run");
  std::thread connecting(
      [&] { peer = initiator->Connect(FormatHostPort(listener->local_address()), {}); });
  auto socket = listener->Accept(Deadline::After(3s));
  ASSERT_TRUE(socket.ok());
  auto offer_bytes = socket->RecvMessage(core::kMaxHandshakeBytes, Deadline::After(2s));
  ASSERT_TRUE(offer_bytes.ok());
  auto offer = core::DecodeAuthOffer(*offer_bytes);
  ASSERT_TRUE(offer.ok());
  EXPECT_EQ(offer->mode, core::AuthMode::kHmacSha256);
  core::AuthChallenge bluff{core::AuthMode::kHmacSha256, SomeNonce(0x33), {}};
  bluff.acceptor_proof.fill(0x44);
  ASSERT_TRUE(socket->SendMessage(core::EncodeAuthChallenge(bluff), Deadline::After(1s)).ok());
  const std::vector<uint8_t> after = DrainUntilClosed(*socket);
  connecting.join();
  ASSERT_FALSE(peer.ok());
  EXPECT_EQ(peer.status().code(), StatusCode::kPermissionDenied) << peer.status().ToString();
  EXPECT_TRUE(after.empty()) << after.size() << " bytes reached the impostor";
}

TEST(AuthenticationOptionsTest, AShortSecretIsRefusedByName) {
  auto engine = Engine::Create(Options("", "short", "", "too short"));
  ASSERT_FALSE(engine.ok());
  EXPECT_EQ(engine.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(engine.status().message().find("secret"), std::string::npos)
      << engine.status().ToString();
  EXPECT_NE(engine.status().message().find("at least 16"), std::string::npos);
}

}  // namespace
}  // namespace xfer
