#include "perftest/negotiation.h"

#include <gtest/gtest.h>

namespace xfer::perftest {
namespace {

NegotiatedParams Sample() {
  NegotiatedParams p;
  p.verb = 2;
  p.tst = 1;
  p.size = 65536;
  p.iters = 5000;
  p.num_of_qps = 4;
  p.device_attr.max_qp_rd_atom = 16;
  return p;
}

TEST(Negotiation, LayoutMatchesPerftestOffsets) {
  const auto bytes = EncodeNegotiation(Sample());
  ASSERT_EQ(bytes.size(), 320u);
  // verb at 8, htonl'd.
  EXPECT_EQ(bytes[8 + 3], 2);
  EXPECT_EQ(bytes[8], 0);
  // size at 32, big-endian u64: 65536 = 0x10000.
  EXPECT_EQ(bytes[32 + 5], 1);
  // num_of_qps at 52.
  EXPECT_EQ(bytes[52 + 3], 4);
  // duration defaults to 5 at 56.
  EXPECT_EQ(bytes[56 + 3], 5);
  // attr raw (host order) at 80: max_qp_rd_atom lives at attr+144.
  EXPECT_EQ(bytes[80 + 144], 16);
}

TEST(Negotiation, RoundTripsAndAgreesWithItself) {
  const NegotiatedParams local = Sample();
  auto decoded = DecodeNegotiation(EncodeNegotiation(local));
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(decoded->size, local.size);
  EXPECT_EQ(decoded->iters, local.iters);
  EXPECT_EQ(decoded->device_attr.max_qp_rd_atom, 16);
  EXPECT_TRUE(CompareNegotiation(local, *decoded).ok());
}

TEST(Negotiation, NamesEveryMismatchWithItsFlag) {
  NegotiatedParams remote = Sample();
  remote.size = 4096;
  remote.num_of_qps = 1;
  Status s = CompareNegotiation(Sample(), remote);
  ASSERT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("size mismatch (-s): local=65536, remote=4096"), std::string::npos);
  EXPECT_NE(s.message().find("num_of_qps mismatch (-q): local=4, remote=1"), std::string::npos);
}

TEST(Negotiation, DeviceLimitsAreNotCompared) {
  NegotiatedParams remote = Sample();
  remote.device_attr.max_qp_rd_atom = 128;
  EXPECT_TRUE(CompareNegotiation(Sample(), remote).ok());
}

TEST(Negotiation, RejectsWrongLength) {
  EXPECT_EQ(DecodeNegotiation(std::vector<uint8_t>(312, 0)).status().code(),
            StatusCode::kProtocolError);
}

}  // namespace
}  // namespace xfer::perftest
