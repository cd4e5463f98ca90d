#include "transport/tcp/frame.h"

#include <gtest/gtest.h>

namespace xfer::transport::tcp {
namespace {

FrameHeader Sample(FrameType type) {
  FrameHeader h;
  h.type = type;
  h.request_id = 0x0102030405060708ull;
  h.remote_address = 0xFFEEDDCCBBAA9988ull;
  h.length = 12345;
  return h;
}

TEST(FrameTest, RoundTripsEveryType) {
  for (auto type : {FrameType::kWrite, FrameType::kWriteAck, FrameType::kRead, FrameType::kReadData,
                    FrameType::kSend}) {
    FrameHeader in = Sample(type);
    auto out = DecodeFrameHeader(EncodeFrameHeader(in));
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ(out->type, in.type);
    EXPECT_EQ(out->status, StatusCode::kOk);
    EXPECT_EQ(out->request_id, in.request_id);
    EXPECT_EQ(out->remote_address, in.remote_address);
    EXPECT_EQ(out->length, in.length);
  }
}

TEST(FrameTest, RoundTripsResponseErrorStatus) {
  FrameHeader in = Sample(FrameType::kWriteAck);
  in.status = StatusCode::kPermissionDenied;
  auto out = DecodeFrameHeader(EncodeFrameHeader(in));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->status, StatusCode::kPermissionDenied);

  FrameHeader read = Sample(FrameType::kReadData);
  read.status = StatusCode::kOutOfRange;
  read.length = 0;
  auto decoded = DecodeFrameHeader(EncodeFrameHeader(read));
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->status, StatusCode::kOutOfRange);
}

TEST(FrameTest, LayoutIsLittleEndianAtFixedOffsets) {
  FrameBytes b = EncodeFrameHeader(Sample(FrameType::kRead));
  EXPECT_EQ(b[0], 0x58);  // "XTPF"
  EXPECT_EQ(b[1], 0x54);
  EXPECT_EQ(b[2], 0x50);
  EXPECT_EQ(b[3], 0x46);
  EXPECT_EQ(b[4], 3);      // READ
  EXPECT_EQ(b[16], 0x08);  // request_id low byte first
  EXPECT_EQ(b[23], 0x01);
  EXPECT_EQ(b[24], 0x88);
  EXPECT_EQ(b[32], 12345 & 0xFF);
  EXPECT_EQ(b[33], 12345 >> 8);
  for (size_t i : {5u, 6u, 7u, 8u, 12u, 13u, 14u, 15u}) EXPECT_EQ(b[i], 0) << i;
}

void ExpectRejected(const FrameBytes& bytes, const char* why) {
  auto out = DecodeFrameHeader(bytes);
  ASSERT_FALSE(out.ok()) << why;
  EXPECT_EQ(out.status().code(), StatusCode::kProtocolError) << why;
  EXPECT_FALSE(out.status().message().empty()) << why;
}

TEST(FrameTest, RejectsMalformedHeaders) {
  const FrameBytes good = EncodeFrameHeader(Sample(FrameType::kWrite));
  ASSERT_TRUE(DecodeFrameHeader(good).ok());

  FrameBytes b = good;
  b[0] ^= 1;
  ExpectRejected(b, "bad magic");
  b = good;
  b[4] = 0;
  ExpectRejected(b, "type 0");
  b = good;
  b[4] = 6;
  ExpectRejected(b, "type 6");
  b = good;
  b[6] = 1;
  ExpectRejected(b, "padding");
  b = good;
  b[13] = 1;
  ExpectRejected(b, "reserved");
  b = good;
  b[8] = static_cast<uint8_t>(StatusCode::kInProgress);
  ExpectRejected(b, "in-progress status");
  b = good;
  b[8] = 200;
  ExpectRejected(b, "unknown status");
  b = good;
  b[8] = static_cast<uint8_t>(StatusCode::kOutOfRange);
  ExpectRejected(b, "error status on a request");
}

TEST(FrameTest, BoundsTheAnnouncedLength) {
  FrameHeader h = Sample(FrameType::kSend);
  h.length = kMaxFramePayload;
  EXPECT_TRUE(DecodeFrameHeader(EncodeFrameHeader(h)).ok());
  h.length = kMaxFramePayload + 1;
  ExpectRejected(EncodeFrameHeader(h), "length above the limit");
  h.length = ~uint64_t{0};
  ExpectRejected(EncodeFrameHeader(h), "huge length");

  FrameHeader read = Sample(FrameType::kReadData);
  read.status = StatusCode::kOutOfRange;
  read.length = 10;
  ExpectRejected(EncodeFrameHeader(read), "error READ_DATA with a payload");
}

TEST(FrameTest, PayloadFollowsOnlyDataFrames) {
  EXPECT_EQ(PayloadLength(Sample(FrameType::kWrite)), 12345u);
  EXPECT_EQ(PayloadLength(Sample(FrameType::kReadData)), 12345u);
  EXPECT_EQ(PayloadLength(Sample(FrameType::kSend)), 12345u);
  EXPECT_EQ(PayloadLength(Sample(FrameType::kRead)), 0u);
  EXPECT_EQ(PayloadLength(Sample(FrameType::kWriteAck)), 0u);
  EXPECT_TRUE(IsRequest(FrameType::kWrite));
  EXPECT_TRUE(IsRequest(FrameType::kRead));
  EXPECT_TRUE(IsRequest(FrameType::kSend));
  EXPECT_FALSE(IsRequest(FrameType::kWriteAck));
  EXPECT_FALSE(IsRequest(FrameType::kReadData));
}

}  // namespace
}  // namespace xfer::transport::tcp
