#include "perftest/wire_format.h"

#include <gtest/gtest.h>

#include <string>

namespace xfer::perftest {
namespace {

std::string Text(const std::vector<uint8_t>& bytes) {
  return std::string(bytes.begin(), bytes.end());
}

bench::QpAddress SampleAddress() {
  bench::QpAddress a;
  a.lid = 1;
  a.out_reads = 0x10;
  a.qpn = 0x108;
  a.psn = 0x63ad7d;
  a.rkey = 0x17eedf;
  a.vaddr = 0x00007f760c947000;
  return a;
}

TEST(KeyMessage, ShortFormIsPerftestsTextAndNul) {
  const std::vector<uint8_t> bytes = EncodeKeyMessage(SampleAddress());
  ASSERT_EQ(bytes.size(), kKeyMessageSize);
  EXPECT_EQ(bytes.back(), 0);
  EXPECT_EQ(Text(bytes).c_str(), std::string("0001:0010:000108:63ad7d:0017eedf:00007f760c947000:00000000"));
}

TEST(KeyMessage, GidFormMatchesTheReferenceExample) {
  bench::QpAddress a = SampleAddress();
  a.lid = 0;
  a.out_reads = 1;
  a.gid = std::array<uint8_t, 16>{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0x0a, 0, 0, 5};
  const std::vector<uint8_t> bytes = EncodeKeyMessage(a);
  ASSERT_EQ(bytes.size(), kKeyMessageGidSize);
  EXPECT_EQ(std::string(Text(bytes).c_str()),
            "0000:0001:000108:63ad7d:0017eedf:00007f760c947000:00:00:00:00:00:00:00:00:00:00:ff:"
            "ff:0a:00:00:05:00000000:");
}

TEST(KeyMessage, RoundTripsBothForms) {
  bench::QpAddress a = SampleAddress();
  auto plain = DecodeKeyMessage(EncodeKeyMessage(a), false);
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_EQ(plain->qpn, a.qpn);
  EXPECT_EQ(plain->psn, a.psn);
  EXPECT_EQ(plain->rkey, a.rkey);
  EXPECT_EQ(plain->vaddr, a.vaddr);
  EXPECT_EQ(plain->out_reads, a.out_reads);
  EXPECT_FALSE(plain->gid.has_value());
  a.gid = std::array<uint8_t, 16>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 255};
  auto with_gid = DecodeKeyMessage(EncodeKeyMessage(a), true);
  ASSERT_TRUE(with_gid.ok()) << with_gid.status().ToString();
  EXPECT_EQ(*with_gid->gid, *a.gid);
}

TEST(KeyMessage, RejectsHostileInput) {
  std::vector<uint8_t> good = EncodeKeyMessage(SampleAddress());
  // Wrong length for the form the receiver expects.
  EXPECT_EQ(DecodeKeyMessage(good, true).status().code(), StatusCode::kProtocolError);
  // No terminator.
  std::vector<uint8_t> unterminated = good;
  unterminated.back() = 'x';
  EXPECT_EQ(DecodeKeyMessage(unterminated, false).status().code(), StatusCode::kProtocolError);
  // A non-hex field.
  std::vector<uint8_t> garbage = good;
  garbage[10] = 'z';
  EXPECT_EQ(DecodeKeyMessage(garbage, false).status().code(), StatusCode::kProtocolError);
  // Fields shifted (a colon where a digit belongs).
  std::vector<uint8_t> shifted = good;
  shifted[3] = ':';
  EXPECT_EQ(DecodeKeyMessage(shifted, false).status().code(), StatusCode::kProtocolError);
  // All zeros of the right size.
  EXPECT_EQ(DecodeKeyMessage(std::vector<uint8_t>(kKeyMessageSize, 0), false).status().code(),
            StatusCode::kProtocolError);
}

TEST(Version, EncodesNulPaddedAndParsesLikeAtof) {
  const auto bytes = EncodeVersion("6.06");
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(bytes.data())), "6.06");
  EXPECT_EQ(bytes[4], 0);
  EXPECT_EQ(bytes[15], 0);
  auto parsed = DecodeVersion(bytes);
  ASSERT_TRUE(parsed.ok());
  EXPECT_DOUBLE_EQ(parsed->number, 6.06);
  EXPECT_EQ(parsed->text, "6.06");
}

TEST(Version, RejectsNonPerftestPeers) {
  std::array<uint8_t, kVersionSize> http{};
  const std::string get = "GET / HTTP/1.1\r\n";
  std::copy(get.begin(), get.end(), http.begin());
  auto parsed = DecodeVersion(http);
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.status().message().find("not a perftest version"), std::string::npos);
  EXPECT_FALSE(DecodeVersion(std::vector<uint8_t>(15, '6')).ok());
}

TEST(SystemData, BigEndianInt32) {
  const auto bytes = EncodeInt32(4096);
  EXPECT_EQ(bytes, (std::array<uint8_t, 4>{0, 0, 0x10, 0}));
  EXPECT_EQ(*DecodeInt32(bytes), 4096);
}

TEST(Mtu, SizeDependsOnPeerVersionAndInvalidMeansKeepOwn) {
  EXPECT_EQ(MtuMessageSize(6.06), 2u);
  EXPECT_EQ(MtuMessageSize(5.30), 4u);
  const auto two = EncodeMtu(3, 2);
  EXPECT_EQ(two, (std::vector<uint8_t>{'3', 0}));
  EXPECT_EQ(*DecodeMtu(two), 3);
  EXPECT_EQ(*DecodeMtu(std::vector<uint8_t>{'9', 0}), 0);
  EXPECT_EQ(*DecodeMtu(std::vector<uint8_t>{'3', '3'}), 0);
  EXPECT_FALSE(DecodeMtu(std::vector<uint8_t>{'3'}).ok());
}

TEST(Report, U64AndDoubleAreNetworkOrder) {
  EXPECT_EQ(EncodeU64(65536), (std::array<uint8_t, 8>{0, 0, 0, 0, 0, 1, 0, 0}));
  // 1.0 = 0x3FF0000000000000.
  EXPECT_EQ(EncodeDouble(1.0), (std::array<uint8_t, 8>{0x3f, 0xf0, 0, 0, 0, 0, 0, 0}));
  EXPECT_DOUBLE_EQ(*DecodeDouble(EncodeDouble(11640.88)), 11640.88);
  EXPECT_EQ(*DecodeU64(EncodeU64(0x0102030405060708ull)), 0x0102030405060708ull);
  EXPECT_FALSE(DecodeU64(std::vector<uint8_t>(4, 0)).ok());
}

}  // namespace
}  // namespace xfer::perftest
