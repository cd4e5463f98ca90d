// A broken, hostile, silent or vanishing peer: played by bare sockets that
// went through the real stream setup. The endpoint must report the right
// error, within its timeout, without crashing or hanging.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tcp_test_util.h"

namespace xfer::transport::tcp::testing {
namespace {

using namespace std::chrono_literals;

constexpr size_t kRegion = 1 << 20;

class TcpFaultTest : public ::testing::Test {
 protected:
  void Connect(std::chrono::milliseconds io_timeout = 5000ms) {
    pair_ = std::make_unique<RawPeerPair>();
    local_ = pair_->memory.Add(kRegion, Access::kRemoteReadWrite);
    pair_->raw_memory.Add(kRegion, Access::kRemoteReadWrite);
    ASSERT_TRUE(ConnectRaw(*pair_, 1, io_timeout).ok());
  }

  // Posts one small WRITE to the raw peer, which will not answer by itself.
  void PostWrite(TransferRequest& request, size_t length = 64) {
    TransferEntry entry{Bytes(local_), 0x1000, length};
    ASSERT_TRUE(pair_->endpoint->PostWrite({&entry, 1}, request, 0).ok());
  }

  // Waits for `request`; it must finish (not hang) with `code`.
  static void ExpectFails(TransferRequest& request, StatusCode code) {
    (void)request.Wait(kWait);
    ASSERT_TRUE(request.done()) << "request hung";
    EXPECT_EQ(request.Test().code(), code) << request.Test().ToString();
  }

  void ExpectClosed() {
    TransferRequest request;
    TransferEntry entry{Bytes(local_), 0x1000, 8};
    EXPECT_EQ(pair_->endpoint->PostWrite({&entry, 1}, request, 0).code(),
              StatusCode::kConnectionLost);
    EXPECT_EQ(pair_->endpoint->PostRecv(Bytes(local_), 8, request).code(),
              StatusCode::kConnectionLost);
  }

  // The raw side's view of the endpoint's requests / of its own requests.
  Socket& Requests() { return pair_->raw.incoming[0]; }
  Socket& Serving() { return pair_->raw.outgoing[0]; }

  std::unique_ptr<RawPeerPair> pair_;
  LocalRegionView local_;
};

TEST_F(TcpFaultTest, GarbageOnTheRequestStreamIsAProtocolError) {
  Connect();
  TransferRequest request;
  PostWrite(request);
  std::vector<uint8_t> garbage(kFrameHeaderSize, 0xAB);
  ASSERT_TRUE(Serving().SendAll(garbage.data(), garbage.size(), Deadline::After(kWait)).ok());
  ExpectFails(request, StatusCode::kProtocolError);
  ExpectClosed();
}

TEST_F(TcpFaultTest, GarbageResponseIsAProtocolError) {
  Connect();
  TransferRequest request;
  PostWrite(request);
  auto header = RecvHeader(Requests());
  ASSERT_TRUE(header.ok()) << header.status().ToString();
  EXPECT_EQ(header->type, FrameType::kWrite);
  std::vector<uint8_t> garbage(kFrameHeaderSize, 0x5A);
  ASSERT_TRUE(Requests().SendAll(garbage.data(), garbage.size(), Deadline::After(kWait)).ok());
  ExpectFails(request, StatusCode::kProtocolError);
  ExpectClosed();
}

// Well-formed frames that answer the wrong thing.
TEST_F(TcpFaultTest, MismatchedResponsesAreProtocolErrors) {
  struct Case {
    const char* what;
    FrameType type;
    int id_delta;
    int length_delta;
  };
  for (Case c : {Case{"wrong type", FrameType::kReadData, 0, 0},
                 Case{"wrong id", FrameType::kWriteAck, 1, 0},
                 Case{"wrong length", FrameType::kWriteAck, 0, 1},
                 Case{"request frame as response", FrameType::kWrite, 0, 0}}) {
    SCOPED_TRACE(c.what);
    Connect();
    TransferRequest request;
    PostWrite(request);
    auto header = RecvHeader(Requests());
    ASSERT_TRUE(header.ok()) << header.status().ToString();
    std::vector<uint8_t> payload(header->length);
    ASSERT_TRUE(Requests().RecvAll(payload.data(), payload.size(), Deadline::After(kWait)).ok());
    FrameHeader reply = *header;
    reply.type = c.type;
    reply.request_id += static_cast<uint64_t>(c.id_delta);
    reply.length += static_cast<uint64_t>(c.length_delta);
    ASSERT_TRUE(SendHeader(Requests(), reply).ok());
    ExpectFails(request, StatusCode::kProtocolError);
    ExpectClosed();
  }
}

TEST_F(TcpFaultTest, OversizedRequestClosesTheConnectionBeforeReadingIt) {
  Connect();
  TransferRequest receive;
  ASSERT_TRUE(pair_->endpoint->PostRecv(Bytes(local_), kRegion, receive).ok());
  FrameBytes bytes = EncodeFrameHeader({FrameType::kSend, StatusCode::kOk, 1, 0, 1});
  bytes[39] = 0x40;  // length 2^62 + 1: far above kMaxFramePayload
  ASSERT_TRUE(Serving().SendAll(bytes.data(), bytes.size(), Deadline::After(kWait)).ok());
  ExpectFails(receive, StatusCode::kProtocolError);
  // The endpoint hung up on us.
  uint8_t byte;
  EXPECT_EQ(Requests().RecvAll(&byte, 1, Deadline::After(kWait)).code(),
            StatusCode::kConnectionLost);
  ExpectClosed();
}

TEST_F(TcpFaultTest, UnsolicitedResponseClosesTheConnection) {
  Connect();
  ASSERT_TRUE(SendHeader(Requests(), {FrameType::kWriteAck, StatusCode::kOk, 1, 0x1000, 8}).ok());
  uint8_t byte;
  EXPECT_EQ(Requests().RecvAll(&byte, 1, Deadline::After(kWait)).code(),
            StatusCode::kConnectionLost);
  ExpectClosed();
}

// A peer that sends half a request header and goes quiet is dropped after
// io_timeout, not waited for.
TEST_F(TcpFaultTest, HalfSentRequestTimesOut) {
  Connect(200ms);
  FrameBytes bytes = EncodeFrameHeader({FrameType::kSend, StatusCode::kOk, 1, 0, 8});
  ASSERT_TRUE(Serving().SendAll(bytes.data(), 20, Deadline::After(kWait)).ok());
  auto start = std::chrono::steady_clock::now();
  uint8_t byte;
  EXPECT_EQ(Requests().RecvAll(&byte, 1, Deadline::After(kWait)).code(),
            StatusCode::kConnectionLost);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
  TransferRequest request;
  Status post = pair_->endpoint->PostRecv(Bytes(local_), 8, request);
  EXPECT_EQ(post.code(), StatusCode::kConnectionLost);
  EXPECT_NE(post.message().find("half-sent"), std::string::npos) << post.message();
}

TEST_F(TcpFaultTest, SilentPeerTimesOut) {
  Connect(200ms);
  TransferRequest request;
  auto start = std::chrono::steady_clock::now();
  PostWrite(request);
  ExpectFails(request, StatusCode::kTimeout);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
  ExpectClosed();
}

// The peer vanishes while a large WRITE is still being pushed (the raw side
// never reads, so the poster is blocked on a full socket buffer).
TEST_F(TcpFaultTest, PeerVanishingMidTransferFailsInFlightWork) {
  Connect();
  std::vector<uint8_t> big(32 << 20);
  pair_->memory.Add(1, Access::kNone);  // keep regions distinct from `big`
  TransferRequest request;
  std::thread poster([&] {
    TransferEntry entry{big.data(), 0x1000, big.size()};
    EXPECT_TRUE(pair_->endpoint->PostWrite({&entry, 1}, request, 0).ok());
  });
  std::this_thread::sleep_for(100ms);
  auto start = std::chrono::steady_clock::now();
  pair_->raw = StreamSockets{};  // closes every raw socket
  poster.join();
  ExpectFails(request, StatusCode::kConnectionLost);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
  ExpectClosed();
}

TEST_F(TcpFaultTest, PeerVanishingWithRequestsQueuedFailsThem) {
  Connect();
  std::vector<TransferRequest> requests(16);
  for (auto& r : requests) PostWrite(r, 1000);
  auto header = RecvHeader(Requests());  // the peer saw the first one...
  ASSERT_TRUE(header.ok());
  pair_->raw = StreamSockets{};  // ...and died
  for (auto& r : requests) ExpectFails(r, StatusCode::kConnectionLost);
  ExpectClosed();
}

// A peer that sends its last notification and a WRITE and then ends at
// once (its process exits: both of its sockets close). The frames reach
// this side's socket before the close does, and are served whichever of
// this side's threads sees the close first: the notification is delivered
// and the WRITE lands. (Its completer seeing the end on the other socket
// used to stop the serving before it read them: a KV-cache decoder lost
// the last block's notification now and then.)
TEST_F(TcpFaultTest, WhatThePeerSentBeforeItClosedIsServed) {
  for (int round = 0; round < 40; ++round) {
    Connect();
    std::memset(Bytes(local_), 0, 64);
    const std::string payload(64, 'k');
    const FrameHeader write{FrameType::kWrite, StatusCode::kOk, 1, Addr(Bytes(local_)),
                            payload.size()};
    const std::string note = "block " + std::to_string(round);
    const FrameHeader notify{FrameType::kNotify, StatusCode::kOk, 2, 0, note.size()};
    std::string frames;
    for (const auto& [header, body] : {std::pair{write, payload}, std::pair{notify, note}}) {
      const FrameBytes encoded = EncodeFrameHeader(header);
      frames.append(reinterpret_cast<const char*>(encoded.data()), encoded.size());
      frames += body;
    }
    ASSERT_TRUE(Serving().SendAll(frames.data(), frames.size(), Deadline::After(kWait)).ok());
    Requests().Close();  // the end the completer sees, at once
    Serving().Close();
    const std::vector<std::string> got = pair_->notes.WaitFor(1, 5s);
    ASSERT_EQ(got.size(), 1u) << "round " << round << ": the last notification was lost";
    EXPECT_EQ(got[0], note);
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(Bytes(local_)), 64), payload) << round;
    pair_->endpoint->Close();
  }
}

// After this side's own Close nothing the peer sent is served any more.
TEST_F(TcpFaultTest, AfterALocalCloseNothingArrivingIsServed) {
  Connect();
  pair_->endpoint->Close();
  const std::string note = "too late";
  const FrameHeader notify{FrameType::kNotify, StatusCode::kOk, 1, 0, note.size()};
  const FrameBytes encoded = EncodeFrameHeader(notify);
  (void)Serving().SendAll(encoded.data(), encoded.size(), Deadline::After(kWait));
  (void)Serving().SendAll(note.data(), note.size(), Deadline::After(kWait));
  EXPECT_TRUE(pair_->notes.WaitFor(1, 200ms).empty());
}

TEST_F(TcpFaultTest, LocalCloseFailsInFlightWorkPromptly) {
  Connect();
  std::vector<TransferRequest> requests(4);
  for (auto& r : requests) PostWrite(r, 1000);
  auto start = std::chrono::steady_clock::now();
  pair_->endpoint->Close();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
  for (auto& r : requests) {
    ASSERT_TRUE(r.done()) << "Close() must finish in-flight work before returning";
    EXPECT_EQ(r.Test().code(), StatusCode::kConnectionLost);
  }
  ExpectClosed();
}

}  // namespace
}  // namespace xfer::transport::tcp::testing
