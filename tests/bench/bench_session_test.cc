// The server's side of a session against a client driven by hand, so that
// the order of the client's messages and its engine connection is chosen by
// the test rather than by the scheduler.
#include "bench/bench_session.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "common/socket.h"
#include "xfer/engine.h"

namespace xfer::bench {
namespace {

using namespace std::chrono_literals;

BenchParams ServerParams(uint16_t port) {
  BenchParams params;
  params.role = Role::kServer;
  params.transport = "tcp";
  params.port = port;
  params.size = 4096;
  params.iterations = 10;
  params.timeout = 5000ms;
  params.accept_timeout = 5000ms;
  return params;
}

// A client that speaks the out-of-band protocol itself: its setup, then
// what the test asks for, in the order the test asks for it.
class HandDrivenClient {
 public:
  explicit HandDrivenClient(const BenchParams& params) : params_(params) {
    EngineOptions options;
    options.name = "hand-driven-client";
    options.transports = {params.transport};
    auto engine = Engine::Create(options);
    EXPECT_TRUE(engine.ok()) << engine.status().ToString();
    if (engine.ok()) engine_ = std::move(engine.value());
  }

  // Connects the out-of-band channel and agrees on the run. Returns the
  // server's engine address.
  Result<std::string> Agree(uint16_t oob_port) {
    auto region = engine_->AllocateMemory(LayoutFor(params_).total_bytes(), {});
    if (!region.ok()) return region.status();
    auto socket = ConnectTcp({"127.0.0.1", oob_port}, Deadline::After(5s));
    if (!socket.ok()) return socket.status();
    oob_ = std::make_unique<OobChannel>(std::move(socket.value()), params_.timeout);
    XFER_RETURN_IF_ERROR(oob_->SendSetup(
        MakeRunSetup(params_, reinterpret_cast<uint64_t>(region->address), region->length)));
    auto reply = oob_->RecvSetupReply();
    if (!reply.ok()) return reply.status();
    if (!reply->accepted) return InvalidArgument(reply->refusal);
    return FormatHostPort({"127.0.0.1", reply->engine_port});
  }

  Status ConnectEngine(const std::string& address) {
    ConnectOptions options;
    options.transport = params_.transport;
    return engine_->Connect(address, options).status();
  }

  OobChannel& oob() { return *oob_; }

 private:
  BenchParams params_;
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<OobChannel> oob_;
};

class ServerSessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto listener = Listener::Bind({"127.0.0.1", 0});
    ASSERT_TRUE(listener.ok()) << listener.status().ToString();
    listener_ = std::move(listener.value());
    params_ = ServerParams(listener_.local_address().port);
  }
  // After the test has set params_: the server reads them on its thread.
  void StartServer() {
    server_ = std::thread([this] { session_ = OpenServerSession(params_, listener_); });
  }
  void TearDown() override {
    if (server_.joinable()) server_.join();
  }

  Listener listener_;
  BenchParams params_;
  std::thread server_;
  Result<Session> session_ = Internal("the server did not run");
};

// The race of a loaded host, made to happen: the client's first Barrier
// reaches the server while the server still waits for the client's engine.
// An early Barrier is not an Abort; it stays for the server's RecvBarrier.
TEST_F(ServerSessionTest, ABarrierBeforeTheEngineConnectionIsKeptForItsTurn) {
  StartServer();
  HandDrivenClient client(params_);
  auto engine_address = client.Agree(params_.port);
  ASSERT_TRUE(engine_address.ok()) << engine_address.status().ToString();
  ASSERT_TRUE(client.oob().SendBarrier(0).ok());
  // Several of the server's 50 ms polls of the channel see the Barrier
  // waiting before the engine connection exists.
  std::this_thread::sleep_for(300ms);
  ASSERT_TRUE(client.ConnectEngine(*engine_address).ok());
  server_.join();
  ASSERT_TRUE(session_.ok()) << session_.status().ToString();
  EXPECT_TRUE(session_->oob->RecvBarrier(0).ok());
}

// The client's Abort while the server waits for its engine ends the wait at
// once, with the client's reason.
TEST_F(ServerSessionTest, AnAbortBeforeTheEngineConnectionEndsTheWaitWithItsReason) {
  StartServer();
  HandDrivenClient client(params_);
  auto engine_address = client.Agree(params_.port);
  ASSERT_TRUE(engine_address.ok()) << engine_address.status().ToString();
  const auto start = std::chrono::steady_clock::now();
  client.oob().SendAbort("the client's engine could not start");
  server_.join();
  ASSERT_FALSE(session_.ok());
  EXPECT_EQ(session_.status().code(), StatusCode::kConnectionLost);
  EXPECT_NE(session_.status().ToString().find("the client's engine could not start"),
            std::string::npos)
      << session_.status().ToString();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(params_.timeout));
}

// A Barrier and then nothing: the server gives up at --timeout, saying it
// waited for the engine, not that the peer sent something wrong.
TEST_F(ServerSessionTest, AnEarlyBarrierWithoutAnEngineTimesOutOnTheEngine) {
  params_.timeout = 400ms;
  StartServer();
  HandDrivenClient client(params_);
  auto engine_address = client.Agree(params_.port);
  ASSERT_TRUE(engine_address.ok()) << engine_address.status().ToString();
  ASSERT_TRUE(client.oob().SendBarrier(0).ok());
  server_.join();
  ASSERT_FALSE(session_.ok());
  EXPECT_EQ(session_.status().code(), StatusCode::kTimeout) << session_.status().ToString();
  EXPECT_NE(session_.status().ToString().find("client's engine"), std::string::npos)
      << session_.status().ToString();
}

}  // namespace
}  // namespace xfer::bench
