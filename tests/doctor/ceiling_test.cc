// Ceilings and binding factors of the recorded trees (doctor.md §3).
#include "doctor/ceiling.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "doctor/path_reading.h"
#include "tree_util.h"

namespace xfer::doctor {
namespace {

using testing::Tree;

constexpr double kMiB = 1048576.0;

Ceiling CeilingOf(const std::string& tree, const std::string& device, int port, const CeilingOptions& options = {}) {
  return ComputeCeiling(ReadPath(topology::SysfsReader(Tree(tree)), device, port), options);
}

// The binding factor's name; "" when nothing binds (so a find fails).
std::string BindingName(const Ceiling& ceiling) {
  return ceiling.binding ? ceiling.factors.at(*ceiling.binding).name : "";
}

bool AnyWarningHas(const Ceiling& ceiling, const std::string& text) {
  return std::any_of(ceiling.warnings.begin(), ceiling.warnings.end(),
                     [&](const std::string& w) { return w.find(text) != std::string::npos; });
}

TEST(Ceiling, Seed001BoundBy10GPort) {
  const Ceiling ceiling = CeilingOf("seed001_hns_25g_at_10g", "hns_2", 1);
  ASSERT_TRUE(ceiling.bytes_per_s.known());
  EXPECT_NEAR(*ceiling.bytes_per_s.value * 8 / 1e9, 9.804, 5e-4);
  EXPECT_NEAR(*ceiling.bytes_per_s.value / kMiB, 1168.7, 0.05);
  EXPECT_NE(BindingName(ceiling).find("port rate 10 Gb/s"), std::string::npos);
  EXPECT_TRUE(AnyWarningHas(ceiling, "capability not in sysfs")) << ceiling.warnings.size();
}

TEST(Ceiling, Seed002Port2BoundByPcieGen2x4) {
  const Ceiling ceiling = CeilingOf("seed002_cx2_qdr_gen2_x4", "mlx4_0", 2);
  ASSERT_TRUE(ceiling.bytes_per_s.known());
  EXPECT_NEAR(*ceiling.bytes_per_s.value / 1e9, 1.803, 5e-4);
  EXPECT_NEAR(*ceiling.bytes_per_s.value / kMiB, 1719.3, 0.05);
  EXPECT_NE(BindingName(ceiling).find("PCIe 2.0 x4"), std::string::npos) << BindingName(ceiling);
  EXPECT_TRUE(AnyWarningHas(ceiling, "runs at 5 GT/s x4, below its capability 5 GT/s x8"));
  EXPECT_TRUE(AnyWarningHas(ceiling, "PCIe 2.0 x4 limits this port to 1.803 GB/s, below the 40 Gb/s QDR link"));
}

TEST(Ceiling, Seed002Port1IsDown) {
  const Ceiling ceiling = CeilingOf("seed002_cx2_qdr_gen2_x4", "mlx4_0", 1);
  EXPECT_TRUE(AnyWarningHas(ceiling, "DOWN"));
}

TEST(Ceiling, Seed002UdUses34ByteOverhead) {
  CeilingOptions rc;
  rc.run_mtu_bytes = 4096;
  CeilingOptions ud = rc;
  ud.unreliable_datagram = true;
  const Ceiling rc_ceiling = CeilingOf("seed002_cx2_qdr_gen2_x4", "mlx4_0", 2, rc);
  const Ceiling ud_ceiling = CeilingOf("seed002_cx2_qdr_gen2_x4", "mlx4_0", 2, ud);
  // The IB port factor is first: QDR 4x, 32 Gb/s data; UD 3.967 GB/s (§3b).
  ASSERT_TRUE(ud_ceiling.factors.at(0).bytes_per_s.known());
  EXPECT_NEAR(*ud_ceiling.factors[0].bytes_per_s.value / 1e9, 3.967, 5e-4);
  EXPECT_NEAR(*rc_ceiling.factors[0].bytes_per_s.value / 1e9, 4.0 * 4096 / 4122, 5e-4);
}

TEST(Ceiling, Seed000BoundByThePort) {
  const Ceiling ceiling = CeilingOf("seed000_100g_roce", "yusur_0", 1);
  ASSERT_TRUE(ceiling.bytes_per_s.known());
  EXPECT_NEAR(*ceiling.bytes_per_s.value * 8 / 1e9, 98.04, 5e-3);
  EXPECT_NE(BindingName(ceiling).find("port rate 100 Gb/s"), std::string::npos);
}

TEST(Ceiling, VethRxeActiveMtu1024) {
  const Ceiling ceiling = CeilingOf("veth_rxe", "rxe0", 1);
  EXPECT_EQ(ceiling.active_mtu.bytes.value, 1024);
  EXPECT_NE(ceiling.active_mtu.how.find("1500 − 80"), std::string::npos) << ceiling.active_mtu.how;
  EXPECT_NE(ceiling.source.find("no PCIe link on this path"), std::string::npos);
  EXPECT_NEAR(*ceiling.bytes_per_s.value * 8 / 1e9, 10 * 1024.0 / 1106, 5e-4);
}

TEST(Ceiling, QemuPcieIsVirtual) {
  const Ceiling ceiling = CeilingOf("qemu_virtio_rxe", "rxe0", 1);
  const bool any_virtual = std::any_of(ceiling.factors.begin(), ceiling.factors.end(),
                                       [](const CeilingFactor& f) { return f.is_virtual; });
  EXPECT_TRUE(any_virtual);
  EXPECT_TRUE(AnyWarningHas(ceiling, "virtio-net reports no supported link modes"));
}

TEST(Ceiling, GenerationName) {
  EXPECT_EQ(PcieGenerationName(5.0), "PCIe 2.0");
  EXPECT_EQ(PcieGenerationName(7.0), "PCIe 7 GT/s");
}

}  // namespace
}  // namespace xfer::doctor
