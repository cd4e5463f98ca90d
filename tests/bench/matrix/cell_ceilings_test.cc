// The ceiling each matrix cell records (bench/matrix/cell_ceilings.h), by
// the connection's data mover; the NIC cases on the doctor's recorded
// sysfs trees of the seed hosts (tests/doctor/testdata/sysfs).
#include "bench/matrix/cell_ceilings.h"

#include <gtest/gtest.h>

#include <string>

namespace xfer::matrix {
namespace {

std::string Tree(const std::string& name) {
  return std::string(XFER_SOURCE_DIR) + "/tests/doctor/testdata/sysfs/" + name;
}

PeerInfo Nic(const std::string& device, uint32_t port, uint32_t mtu) {
  PeerInfo path;
  path.transport = "verbs";
  path.data_mover = DataMover::kNic;
  path.nic = {device, port, mtu};
  return path;
}

TEST(CellCeilings, ANicCellIsBoundByItsPcieLink) {
  // Seed 002: a QDR port behind PCIe 2.0 x4 (doctor.md's worked example).
  CellCeilings ceilings(64 << 20, Tree("seed002_cx2_qdr_gen2_x4"));
  const bench::Ceiling ceiling = ceilings.For(Nic("mlx4_0", 2, 4096), false, 65536);
  ASSERT_TRUE(ceiling.bytes_per_s.has_value()) << ceiling.source;
  EXPECT_NEAR(*ceiling.bytes_per_s / 1e9, 1.803, 5e-4);
  EXPECT_EQ(ceiling.source.rfind("verbs: mlx4_0 port 2: ", 0), 0u) << ceiling.source;
  EXPECT_NE(ceiling.source.find("PCIe"), std::string::npos) << ceiling.source;
  // Every block size of the cell's path shares the link's one figure.
  EXPECT_EQ(ceilings.For(Nic("mlx4_0", 2, 4096), false, 16384).bytes_per_s, ceiling.bytes_per_s);
}

TEST(CellCeilings, ANicCellIsBoundByItsPortRate) {
  // Seed 001: a 25G NIC whose link runs at 10 Gb/s: 9.804 Gb/s at MTU 4096.
  CellCeilings ceilings(64 << 20, Tree("seed001_hns_25g_at_10g"));
  const bench::Ceiling ceiling = ceilings.For(Nic("hns_2", 1, 4096), false, 1 << 20);
  ASSERT_TRUE(ceiling.bytes_per_s.has_value()) << ceiling.source;
  EXPECT_NEAR(*ceiling.bytes_per_s * 8 / 1e9, 9.804, 5e-4);
}

TEST(CellCeilings, ANicCellWithoutAReadablePortIsUnknownWithTheReason) {
  CellCeilings ceilings(64 << 20, Tree("seed002_cx2_qdr_gen2_x4"));
  const bench::Ceiling missing = ceilings.For(Nic("mlx5_9", 1, 4096), false, 65536);
  EXPECT_FALSE(missing.bytes_per_s.has_value());
  EXPECT_EQ(missing.source.rfind("verbs: mlx5_9 port 1: ", 0), 0u) << missing.source;
  EXPECT_GT(missing.source.size(), std::string("verbs: mlx5_9 port 1: ").size());

  const bench::Ceiling unnamed = ceilings.For(Nic("", 0, 0), false, 65536);
  EXPECT_FALSE(unnamed.bytes_per_s.has_value());
  EXPECT_NE(unnamed.source.find("names no port"), std::string::npos) << unnamed.source;
}

TEST(CellCeilings, SocketsAndDeviceMemoryHaveNoHostCeiling) {
  CellCeilings ceilings(1 << 20, Tree("seed002_cx2_qdr_gen2_x4"));
  PeerInfo tcp;
  tcp.transport = "tcp";
  tcp.data_mover = DataMover::kKernel;
  EXPECT_FALSE(ceilings.For(tcp, false, 65536).bytes_per_s.has_value());
  const bench::Ceiling device = ceilings.For(Nic("mlx4_0", 2, 4096), true, 65536);
  EXPECT_FALSE(device.bytes_per_s.has_value());
  EXPECT_NE(device.source.find("CUDA device memory"), std::string::npos) << device.source;
}

TEST(CellCeilings, ACopyCellIsMeasuredOncePerBlock) {
  CellCeilings ceilings(1 << 20);
  PeerInfo shm;
  shm.transport = "shm";
  shm.data_mover = DataMover::kCpuCopy;
  const bench::Ceiling first = ceilings.For(shm, false, 65536);
  ASSERT_TRUE(first.bytes_per_s.has_value()) << first.source;
  EXPECT_GT(*first.bytes_per_s, 0);
  EXPECT_NE(first.source.find("single-core memcpy"), std::string::npos);
  EXPECT_EQ(ceilings.For(shm, false, 65536).bytes_per_s, first.bytes_per_s);
}

}  // namespace
}  // namespace xfer::matrix
