#include "bench/matrix/control_messages.h"

#include <gtest/gtest.h>

namespace xfer::matrix {
namespace {

Hello SampleHello() {
  Hello hello;
  hello.agreement.directions = {"H2rH", "rH2H"};
  hello.agreement.transports = {"tcp"};
  hello.agreement.block_sizes = {16384, 2097152};
  hello.agreement.transfer_size = 128ull << 20;
  hello.agreement.batch = 4;
  hello.agreement.loops = 5;
  hello.agreement.warmup = 1;
  hello.agreement.streams = 2;
  hello.agreement.memory = "host";
  hello.agreement.remote_memory = "hugepage";
  hello.agreement.verify = true;
  hello.fingerprint.hostname = "a";
  hello.fingerprint.cpu_count = 2;
  hello.fingerprint.rdma.push_back({"rxe0", 1, "ACTIVE", "Ethernet", 10.0});
  return hello;
}

TEST(ControlMessagesTest, HelloRoundTrips) {
  const Hello hello = SampleHello();
  const std::vector<uint8_t> message = EncodeHello(hello);
  auto frame = DecodeFrame(message);
  ASSERT_TRUE(frame.ok());
  ASSERT_EQ(frame->type, ControlType::kHello);
  auto decoded = DecodeHello(frame->body);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->agreement, hello.agreement);
  EXPECT_EQ(decoded->fingerprint.rdma.at(0).device, "rxe0");
  EXPECT_DOUBLE_EQ(decoded->fingerprint.rdma.at(0).rate_gbps, 10.0);
}

TEST(ControlMessagesTest, HelloReplyRoundTripsBuffers) {
  HelloReply reply;
  reply.accepted = true;
  reply.engine_port = 4242;
  reply.buffers.push_back({"host", true, "", 0x7000, 4096});
  reply.buffers.push_back({"device", false, "no GPU", 0, 0});
  const std::vector<uint8_t> message = EncodeHelloReply(reply);
  auto frame = DecodeFrame(message);
  ASSERT_TRUE(frame.ok());
  auto decoded = DecodeHelloReply(frame->body);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->engine_port, 4242);
  ASSERT_EQ(decoded->buffers.size(), 2u);
  EXPECT_EQ(decoded->buffers[0].address, 0x7000u);
  EXPECT_FALSE(decoded->buffers[1].available);
  EXPECT_EQ(decoded->buffers[1].reason, "no GPU");
}

TEST(ControlMessagesTest, EveryTruncationOfEveryMessageIsAProtocolError) {
  HelloReply reply;
  reply.buffers.push_back({"host", true, "", 1, 2});
  const std::vector<std::vector<uint8_t>> messages = {
      EncodeHello(SampleHello()), EncodeHelloReply(reply),
      EncodeBufferRequest({BufferOp::kCheck, "host", 5, 6}), EncodeBufferReply({false, "why"})};
  for (const auto& message : messages) {
    for (size_t n = 5; n < message.size(); ++n) {
      auto frame = DecodeFrame(std::span(message.data(), n));
      ASSERT_TRUE(frame.ok());
      Status status;
      switch (frame->type) {
        case ControlType::kHello: status = DecodeHello(frame->body).status(); break;
        case ControlType::kHelloReply: status = DecodeHelloReply(frame->body).status(); break;
        case ControlType::kBufferRequest: status = DecodeBufferRequest(frame->body).status(); break;
        default: status = DecodeBufferReply(frame->body).status(); break;
      }
      EXPECT_EQ(status.code(), StatusCode::kProtocolError) << "length " << n;
    }
  }
}

TEST(ControlMessagesTest, RejectsBadMagicUnknownTypesAndTrailingBytes) {
  std::vector<uint8_t> message = EncodeBare(ControlType::kDone);
  message[0] ^= 0xFF;
  EXPECT_EQ(DecodeFrame(message).status().code(), StatusCode::kProtocolError);
  message = EncodeBare(ControlType::kDone);
  message[4] = 99;
  EXPECT_EQ(DecodeFrame(message).status().code(), StatusCode::kProtocolError);
  message = EncodeBufferReply({true, ""});
  message.push_back(0);
  auto frame = DecodeFrame(message);
  ASSERT_TRUE(frame.ok());
  EXPECT_EQ(DecodeBufferReply(frame->body).status().code(), StatusCode::kProtocolError);
}

TEST(ControlMessagesTest, RejectsOversizedCountsAndBadEnums) {
  // A HelloReply claiming 65535 buffers.
  HelloReply reply;
  std::vector<uint8_t> message = EncodeHelloReply(reply);
  message[message.size() - 2] = 0xFF;
  message[message.size() - 1] = 0xFF;
  auto frame = DecodeFrame(message);
  ASSERT_TRUE(frame.ok());
  EXPECT_EQ(DecodeHelloReply(frame->body).status().code(), StatusCode::kProtocolError);
  message = EncodeBufferRequest({BufferOp::kFill, "host", 1, 1});
  message[5] = 9;  // the op byte
  frame = DecodeFrame(message);
  ASSERT_TRUE(frame.ok());
  EXPECT_EQ(DecodeBufferRequest(frame->body).status().code(), StatusCode::kProtocolError);
  message = EncodeBufferReply({true, ""});
  message[5] = 2;  // neither 0 nor 1
  frame = DecodeFrame(message);
  ASSERT_TRUE(frame.ok());
  EXPECT_EQ(DecodeBufferReply(frame->body).status().code(), StatusCode::kProtocolError);
}

}  // namespace
}  // namespace xfer::matrix
