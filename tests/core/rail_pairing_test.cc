// How the acceptor pairs rail ends: within a network, namesakes first, the
// control path as rail 0, repeated up to the count asked for.
#include "core/rail_pairing.h"

#include <gtest/gtest.h>

#include <span>
#include <string>
#include <vector>

namespace xfer::core {
namespace {

using transport::RailCandidate;

TEST(PairRails, AddressesPairWithinTheirSubnetTheControlPathFirst) {
  const std::vector<RailCandidate> acceptor = {
      {"10.0.2.2", "10.0.2.0/24", 125e6}, {"10.0.1.2", "10.0.1.0/24", 125e6},
      {"192.168.9.2", "192.168.9.0/24", 0}};
  const std::vector<RailCandidate> initiator = {
      {"10.0.1.1", "10.0.1.0/24", 125e6}, {"10.0.2.1", "10.0.2.0/24", 1.25e9}};
  const std::vector<RailPair> two = PairRails(acceptor, initiator, 2, 16);
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0].initiator, "10.0.1.1");
  EXPECT_EQ(two[0].acceptor, "10.0.1.2");
  EXPECT_EQ(two[1].initiator, "10.0.2.1");
  EXPECT_EQ(two[1].acceptor, "10.0.2.2");
  EXPECT_EQ(two[1].bytes_per_sec, 125e6);  // the slower end's
  // `auto`: a rail per end the initiator offered, none repeated.
  const std::vector<RailPair> automatic = PairRails(acceptor, initiator, 0, 16);
  ASSERT_EQ(automatic.size(), 2u);
  EXPECT_EQ(automatic[0].initiator, "10.0.1.1");
  EXPECT_EQ(PairRails(acceptor, std::span(initiator).first(1), 0, 16).size(), 1u);
}

// What `auto` offers: the first end (the control path, the configured
// device) whatever its place, then the ends nearest the memory, in order.
TEST(AutoRailEnds, TheFirstEndAndThoseNearestTheMemory) {
  const std::vector<RailCandidate> ends = {{"mlx5_0", "InfiniBand", 0},
                                           {"mlx5_4", "InfiniBand", 0},
                                           {"mlx5_1", "InfiniBand", 0},
                                           {"mlx5_5", "InfiniBand", 0}};
  const std::vector<std::string> nearest = {"mlx5_5", "mlx5_4", "mlx5_7"};
  const std::vector<RailCandidate> chosen = AutoRailEnds(ends, nearest);
  ASSERT_EQ(chosen.size(), 3u);
  EXPECT_EQ(chosen[0].name, "mlx5_0");
  EXPECT_EQ(chosen[1].name, "mlx5_4");
  EXPECT_EQ(chosen[2].name, "mlx5_5");
  // Nothing near by topology (software RDMA, tcp): the first end alone.
  const std::vector<RailCandidate> unplaced = {{"rxe0", "Ethernet", 0},
                                               {"rxe1", "Ethernet", 0}};
  ASSERT_EQ(AutoRailEnds(unplaced, {}).size(), 1u);
  EXPECT_TRUE(AutoRailEnds(std::span<const RailCandidate>(), nearest).empty());
}

// One host's RDMA devices, as in the Soft-RoCE VM: each side configured
// with another device of the same four. Rail 0 joins the configured ones;
// rail 1 is a device with its namesake, not rail 0's devices crosswise.
TEST(PairRails, DevicesPairWithTheirNamesakeBeforeRail0sDevicesCrosswise) {
  const std::vector<RailCandidate> acceptor = {{"rxe0", "Ethernet", 0},
                                               {"rxe1", "Ethernet", 0},
                                               {"rxe2", "Ethernet", 0},
                                               {"rxe3", "Ethernet", 0}};
  const std::vector<RailCandidate> initiator = {{"rxe1", "Ethernet", 0},
                                                {"rxe0", "Ethernet", 0},
                                                {"rxe2", "Ethernet", 0},
                                                {"rxe3", "Ethernet", 0}};
  const std::vector<RailPair> rails = PairRails(acceptor, initiator, 4, 16);
  ASSERT_EQ(rails.size(), 4u);
  EXPECT_EQ(rails[0].initiator + ">" + rails[0].acceptor, "rxe1>rxe0");
  EXPECT_EQ(rails[1].initiator + ">" + rails[1].acceptor, "rxe2>rxe2");
  EXPECT_EQ(rails[2].initiator + ">" + rails[2].acceptor, "rxe3>rxe3");
  EXPECT_EQ(rails[3].initiator + ">" + rails[3].acceptor, "rxe0>rxe1");
  // An InfiniBand HCA is another network: it pairs with none of them.
  const std::vector<RailCandidate> ib = {{"mlx5_0", "InfiniBand", 0}};
  EXPECT_TRUE(PairRails(acceptor, ib, 2, 16).empty());
}

TEST(PairRails, MoreRailsThanPathsRepeatThePathsUpToTheMost) {
  const std::vector<RailCandidate> one = {{"127.0.0.1", "127.0.0.0/8", 0}};
  const std::vector<RailPair> four = PairRails(one, one, 4, 16);
  ASSERT_EQ(four.size(), 4u);
  for (const RailPair& pair : four) EXPECT_EQ(pair.acceptor, "127.0.0.1");
  EXPECT_EQ(PairRails(one, one, 40, 16).size(), 16u);
  EXPECT_EQ(PairRails(one, one, 4, 1).size(), 1u);
}

// Each side's configured device (its first end) makes rail 0, whatever
// their names; the others pair with their namesakes, then with any.
TEST(PairRails, TheConfiguredDevicesMakeRailZeroThenNamesakesPair) {
  const std::vector<RailCandidate> acceptor = {{"rxe0", "", 0}, {"rxe2", "", 0}, {"rxe1", "", 0}};
  const std::vector<RailCandidate> initiator = {{"rxe1", "", 0}, {"rxe2", "", 0}, {"rxe0", "", 0}};
  const std::vector<RailPair> rails = PairRails(acceptor, initiator, 4, 16);
  ASSERT_EQ(rails.size(), 4u);
  EXPECT_EQ(rails[0].initiator, "rxe1");
  EXPECT_EQ(rails[0].acceptor, "rxe0");
  EXPECT_EQ(rails[1].initiator, "rxe2");
  EXPECT_EQ(rails[1].acceptor, "rxe2");  // namesakes
  EXPECT_EQ(rails[2].initiator, "rxe0");
  EXPECT_EQ(rails[2].acceptor, "rxe1");  // the one left
  EXPECT_EQ(rails[3].acceptor, "rxe0");  // three distinct paths, repeated
}

TEST(PairRails, NoCommonNetworkOrNoEndsMeansTheTransportsOwnRail) {
  const std::vector<RailCandidate> a = {{"10.0.1.2", "10.0.1.0/24", 0}};
  const std::vector<RailCandidate> b = {{"10.9.9.1", "10.9.9.0/24", 0}};
  EXPECT_TRUE(PairRails(a, b, 2, 16).empty());
  EXPECT_TRUE(PairRails({}, b, 2, 16).empty());
}

}  // namespace
}  // namespace xfer::core
