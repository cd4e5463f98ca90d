// GID choice: -x validation, perftest HEAD's scoring on RoCE, xfer's
// local-address rule, and no GRH on InfiniBand.
#include "verbs/gid_selection.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>

#include <string>

namespace xfer::verbs {
namespace {

GidEntry Gid(int index, const std::string& text, GidType type,
             const std::string& netdev = "vethA") {
  GidEntry gid;
  gid.index = index;
  EXPECT_EQ(::inet_pton(AF_INET6, text.c_str(), gid.raw.data()), 1) << text;
  gid.type = type;
  gid.netdev = netdev;
  return gid;
}

PortInfo RocePort(std::vector<GidEntry> gids, int table_len = 16) {
  PortInfo port;
  port.number = 1;
  port.link_layer = LinkLayer::kEthernet;
  port.gid_table_len = table_len;
  port.gids = std::move(gids);
  return port;
}

// The index ChooseGid picks with no -x; -1 when it fails or picks none.
int AutoIndex(const PortInfo& port, const GidPreference& preference = {}) {
  auto chosen = ChooseGid("rxe0", port, std::nullopt, preference);
  EXPECT_TRUE(chosen.ok()) << chosen.status().ToString();
  if (!chosen.ok() || !chosen->has_value()) return -1;
  return (*chosen)->index;
}

TEST(GidSelection, Ipv4MappedRoceV2BeatsV1AndLinkLocal) {
  // Soft-RoCE's table on a veth with a routable IPv4 address and fe80::.
  const PortInfo port = RocePort({Gid(0, "fe80::1", GidType::kRoceV1),
                                  Gid(1, "fe80::1", GidType::kRoceV2),
                                  Gid(2, "::ffff:10.0.0.5", GidType::kRoceV1),
                                  Gid(3, "::ffff:10.0.0.5", GidType::kRoceV2)});
  EXPECT_EQ(AutoIndex(port), 3);
  EXPECT_EQ(GidScore(port.gids[3], {}), 112);
  EXPECT_EQ(GidScore(port.gids[2], {}), 111);
  EXPECT_EQ(GidScore(port.gids[1], {}), 2);
  EXPECT_EQ(GidScore(port.gids[0], {}), 1);
}

TEST(GidSelection, RoutableIpv4BeatsLinkLocal169254) {
  const PortInfo port =
      RocePort({Gid(0, "fe80::1", GidType::kRoceV2),
                Gid(1, "::ffff:169.254.77.1", GidType::kRoceV2),
                Gid(2, "::ffff:192.168.1.7", GidType::kRoceV1)});
  // 192.168.1.7 v1: 100 + 10 + 1 = 111 beats 169.254.77.1 v2: 100 + 2.
  EXPECT_EQ(AutoIndex(port), 2);
  // Without the routable one, the 169.254 address still beats fe80::.
  const PortInfo link_local_only =
      RocePort({Gid(0, "fe80::1", GidType::kRoceV2),
                Gid(1, "::ffff:169.254.77.1", GidType::kRoceV2)});
  EXPECT_EQ(AutoIndex(link_local_only), 1);
}

TEST(GidSelection, PreferIpv6PicksTheRoutableIpv6Entry) {
  const PortInfo port =
      RocePort({Gid(0, "fe80::1", GidType::kRoceV2),
                Gid(1, "::ffff:10.0.0.5", GidType::kRoceV2),
                Gid(2, "2001:db8::5", GidType::kRoceV1),
                Gid(3, "2001:db8::5", GidType::kRoceV2)});
  EXPECT_EQ(AutoIndex(port), 1);
  EXPECT_EQ(AutoIndex(port, {.prefer_ipv6 = true, .local_ipv4 = {}}), 3);
  // With only link-local IPv6, --ipv6 still takes it over IPv4.
  const PortInfo no_global =
      RocePort({Gid(0, "fe80::1", GidType::kRoceV2),
                Gid(1, "::ffff:10.0.0.5", GidType::kRoceV2)});
  EXPECT_EQ(AutoIndex(no_global, {.prefer_ipv6 = true, .local_ipv4 = {}}), 0);
}

TEST(GidSelection, LocalIpv4MatchWinsOverEveryOtherRule) {
  const PortInfo port =
      RocePort({Gid(0, "fe80::1", GidType::kRoceV2),
                Gid(1, "::ffff:169.254.77.1", GidType::kRoceV1),
                Gid(2, "::ffff:10.0.0.5", GidType::kRoceV2),
                Gid(3, "2001:db8::5", GidType::kRoceV2)});
  GidPreference preference;
  preference.local_ipv4 = std::array<uint8_t, 4>{169, 254, 77, 1};
  EXPECT_EQ(AutoIndex(port, preference), 1);
  preference.prefer_ipv6 = true;
  EXPECT_EQ(AutoIndex(port, preference), 1);
  // An address that is not in the table changes nothing.
  preference = {};
  preference.local_ipv4 = std::array<uint8_t, 4>{10, 9, 9, 9};
  EXPECT_EQ(AutoIndex(port, preference), 2);
}

TEST(GidSelection, TiesGoToTheLowestIndexAndZeroEntriesAreSkipped) {
  PortInfo port = RocePort({Gid(5, "::ffff:10.0.0.6", GidType::kRoceV2),
                            Gid(2, "::ffff:10.0.0.5", GidType::kRoceV2),
                            Gid(1, "::", GidType::kRoceV2)});
  EXPECT_EQ(AutoIndex(port), 2);
  port.gids = {Gid(0, "::", GidType::kRoceV2), Gid(1, "fe80::1", GidType::kRoceV1)};
  EXPECT_EQ(AutoIndex(port), 1);
}

TEST(GidSelection, ExplicitIndexOutOfRangeNamesTheFlagAndTheRange) {
  const PortInfo port = RocePort({Gid(0, "fe80::1", GidType::kRoceV2),
                                  Gid(1, "::ffff:169.254.77.1", GidType::kRoceV2)},
                                 /*table_len=*/2);
  for (int index : {7, 2, -1}) {
    auto chosen = ChooseGid("rxe0", port, index, {});
    ASSERT_FALSE(chosen.ok()) << index;
    EXPECT_EQ(chosen.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(chosen.status().message(),
              "-x/--gid-index " + std::to_string(index) +
                  ": port 1 of rxe0 has GID indices 0..1");
  }
}

TEST(GidSelection, ExplicitIndexOfAnEmptyOrZeroEntryIsAnError) {
  const PortInfo port = RocePort({Gid(0, "fe80::1", GidType::kRoceV2),
                                  Gid(1, "::ffff:169.254.77.1", GidType::kRoceV2),
                                  Gid(3, "::", GidType::kRoceV2)},
                                 /*table_len=*/1024);
  for (int index : {2, 3}) {
    auto chosen = ChooseGid("rxe0", port, index, {});
    ASSERT_FALSE(chosen.ok()) << index;
    EXPECT_EQ(chosen.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(chosen.status().message(),
              "-x/--gid-index " + std::to_string(index) + ": GID " +
                  std::to_string(index) +
                  " on port 1 of rxe0 is empty (valid indices: 0, 1)");
  }
}

TEST(GidSelection, ExplicitIndexIsTakenEvenWhenItScoresLower) {
  const PortInfo port = RocePort({Gid(0, "fe80::1", GidType::kRoceV1),
                                  Gid(1, "::ffff:10.0.0.5", GidType::kRoceV2)});
  auto chosen = ChooseGid("rxe0", port, 0, {});
  ASSERT_TRUE(chosen.ok()) << chosen.status().ToString();
  ASSERT_TRUE(chosen->has_value());
  EXPECT_EQ((*chosen)->index, 0);
  EXPECT_EQ((*chosen)->ToString(), "fe80::1");
}

TEST(GidSelection, InfiniBandWithoutXUsesNoGrh) {
  PortInfo port = RocePort({Gid(0, "fe80::2:c903:a:b0c1", GidType::kIb, "")});
  port.link_layer = LinkLayer::kInfiniBand;
  auto chosen = ChooseGid("mlx5_0", port, std::nullopt, {});
  ASSERT_TRUE(chosen.ok()) << chosen.status().ToString();
  EXPECT_FALSE(chosen->has_value());
  port.link_layer = LinkLayer::kUnspecified;  // old drivers: treated as IB
  chosen = ChooseGid("mlx5_0", port, std::nullopt, {});
  ASSERT_TRUE(chosen.ok());
  EXPECT_FALSE(chosen->has_value());
}

TEST(GidSelection, InfiniBandWithXUsesThatEntry) {
  PortInfo port = RocePort({Gid(0, "fe80::2:c903:a:b0c1", GidType::kIb, ""),
                            Gid(1, "fec0::2:c903:a:b0c1", GidType::kIb, "")});
  port.link_layer = LinkLayer::kInfiniBand;
  auto chosen = ChooseGid("mlx5_0", port, 1, {});
  ASSERT_TRUE(chosen.ok()) << chosen.status().ToString();
  ASSERT_TRUE(chosen->has_value());
  EXPECT_EQ((*chosen)->index, 1);
  EXPECT_EQ((*chosen)->ToString(), "fec0::2:c903:a:b0c1");
}

TEST(GidSelection, RocePortWithoutUsableGidIsAFailedPrecondition) {
  PortInfo port = RocePort({Gid(0, "::", GidType::kRoceV2)});
  port.number = 2;
  auto chosen = ChooseGid("rxe1", port, std::nullopt, {});
  ASSERT_FALSE(chosen.ok());
  EXPECT_EQ(chosen.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(chosen.status().message().find("port 2 of rxe1"), std::string::npos)
      << chosen.status().message();
}

}  // namespace
}  // namespace xfer::verbs
