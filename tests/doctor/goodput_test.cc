// The goodput formulas against the tables of doctor.md §2.
#include "doctor/goodput.h"

#include <gtest/gtest.h>

namespace xfer::doctor {
namespace {

TEST(GoodputPcie, TlpEfficiencyMatchesTheSpecTable) {
  EXPECT_NEAR(TlpEfficiency(1, 128), 0.8205, 5e-5);
  EXPECT_NEAR(TlpEfficiency(2, 256), 0.9014, 5e-5);
  EXPECT_NEAR(TlpEfficiency(2, 512), 0.9481, 5e-5);
  EXPECT_NEAR(TlpEfficiency(3, 128), 0.8101, 5e-5);
  EXPECT_NEAR(TlpEfficiency(4, 256), 0.8951, 5e-5);
  EXPECT_NEAR(TlpEfficiency(5, 512), 0.9446, 5e-5);
}

TEST(GoodputPcie, LinkGoodputAtMps256) {
  EXPECT_NEAR(*PcieGoodputBytesPerSec(5.0, 4, 256) / 1e9, 1.803, 5e-4);
  EXPECT_NEAR(*PcieGoodputBytesPerSec(8.0, 8, 256) / 1e9, 7.051, 5e-4);
  EXPECT_NEAR(*PcieGoodputBytesPerSec(32.0, 16, 256) / 1e9, 56.41, 5e-3);
}

TEST(GoodputPcie, UnknownSpeedOrWidthHasNoGoodput) {
  EXPECT_FALSE(PcieGoodputBytesPerSec(3.0, 4, 256).has_value());
  EXPECT_FALSE(PcieGoodputBytesPerSec(5.0, 0, 256).has_value());
  EXPECT_EQ(PcieGeneration(16.0), 4);
  EXPECT_FALSE(PcieGeneration(7.0).has_value());
}

TEST(GoodputRoce, Rocev2Ipv4EfficiencyAtEachMtu) {
  const int overhead = RocePacketOverheadBytes(topology::RoceEncapsulation::kV2Ipv4);
  EXPECT_EQ(overhead, 82);
  EXPECT_NEAR(PacketEfficiency(1024, overhead) * 100, 92.59, 5e-3);
  EXPECT_NEAR(PacketEfficiency(2048, overhead) * 100, 96.15, 5e-3);
  EXPECT_NEAR(PacketEfficiency(4096, overhead) * 100, 98.04, 5e-3);
}

TEST(GoodputRoce, OtherEncapsulationsAndVlan) {
  EXPECT_EQ(RocePacketOverheadBytes(topology::RoceEncapsulation::kV2Ipv6), 102);
  EXPECT_EQ(RocePacketOverheadBytes(topology::RoceEncapsulation::kV1), 94);
  EXPECT_EQ(RocePacketOverheadBytes(topology::RoceEncapsulation::kV2Ipv4, /*vlan=*/true), 86);
}

TEST(GoodputRoce, ActiveMtuFromNetdevMtu) {
  EXPECT_EQ(RoceActiveMtu(1500, /*soft_roce=*/true), 1024);
  EXPECT_EQ(RoceActiveMtu(4176, true), 4096);
  EXPECT_EQ(RoceActiveMtu(4175, true), 2048);
  EXPECT_EQ(RoceActiveMtu(4192, false), 4096);
  EXPECT_EQ(RoceActiveMtu(4191, false), 2048);
  EXPECT_FALSE(RoceActiveMtu(300, false).has_value());
}

TEST(GoodputIb, LaneRatesAndOverheads) {
  EXPECT_DOUBLE_EQ(*IbLaneDataGbps("QDR") * 4, 32.0);
  EXPECT_FALSE(IbLaneDataGbps("QDR2").has_value());
  EXPECT_EQ(IbPacketOverheadBytes(false), 26);
  EXPECT_EQ(IbPacketOverheadBytes(true), 34);
  EXPECT_EQ(IbPacketOverheadBytes(false, true), 66);
  // EDR 4x RC at MTU 4096: 100 Gb/s data × 4096/4122.
  EXPECT_NEAR(*IbLaneDataGbps("EDR") * 4 * PacketEfficiency(4096, IbPacketOverheadBytes(false)), 99.37, 5e-3);
}

}  // namespace
}  // namespace xfer::doctor
