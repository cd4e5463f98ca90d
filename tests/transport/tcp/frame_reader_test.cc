#include "transport/tcp/frame_reader.h"

#include <gtest/gtest.h>
#include <sys/socket.h>

#include <thread>
#include <vector>

#include "tcp_test_util.h"

namespace xfer::transport::tcp::testing {
namespace {

class FrameReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    int fds[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, fds), 0);
    writer_ = Socket(UniqueFd(fds[0]));
    reader_socket_ = Socket(UniqueFd(fds[1]));
  }

  void Write(const void* data, size_t length) {
    ASSERT_TRUE(writer_.SendAll(data, length, Deadline::After(kWait)).ok());
  }
  void WriteHeader(uint64_t id, uint64_t length) {
    FrameBytes bytes = EncodeFrameHeader({FrameType::kSend, StatusCode::kOk, id, 0, length});
    Write(bytes.data(), bytes.size());
  }

  Socket writer_;
  Socket reader_socket_;
};

TEST_F(FrameReaderTest, OneFillYieldsABurstOfFrames) {
  for (uint64_t id = 1; id <= 50; ++id) WriteHeader(id, 0);
  FrameReader reader(reader_socket_);
  auto filled = reader.Fill();
  ASSERT_TRUE(filled.ok() && *filled);
  for (uint64_t id = 1; id <= 50; ++id) {
    auto header = reader.Next();
    ASSERT_TRUE(header.ok() && header->has_value()) << id;
    EXPECT_EQ((*header)->request_id, id);
  }
  auto none = reader.Next();
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  EXPECT_FALSE(reader.partial());
  auto again = reader.Fill();  // nothing more: no wait, no error
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again);
}

TEST_F(FrameReaderTest, HeaderSplitAcrossReads) {
  FrameBytes bytes = EncodeFrameHeader({FrameType::kSend, StatusCode::kOk, 7, 0, 0});
  Write(bytes.data(), 13);
  FrameReader reader(reader_socket_);
  ASSERT_TRUE(reader.Fill().ok());
  auto header = reader.Next();
  ASSERT_TRUE(header.ok());
  EXPECT_FALSE(header->has_value());
  EXPECT_TRUE(reader.partial());
  Write(bytes.data() + 13, bytes.size() - 13);
  ASSERT_TRUE(reader.Fill().ok());
  header = reader.Next();
  ASSERT_TRUE(header.ok() && header->has_value());
  EXPECT_EQ((*header)->request_id, 7u);
}

// A payload larger than the buffer: the buffered head is copied, the rest
// read straight into the destination, and the next frame still parses.
TEST_F(FrameReaderTest, PayloadLargerThanTheBuffer) {
  constexpr size_t kLength = 100000;
  std::vector<uint8_t> payload(kLength);
  FillPattern(payload.data(), kLength, 3);
  std::thread sender([&] {
    WriteHeader(1, kLength);
    Write(payload.data(), kLength);
    WriteHeader(2, 0);
  });
  FrameReader reader(reader_socket_, 4096);
  std::optional<FrameHeader> first;
  while (!first) {
    ASSERT_TRUE(reader.Fill().ok());
    auto header = reader.Next();
    ASSERT_TRUE(header.ok());
    first = *header;
  }
  ASSERT_EQ(first->length, kLength);
  std::vector<uint8_t> got(kLength);
  ASSERT_TRUE(reader.ReadPayload(got.data(), kLength, std::chrono::seconds(10)).ok());
  EXPECT_EQ(FirstPatternMismatch(got.data(), kLength, 3), kLength);
  sender.join();
  ASSERT_TRUE(reader.Fill().ok());
  auto second = reader.Next();
  ASSERT_TRUE(second.ok() && second->has_value());
  EXPECT_EQ((*second)->request_id, 2u);
}

TEST_F(FrameReaderTest, DiscardedPayloadKeepsTheStreamInStep) {
  constexpr size_t kLength = 50000;
  std::vector<uint8_t> payload(kLength, 0x77);
  std::thread sender([&] {
    WriteHeader(1, kLength);
    Write(payload.data(), kLength);
    WriteHeader(2, 0);
  });
  FrameReader reader(reader_socket_, 1024);
  std::optional<FrameHeader> first;
  while (!first) {
    ASSERT_TRUE(reader.Fill().ok());
    auto header = reader.Next();
    ASSERT_TRUE(header.ok());
    first = *header;
  }
  ASSERT_TRUE(reader.ReadPayload(nullptr, kLength, std::chrono::seconds(10)).ok());
  sender.join();
  ASSERT_TRUE(reader.Fill().ok());
  auto second = reader.Next();
  ASSERT_TRUE(second.ok() && second->has_value());
  EXPECT_EQ((*second)->request_id, 2u);
}

TEST_F(FrameReaderTest, FramesBeforeEofAreStillDelivered) {
  WriteHeader(1, 0);
  WriteHeader(2, 0);
  writer_.Close();
  FrameReader reader(reader_socket_);
  auto filled = reader.Fill();
  ASSERT_TRUE(filled.ok());
  EXPECT_EQ((*reader.Next())->request_id, 1u);
  EXPECT_EQ((*reader.Next())->request_id, 2u);
  EXPECT_EQ(reader.Fill().status().code(), StatusCode::kConnectionLost);
}

TEST_F(FrameReaderTest, GarbageIsAProtocolError) {
  std::vector<uint8_t> garbage(kFrameHeaderSize, 0xFF);
  Write(garbage.data(), garbage.size());
  FrameReader reader(reader_socket_);
  ASSERT_TRUE(reader.Fill().ok());
  EXPECT_EQ(reader.Next().status().code(), StatusCode::kProtocolError);
}

}  // namespace
}  // namespace xfer::transport::tcp::testing
