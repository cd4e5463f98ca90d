// The server's side of a session against a client driven by hand, so that
// the order of the client's messages and its engine connection is chosen by
// the test rather than by the scheduler.
#include "bench/bench_session.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "bench/model/interruption.h"
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
    // The test's own bound, not --timeout: a client the server has not yet
    // accepted (it serves another) waits for its reply longer than that.
    oob_ = std::make_unique<OobChannel>(std::move(socket.value()), 5000ms);
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
    server_ = std::thread([this] { session_ = OpenServerSession(params_, listener_, NeverStopped()); });
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

// A client that gives up while the server waits for its engine (its Abort:
// its engine was refused, say) is turned away at once, and the next client
// that agrees is served: one bad client does not end a server.
TEST_F(ServerSessionTest, AClientThatGivesUpIsTurnedAwayAndTheNextIsServed) {
  StartServer();
  HandDrivenClient quitter(params_);
  ASSERT_TRUE(quitter.Agree(params_.port).ok());
  quitter.oob().SendAbort("the client's engine could not start");
  HandDrivenClient client(params_);
  auto engine_address = client.Agree(params_.port);
  ASSERT_TRUE(engine_address.ok()) << engine_address.status().ToString();
  ASSERT_TRUE(client.ConnectEngine(*engine_address).ok());
  ASSERT_TRUE(client.oob().SendBarrier(0).ok());
  server_.join();
  ASSERT_TRUE(session_.ok()) << session_.status().ToString();
  EXPECT_TRUE(session_->oob->RecvBarrier(0).ok());  // the second client's channel
}

// A client that asks for another run is refused and turned away; the
// server goes on waiting, and ends at --accept_timeout when nobody else
// comes, saying what it waited for.
TEST_F(ServerSessionTest, AClientThatAsksForAnotherRunIsRefusedAndTheServerWaitsOn) {
  params_.accept_timeout = 1500ms;
  StartServer();
  BenchParams other = params_;
  other.size = 1024;
  HandDrivenClient client(other);
  auto refused = client.Agree(params_.port);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("-s/--size"), std::string::npos)
      << refused.status().ToString();
  server_.join();
  ASSERT_FALSE(session_.ok());
  EXPECT_EQ(session_.status().code(), StatusCode::kTimeout) << session_.status().ToString();
  EXPECT_NE(session_.status().ToString().find("--accept_timeout"), std::string::npos)
      << session_.status().ToString();
}

// A Barrier and then no engine: the server gives that client up at
// --timeout and serves the next one.
TEST_F(ServerSessionTest, AClientWhoseEngineNeverComesIsGivenUpAtTheTimeout) {
  params_.timeout = 400ms;
  StartServer();
  HandDrivenClient silent(params_);
  ASSERT_TRUE(silent.Agree(params_.port).ok());
  ASSERT_TRUE(silent.oob().SendBarrier(0).ok());
  HandDrivenClient client(params_);
  auto engine_address = client.Agree(params_.port);  // accepted once the first is given up
  ASSERT_TRUE(engine_address.ok()) << engine_address.status().ToString();
  ASSERT_TRUE(client.ConnectEngine(*engine_address).ok());
  server_.join();
  ASSERT_TRUE(session_.ok()) << session_.status().ToString();
}

}  // namespace
}  // namespace xfer::bench
