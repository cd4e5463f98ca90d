#include "core/handshake.h"

#include <gtest/gtest.h>

namespace xfer::core {
namespace {

Hello SampleHello() {
  Hello hello;
  hello.identity = {"client", 1234, {"boot-id", 42}};
  hello.transports = {"shm", "tcp"};
  hello.forced_transport = "tcp";
  hello.streams = 4;
  hello.regions = {{1, 0x1000, 4096, Access::kRemoteWrite}, {2, 0x10000, 8192, Access::kRemoteRead}};
  return hello;
}

TEST(HandshakeTest, HelloRoundTrips) {
  auto decoded = DecodeHello(EncodeHello(SampleHello()));
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->identity.name, "client");
  EXPECT_EQ(decoded->identity.pid, 1234);
  EXPECT_EQ(decoded->identity.host.boot_id, "boot-id");
  EXPECT_EQ(decoded->transports, (std::vector<std::string>{"shm", "tcp"}));
  EXPECT_EQ(decoded->forced_transport, "tcp");
  EXPECT_EQ(decoded->streams, 4u);
  ASSERT_EQ(decoded->regions.size(), 2u);
  EXPECT_EQ(decoded->regions[1].address, 0x10000u);
  EXPECT_EQ(decoded->regions[1].access, Access::kRemoteRead);
}

TEST(HandshakeTest, ReplyRoundTripsRefusal) {
  HelloReply reply;
  reply.status = StatusCode::kNotSupported;
  reply.message = "no common transport";
  reply.transport = "";
  reply.identity = {"server", 1, {"b", 1}};
  auto decoded = DecodeHelloReply(EncodeHelloReply(reply));
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->status, StatusCode::kNotSupported);
  EXPECT_EQ(decoded->message, "no common transport");
}

TEST(HandshakeTest, EveryTruncationIsAProtocolError) {
  const auto bytes = EncodeHello(SampleHello());
  for (size_t n = 0; n < bytes.size(); ++n) {
    auto decoded = DecodeHello(std::span(bytes.data(), n));
    ASSERT_FALSE(decoded.ok()) << "accepted a " << n << "-byte prefix";
    EXPECT_EQ(decoded.status().code(), StatusCode::kProtocolError);
  }
}

TEST(HandshakeTest, RejectsTrailingBytesAndBadMagic) {
  auto bytes = EncodeHello(SampleHello());
  bytes.push_back(0);
  EXPECT_EQ(DecodeHello(bytes).status().code(), StatusCode::kProtocolError);
  bytes.pop_back();
  bytes[0] ^= 0xff;
  auto bad = DecodeHello(bytes);
  EXPECT_EQ(bad.status().code(), StatusCode::kProtocolError);
  EXPECT_NE(bad.status().message().find("magic"), std::string::npos);
}

TEST(HandshakeTest, RejectsHostileRegionTables) {
  Hello overlap = SampleHello();
  overlap.regions = {{1, 0x1000, 8192, Access::kRemoteWrite}, {2, 0x2000, 4096, Access::kRemoteWrite}};
  EXPECT_EQ(DecodeHello(EncodeHello(overlap)).status().code(), StatusCode::kProtocolError);

  Hello wrap = SampleHello();
  wrap.regions = {{1, UINT64_MAX - 10, 100, Access::kRemoteWrite}};
  EXPECT_EQ(DecodeHello(EncodeHello(wrap)).status().code(), StatusCode::kProtocolError);

  Hello empty = SampleHello();
  empty.regions = {{1, 0x1000, 0, Access::kRemoteWrite}};
  EXPECT_EQ(DecodeHello(EncodeHello(empty)).status().code(), StatusCode::kProtocolError);

  Hello bad_access = SampleHello();
  bad_access.regions = {{1, 0x1000, 10, static_cast<Access>(0x80)}};
  EXPECT_EQ(DecodeHello(EncodeHello(bad_access)).status().code(), StatusCode::kProtocolError);
}

TEST(HandshakeTest, RegionsCarryTheirMemoryKindAndDevice) {
  Hello hello = SampleHello();
  hello.regions = {{1, 0x1000, 4096, Access::kRemoteWrite, MemoryKind::kHugepage, -1},
                   {2, 0x7f0000000000, 1 << 20, Access::kRemoteReadWrite, MemoryKind::kCuda, 3}};
  auto decoded = DecodeHello(EncodeHello(hello));
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  ASSERT_EQ(decoded->regions.size(), 2u);
  EXPECT_EQ(decoded->regions[0].kind, MemoryKind::kHugepage);
  EXPECT_EQ(decoded->regions[0].device, -1);
  EXPECT_EQ(decoded->regions[1].kind, MemoryKind::kCuda);
  EXPECT_EQ(decoded->regions[1].device, 3);
}

TEST(HandshakeTest, RejectsUnknownKindsAndDevicesThatDoNotFitTheKind) {
  const std::vector<RemoteRegion> hostile[] = {
      {{1, 0x1000, 10, Access::kRemoteWrite, static_cast<MemoryKind>(7), -1}},
      {{1, 0x1000, 10, Access::kRemoteWrite, MemoryKind::kHost, 0}},
      {{1, 0x1000, 10, Access::kRemoteWrite, MemoryKind::kCuda, -1}},
  };
  for (const auto& regions : hostile) {
    Hello hello = SampleHello();
    hello.regions = regions;
    auto decoded = DecodeHello(EncodeHello(hello));
    EXPECT_EQ(decoded.status().code(), StatusCode::kProtocolError)
        << static_cast<int>(regions[0].kind) << " on device " << regions[0].device;
  }
}

TEST(HandshakeTest, RejectsAbsurdCounts) {
  Hello zero = SampleHello();
  zero.streams = 0;
  EXPECT_EQ(DecodeHello(EncodeHello(zero)).status().code(), StatusCode::kProtocolError);

  Hello many = SampleHello();
  many.regions.clear();
  for (uint64_t i = 0; i < kMaxRegions + 1; ++i) {
    many.regions.push_back({i + 1, 0x1000 * (i + 1), 16, Access::kRemoteWrite});
  }
  EXPECT_EQ(DecodeHello(EncodeHello(many)).status().code(), StatusCode::kProtocolError);
}

TEST(HandshakeTest, AuthMessagesRoundTripAndRefuseWhatDoesNotParse) {
  AuthOffer offer{AuthMode::kHmacSha256, {}};
  offer.initiator_nonce.fill(0x5c);
  auto decoded_offer = DecodeAuthOffer(EncodeAuthOffer(offer));
  ASSERT_TRUE(decoded_offer.ok()) << decoded_offer.status().ToString();
  EXPECT_EQ(decoded_offer->mode, AuthMode::kHmacSha256);
  EXPECT_EQ(decoded_offer->initiator_nonce, offer.initiator_nonce);

  AuthChallenge challenge{AuthMode::kHmacSha256, {}, {}};
  challenge.acceptor_nonce.fill(0x01);
  challenge.acceptor_proof.fill(0x02);
  const std::vector<uint8_t> bytes = EncodeAuthChallenge(challenge);
  auto decoded = DecodeAuthChallenge(bytes);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->acceptor_nonce, challenge.acceptor_nonce);
  EXPECT_EQ(decoded->acceptor_proof, challenge.acceptor_proof);

  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    EXPECT_EQ(DecodeAuthChallenge({bytes.data(), cut}).status().code(), StatusCode::kProtocolError);
  }
  std::vector<uint8_t> trailing = bytes;
  trailing.push_back(0);
  EXPECT_EQ(DecodeAuthChallenge(trailing).status().code(), StatusCode::kProtocolError);
  std::vector<uint8_t> unknown_mode = EncodeAuthOffer(offer);
  unknown_mode[7] = 7;  // after magic (4), version (2) and type (1)
  auto refused = DecodeAuthOffer(unknown_mode);
  EXPECT_EQ(refused.status().code(), StatusCode::kProtocolError);
  EXPECT_NE(refused.status().message().find("authentication mode 7"), std::string::npos);
  // The messages are not interchangeable: an offer is no challenge.
  EXPECT_EQ(DecodeAuthChallenge(EncodeAuthOffer(offer)).status().code(),
            StatusCode::kProtocolError);
}

TEST(HandshakeTest, APeerOfTheVersionBeforeAuthenticationIsNamed) {
  std::vector<uint8_t> old = EncodeHello(SampleHello());
  old[4] = 2;  // version, little-endian, after the magic
  auto refused = DecodeAuthOffer(old);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("version 2"), std::string::npos)
      << refused.status().ToString();
}

}  // namespace
}  // namespace xfer::core
