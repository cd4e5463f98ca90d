#include "bench/matrix/direction.h"

#include <gtest/gtest.h>

#include "bench/matrix/block_size.h"
#include "bench/matrix/memory_placement.h"
#include "bench/matrix/side_buffers.h"

namespace xfer::matrix {
namespace {

std::vector<std::string> Names(const std::vector<Direction>& directions) {
  std::vector<std::string> names;
  for (const Direction& d : directions) names.push_back(d.Name());
  return names;
}

TEST(DirectionTest, AllDirectionsFollowTheSeedTablesColumnOrder) {
  EXPECT_EQ(Names(AllDirections()),
            (std::vector<std::string>{"D2rD", "D2rH", "H2rH", "H2rD", "rD2D", "rH2D", "rH2H",
                                      "rD2H"}));
}

TEST(DirectionTest, NamesReadTheWayTheDataMoves) {
  EXPECT_EQ((Direction{OpCode::kWrite, 'H', 'D'}).Name(), "H2rD");  // local host -> remote device
  EXPECT_EQ((Direction{OpCode::kRead, 'H', 'D'}).Name(), "rD2H");   // remote device -> local host
  EXPECT_EQ((Direction{OpCode::kRead, 'D', 'H'}).Name(), "rH2D");
}

TEST(DirectionTest, ParseFindsEveryNameAndRefusesOthers) {
  for (const Direction& d : AllDirections()) {
    auto parsed = ParseDirection(d.Name());
    ASSERT_TRUE(parsed.ok()) << d.Name();
    EXPECT_EQ(*parsed, d);
  }
  auto bad = ParseDirection("h2rh");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("'h2rh'"), std::string::npos);
  EXPECT_NE(bad.status().message().find("rH2H"), std::string::npos);
}

TEST(BlockLabelTest, BinaryUnitsAsHixlPrintsThem) {
  EXPECT_EQ(BlockLabel(16384), "16K");
  EXPECT_EQ(BlockLabel(2u << 20), "2M");
  EXPECT_EQ(BlockLabel(1u << 30), "1G");
  EXPECT_EQ(BlockLabel(1536), "1536");  // 1.5 KiB: no whole unit
  EXPECT_EQ(BlockLabel(1000), "1000");
  EXPECT_EQ(BlockLabel(3072), "3K");
}

TEST(MemoryPlacementTest, HostClassHasTwoKindsAndDeviceIsCudaMemory) {
  EXPECT_EQ(PlacementLetters(), "DH");
  EXPECT_EQ(DefaultPlacement('H')->name, "host");
  const MemoryPlacement* device = FindPlacement("device");
  ASSERT_NE(device, nullptr);
  EXPECT_EQ(device->engine_kind, MemoryKind::kCuda);
  EXPECT_EQ(DefaultPlacement('D'), device);
  EXPECT_EQ(FindPlacement("hugepage")->engine_kind, MemoryKind::kHugepage);
  EXPECT_EQ(FindPlacement("gpu"), nullptr);
}

TEST(MemoryPlacementTest, ChosenKindAppliesOnlyToItsOwnClass) {
  EXPECT_EQ(PlacementFor('H', "hugepage")->name, "hugepage");
  EXPECT_EQ(PlacementFor('D', "hugepage")->name, "device");
  EXPECT_EQ(PlacementFor('H', "device")->name, "host");
}

TEST(MemoryPlacementTest, PlacementsNeededIsPerSideAndDistinct) {
  const std::vector<Direction> directions = {
      {OpCode::kWrite, 'H', 'D'}, {OpCode::kRead, 'H', 'H'}, {OpCode::kWrite, 'H', 'H'}};
  auto initiator = PlacementsNeeded(directions, true, "hugepage");
  ASSERT_EQ(initiator.size(), 1u);
  EXPECT_EQ(initiator[0]->name, "hugepage");
  auto target = PlacementsNeeded(directions, false, "host");
  ASSERT_EQ(target.size(), 2u);
  EXPECT_EQ(target[0]->name, "device");
  EXPECT_EQ(target[1]->name, "host");
}

}  // namespace
}  // namespace xfer::matrix
