// The verbs setup messages: what one side encodes the other decodes, and
// hostile bytes are a kProtocolError, never a crash. Pure: no device needed.
#include <gtest/gtest.h>

#include <random>

#include "common/wire.h"
#include "transport/verbs/remote_keys.h"
#include "transport/verbs/setup_message.h"

namespace xfer::transport::verbs {
namespace {

SetupMessage Sample(uint32_t streams = 2, size_t regions = 2, bool gid = true) {
  SetupMessage m;
  m.link_layer = WireLinkLayer::kEthernet;
  m.mtu = 3;
  m.has_gid = gid;
  m.recv_slot_bytes = 16384;
  m.recv_slots = 32;
  for (uint32_t i = 0; i < streams; ++i) {
    ::xfer::verbs::QpEndpoint qp;
    qp.lid = static_cast<uint16_t>(i);
    qp.qpn = 0x11 + i;
    qp.psn = 0xabcdef - i;
    qp.out_reads = 16;
    if (gid) {
      std::array<uint8_t, 16> raw{};
      raw[10] = raw[11] = 0xff;
      raw[12] = 169;
      raw[13] = 254;
      raw[14] = 77;
      raw[15] = static_cast<uint8_t>(i + 1);
      qp.gid = raw;
    }
    m.qps.push_back(qp);
  }
  for (size_t r = 0; r < regions; ++r) {
    m.keys.push_back({r + 1, 0x10000 * (r + 1), 4096, static_cast<uint32_t>(0x100 + r),
                         r % 2 == 0 ? Access::kRemoteReadWrite : Access::kRemoteRead});
  }
  return m;
}

StatusCode DecodeCode(const std::vector<uint8_t>& bytes) {
  return DecodePeerMessage(bytes).status().code();
}

TEST(VerbsSetupMessageTest, SetupRoundTrips) {
  const SetupMessage sent = Sample(3, 4);
  auto decoded = DecodePeerMessage(EncodeSetup(sent));
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  ASSERT_EQ(decoded->kind, MessageKind::kSetup);
  const SetupMessage& got = decoded->setup;
  EXPECT_EQ(got.link_layer, sent.link_layer);
  EXPECT_EQ(got.mtu, sent.mtu);
  EXPECT_TRUE(got.has_gid);
  EXPECT_EQ(got.recv_slot_bytes, sent.recv_slot_bytes);
  EXPECT_EQ(got.recv_slots, sent.recv_slots);
  ASSERT_EQ(got.qps.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(got.qps[i].lid, sent.qps[i].lid);
    EXPECT_EQ(got.qps[i].qpn, sent.qps[i].qpn);
    EXPECT_EQ(got.qps[i].psn, sent.qps[i].psn);
    EXPECT_EQ(got.qps[i].out_reads, sent.qps[i].out_reads);
    EXPECT_EQ(got.qps[i].gid, sent.qps[i].gid);
  }
  ASSERT_EQ(got.keys.size(), 4u);
  for (size_t r = 0; r < 4; ++r) {
    EXPECT_EQ(got.keys[r].id, sent.keys[r].id);
    EXPECT_EQ(got.keys[r].address, sent.keys[r].address);
    EXPECT_EQ(got.keys[r].length, sent.keys[r].length);
    EXPECT_EQ(got.keys[r].rkey, sent.keys[r].rkey);
    EXPECT_EQ(got.keys[r].access, sent.keys[r].access);
  }
}

TEST(VerbsSetupMessageTest, SetupWithoutGidRoundTrips) {
  auto decoded = DecodePeerMessage(EncodeSetup(Sample(1, 0, false)));
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_FALSE(decoded->setup.has_gid);
  EXPECT_FALSE(decoded->setup.qps[0].gid.has_value());
  EXPECT_TRUE(decoded->setup.keys.empty());
}

TEST(VerbsSetupMessageTest, MaximalSetupFitsTheBound) {
  const auto bytes = EncodeSetup(Sample(kMaxStreams, kMaxSetupKeys));
  EXPECT_EQ(bytes.size(), kMaxSetupMessageBytes);
  EXPECT_TRUE(DecodePeerMessage(bytes).ok());
}

TEST(VerbsSetupMessageTest, VerdictsRoundTrip) {
  auto ok = DecodePeerMessage(EncodeVerdict(Status::Ok()));
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->kind, MessageKind::kVerdict);
  EXPECT_TRUE(ok->verdict.ok());

  auto failed = DecodePeerMessage(EncodeVerdict(FailedPrecondition("no RDMA device: none")));
  ASSERT_TRUE(failed.ok());
  EXPECT_EQ(failed->verdict.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(failed->verdict.message(), "no RDMA device: none");

  auto long_text = DecodePeerMessage(EncodeVerdict(Internal(std::string(5000, 'x'))));
  ASSERT_TRUE(long_text.ok());
  EXPECT_EQ(long_text->verdict.message().size(), kMaxVerdictText);
}

TEST(VerbsSetupMessageTest, EveryTruncationIsAProtocolError) {
  for (const auto& bytes : {EncodeSetup(Sample(2, 3)), EncodeVerdict(Timeout("slow"))}) {
    for (size_t n = 0; n < bytes.size(); ++n) {
      const std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + static_cast<long>(n));
      EXPECT_EQ(DecodeCode(prefix), StatusCode::kProtocolError) << "prefix of " << n;
    }
  }
}

TEST(VerbsSetupMessageTest, TrailingBytesAreAProtocolError) {
  auto bytes = EncodeSetup(Sample());
  bytes.push_back(0);
  EXPECT_EQ(DecodeCode(bytes), StatusCode::kProtocolError);
}

// Byte offsets in an encoded SETUP (setup_message.h).
constexpr size_t kKindAt = 6;
constexpr size_t kLinkLayerAt = 7;
constexpr size_t kMtuAt = 8;
constexpr size_t kHasGidAt = 9;
constexpr size_t kReservedAt = 10;
constexpr size_t kStreamsAt = 12;
constexpr size_t kSlotBytesAt = 16;
constexpr size_t kSlotsAt = 20;
constexpr size_t kFirstQpAt = 24;  // lid 2, qpn 4, psn 4, out_reads 4, gid 16

void PutU32(std::vector<uint8_t>& bytes, size_t at, uint32_t v) {
  for (size_t i = 0; i < 4; ++i) bytes[at + i] = static_cast<uint8_t>(v >> (8 * i));
}

TEST(VerbsSetupMessageTest, HostileFieldsAreRefused) {
  const auto good = EncodeSetup(Sample(1, 1));
  ASSERT_TRUE(DecodePeerMessage(good).ok());
  struct Case {
    const char* what;
    std::function<void(std::vector<uint8_t>&)> corrupt;
  };
  const Case cases[] = {
      {"magic", [](auto& b) { b[0] ^= 1; }},
      {"version", [](auto& b) { b[4] = 9; }},
      {"kind", [](auto& b) { b[kKindAt] = 3; }},
      {"link layer", [](auto& b) { b[kLinkLayerAt] = 7; }},
      {"mtu 0", [](auto& b) { b[kMtuAt] = 0; }},
      {"mtu 6", [](auto& b) { b[kMtuAt] = 6; }},
      {"has_gid 2", [](auto& b) { b[kHasGidAt] = 2; }},
      {"reserved", [](auto& b) { b[kReservedAt] = 1; }},
      {"0 streams", [](auto& b) { PutU32(b, kStreamsAt, 0); }},
      {"65 streams", [](auto& b) { PutU32(b, kStreamsAt, 65); }},
      {"huge stream count", [](auto& b) { PutU32(b, kStreamsAt, 0xffffffff); }},
      {"tiny slots", [](auto& b) { PutU32(b, kSlotBytesAt, 16); }},
      {"huge slots", [](auto& b) { PutU32(b, kSlotBytesAt, 1u << 30); }},
      {"0 slots", [](auto& b) { PutU32(b, kSlotsAt, 0); }},
      {"qpn 0", [](auto& b) { PutU32(b, kFirstQpAt + 2, 0); }},
      {"qpn > 24 bits", [](auto& b) { PutU32(b, kFirstQpAt + 2, 1u << 24); }},
      {"psn > 24 bits", [](auto& b) { PutU32(b, kFirstQpAt + 6, 1u << 24); }},
      {"0 out_reads", [](auto& b) { PutU32(b, kFirstQpAt + 10, 0); }},
      {"gid without has_gid", [](auto& b) { b[kHasGidAt] = 0; }},
      {"region count", [](auto& b) { PutU32(b, kFirstQpAt + 30, 4097); }},
  };
  for (const auto& c : cases) {
    auto bytes = good;
    c.corrupt(bytes);
    auto decoded = DecodePeerMessage(bytes);
    ASSERT_FALSE(decoded.ok()) << c.what;
    EXPECT_EQ(decoded.status().code(), StatusCode::kProtocolError) << c.what;
  }
}

TEST(VerbsSetupMessageTest, HostileRegionsAreRefused) {
  auto with_region = [](RegionKey region) {
    SetupMessage m = Sample(1, 0);
    m.keys.push_back(region);
    return EncodeSetup(m);
  };
  EXPECT_EQ(DecodeCode(with_region({1, 0x1000, 0, 1, Access::kRemoteRead})),
            StatusCode::kProtocolError);  // empty
  EXPECT_EQ(DecodeCode(with_region({1, UINT64_MAX - 10, 100, 1, Access::kRemoteRead})),
            StatusCode::kProtocolError);  // wraps
  EXPECT_EQ(DecodeCode(with_region({1, 0x1000, 10, 1, static_cast<Access>(4)})),
            StatusCode::kProtocolError);  // unknown access bit
}

TEST(VerbsSetupMessageTest, HostileVerdictsAreRefused) {
  auto verdict = [](uint8_t code, size_t text) {
    WireWriter w;
    w.U32(kSetupMagic);
    w.U16(kSetupVersion);
    w.U8(static_cast<uint8_t>(MessageKind::kVerdict));
    w.U8(code);
    w.String(std::string(text, 'e'));
    return w.bytes();
  };
  EXPECT_TRUE(DecodePeerMessage(verdict(static_cast<uint8_t>(StatusCode::kTimeout), 10)).ok());
  EXPECT_EQ(DecodeCode(verdict(static_cast<uint8_t>(StatusCode::kInProgress), 1)),
            StatusCode::kProtocolError);
  EXPECT_EQ(DecodeCode(verdict(200, 1)), StatusCode::kProtocolError);
  EXPECT_EQ(DecodeCode(verdict(static_cast<uint8_t>(StatusCode::kTimeout), kMaxVerdictText + 1)),
            StatusCode::kProtocolError);
}

TEST(VerbsSetupMessageTest, RandomCorruptionNeverCrashes) {
  const auto good = EncodeSetup(Sample(4, 8));
  std::mt19937 rng(1234);
  for (int round = 0; round < 20000; ++round) {
    auto bytes = good;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) bytes[rng() % bytes.size()] = static_cast<uint8_t>(rng());
    if (rng() % 4 == 0) bytes.resize(rng() % bytes.size());
    auto decoded = DecodePeerMessage(bytes);
    if (!decoded.ok()) {
      EXPECT_EQ(decoded.status().code(), StatusCode::kProtocolError);
    }
  }
}

TEST(VerbsRemoteKeysTest, FindsTheRkeyOfTheRegionHoldingARange) {
  RemoteKeys keys({{2, 0x20000, 0x1000, 0xb2, Access::kRemoteRead},
                   {1, 0x10000, 0x1000, 0xa1, Access::kRemoteReadWrite}});
  auto whole = keys.Find(0x10000, 0x1000, Access::kRemoteWrite);
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(whole->key, 0xa1u);
  EXPECT_EQ(whole->bytes, 0x1000u);
  auto tail = keys.Find(0x20800, 0x800, Access::kRemoteRead);
  ASSERT_TRUE(tail.ok());
  EXPECT_EQ(tail->key, 0xb2u);
  EXPECT_EQ(tail->bytes, 0x800u);
  EXPECT_EQ(keys.Find(0x10800, 0x801, Access::kRemoteRead).status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(keys.Find(0xf000, 8, Access::kRemoteRead).status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(keys.Find(UINT64_MAX - 4, 16, Access::kRemoteRead).status().code(),
            StatusCode::kOutOfRange);
  EXPECT_EQ(keys.Find(0x20000, 8, Access::kRemoteWrite).status().code(),
            StatusCode::kPermissionDenied);
  EXPECT_EQ(keys.Find(0x20000, 0, Access::kRemoteRead).status().code(),
            StatusCode::kInvalidArgument);
}

// Region 1 registered in three pieces (0x1000, 0x1000, 0x800 bytes), region
// 2 right after it in one: a range is keyed piece by piece inside its
// region and refused across regions.
TEST(VerbsRemoteKeysTest, ARegionInPiecesIsKeyedPieceByPiece) {
  RemoteKeys keys({{1, 0x11000, 0x1000, 0xa2, Access::kRemoteReadWrite},
                   {2, 0x12800, 0x1000, 0xb1, Access::kRemoteReadWrite},
                   {1, 0x12000, 0x800, 0xa3, Access::kRemoteReadWrite},
                   {1, 0x10000, 0x1000, 0xa1, Access::kRemoteReadWrite}});
  // The whole region from its start: the first piece's key, its bytes.
  auto first = keys.Find(0x10000, 0x2800, Access::kRemoteWrite);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->key, 0xa1u);
  EXPECT_EQ(first->bytes, 0x1000u);
  // From inside the second piece, running into the third.
  auto second = keys.Find(0x11f00, 0x200, Access::kRemoteRead);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->key, 0xa2u);
  EXPECT_EQ(second->bytes, 0x100u);
  auto third = keys.Find(0x12000, 0x100, Access::kRemoteRead);
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(third->key, 0xa3u);
  EXPECT_EQ(third->bytes, 0x100u);
  // Past the region's end into region 2: one range may not span two.
  EXPECT_EQ(keys.Find(0x12700, 0x200, Access::kRemoteRead).status().code(),
            StatusCode::kOutOfRange);
  auto other = keys.Find(0x12800, 0x1000, Access::kRemoteRead);
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(other->key, 0xb1u);
}

TEST(VerbsRemoteKeysTest, KeyedRegionsMustMatchTheHandshake) {
  const std::vector<RemoteRegion> announced = {{1, 0x10000, 0x1000, Access::kRemoteReadWrite},
                                               {2, 0x20000, 0x1000, Access::kRemoteRead}};
  std::vector<RegionKey> keys = {{2, 0x20000, 0x1000, 7, Access::kRemoteRead},
                                 {1, 0x10000, 0x1000, 8, Access::kRemoteReadWrite}};
  EXPECT_TRUE(MatchAnnouncedRegions(keys, announced).ok());
  auto missing = keys;
  missing.pop_back();
  EXPECT_EQ(MatchAnnouncedRegions(missing, announced).code(), StatusCode::kProtocolError);
  auto grown = keys;
  grown[0].length = 0x2000;
  EXPECT_EQ(MatchAnnouncedRegions(grown, announced).code(), StatusCode::kProtocolError);
  auto more_access = keys;
  more_access[0].access = Access::kRemoteReadWrite;
  EXPECT_EQ(MatchAnnouncedRegions(more_access, announced).code(), StatusCode::kProtocolError);
  auto other_id = keys;
  other_id[1].id = 9;
  EXPECT_EQ(MatchAnnouncedRegions(other_id, announced).code(), StatusCode::kProtocolError);
  auto extra = keys;
  extra.push_back({3, 0x30000, 0x1000, 9, Access::kRemoteRead});
  EXPECT_EQ(MatchAnnouncedRegions(extra, announced).code(), StatusCode::kProtocolError);
}

TEST(VerbsRemoteKeysTest, PiecesMustTileTheirRegionExactly) {
  const std::vector<RemoteRegion> announced = {{1, 0x10000, 0x3000, Access::kRemoteReadWrite}};
  auto piece = [](uint64_t address, uint64_t length, uint64_t id = 1,
                  Access access = Access::kRemoteReadWrite) {
    return RegionKey{id, address, length, 5, access};
  };
  // In any order.
  EXPECT_TRUE(MatchAnnouncedRegions({piece(0x12000, 0x1000), piece(0x10000, 0x2000)}, announced)
                  .ok());
  const std::vector<std::pair<const char*, std::vector<RegionKey>>> bad = {
      {"a gap", {piece(0x10000, 0x1000), piece(0x12000, 0x1000)}},
      {"an overlap", {piece(0x10000, 0x2000), piece(0x11000, 0x2000)}},
      {"short of the end", {piece(0x10000, 0x1000), piece(0x11000, 0x1000)}},
      {"past the end", {piece(0x10000, 0x2000), piece(0x12000, 0x2000)}},
      {"a piece of another id", {piece(0x10000, 0x2000), piece(0x12000, 0x1000, 2)}},
      {"a piece granting other access",
       {piece(0x10000, 0x2000), piece(0x12000, 0x1000, 1, Access::kRemoteRead)}},
      {"the same piece twice",
       {piece(0x10000, 0x2000), piece(0x12000, 0x1000), piece(0x12000, 0x1000)}},
  };
  for (const auto& [what, keys] : bad) {
    const Status status = MatchAnnouncedRegions(keys, announced);
    EXPECT_EQ(status.code(), StatusCode::kProtocolError) << what;
  }
}

}  // namespace
}  // namespace xfer::transport::verbs
