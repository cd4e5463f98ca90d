// A perftest server waits for a perftest client: anything else that
// connects first is turned away, and the client's first message is left
// for the prologue to read.
#include "perftest/oob_link.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "bench/model/interruption.h"
#include "perftest/wire_format.h"

namespace xfer::perftest {
namespace {

using namespace std::chrono_literals;

// Connects to `port` as a non-perftest peer, sends `bytes`, and hangs up.
void SendStray(uint16_t port, const std::string& bytes) {
  auto socket = ConnectTcp({"127.0.0.1", port}, Deadline::After(2s));
  ASSERT_TRUE(socket.ok()) << socket.status().ToString();
  ASSERT_TRUE(socket->SendAll(bytes.data(), bytes.size(), Deadline::After(2s)).ok());
}

TEST(OobLinkAccept, TurnsAwayStraysAndKeepsTheClientsVersionForThePrologue) {
  auto listener = Listener::Bind({"127.0.0.1", 0}, 4);
  ASSERT_TRUE(listener.ok());
  const uint16_t port = listener->local_address().port;
  Result<std::vector<uint8_t>> client_saw = Internal("not run");
  std::thread peers([&] {
    SendStray(port, "GET / HTTP/1.0\r\n\r\n");  // 18 bytes: the first 16 are no version
    SendStray(port, "");                         // connects and hangs up
    auto client = OobLink::Connect({"127.0.0.1", port}, 5s, bench::NeverStopped());
    ASSERT_TRUE(client.ok()) << client.status().ToString();
    client_saw = client->Exchange(EncodeVersion("6.06"), kVersionSize, "version");
  });
  auto server = OobLink::Accept(*listener, 10s, 5s, bench::NeverStopped());
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  auto version = server->Exchange(EncodeVersion("6.28"), kVersionSize, "version");
  peers.join();
  ASSERT_TRUE(version.ok()) << version.status().ToString();
  auto decoded = DecodeVersion(*version);
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(decoded->text, "6.06");
  ASSERT_TRUE(client_saw.ok()) << client_saw.status().ToString();
  EXPECT_EQ(DecodeVersion(*client_saw)->text, "6.28");
}

TEST(OobLinkAccept, WaitsOnlyUntilTheAcceptTimeout) {
  auto listener = Listener::Bind({"127.0.0.1", 0}, 4);
  ASSERT_TRUE(listener.ok());
  const uint16_t port = listener->local_address().port;
  std::thread stray([port] { SendStray(port, "not perftest at all"); });
  const auto start = std::chrono::steady_clock::now();
  auto server = OobLink::Accept(*listener, 1s, 5s, bench::NeverStopped());
  stray.join();
  EXPECT_EQ(server.status().code(), StatusCode::kTimeout) << server.status().ToString();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 4s);
}

// Issue 43, item 34: a stock server may take longer than --timeout to
// register its buffers before it sends its keys. The exchange that follows
// the peer's set-up waits for it; an ordinary one gives up at --timeout and
// names both causes.
TEST(OobLinkExchange, TheKeysWaitForAPeerStillSettingUp) {
  auto listener = Listener::Bind({"127.0.0.1", 0}, 4);
  ASSERT_TRUE(listener.ok());
  const uint16_t port = listener->local_address().port;
  const std::vector<uint8_t> key(kKeyMessageSize, '0');
  std::thread slow_server([&] {
    auto server = OobLink::Accept(*listener, 10s, 10s, bench::NeverStopped());
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    (void)server->Exchange(EncodeVersion("6.06"), kVersionSize, "version");
    std::this_thread::sleep_for(1500ms);  // "registering its buffers"
    (void)server->Exchange(key, kKeyMessageSize, "key");
    std::this_thread::sleep_for(1500ms);
    (void)server->Exchange(key, kKeyMessageSize, "key");
  });
  auto client = OobLink::Connect({"127.0.0.1", port}, 500ms, bench::NeverStopped());
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  ASSERT_TRUE(client->Exchange(EncodeVersion("6.06"), kVersionSize, "version").ok());
  auto keys = client->ExchangeAfterPeerSetup(key, kKeyMessageSize, "key");
  EXPECT_TRUE(keys.ok()) << keys.status().ToString();
  auto late = client->Exchange(key, kKeyMessageSize, "key");
  EXPECT_EQ(late.status().code(), StatusCode::kTimeout);
  EXPECT_NE(late.status().message().find("still setting up"), std::string::npos)
      << late.status().ToString();
  EXPECT_NE(late.status().message().find("other flags"), std::string::npos)
      << late.status().ToString();
  slow_server.join();
}

}  // namespace
}  // namespace xfer::perftest
