// The `xfer devices` listing: text lines and the JSON document, from a
// hand-built device with an Ethernet and an InfiniBand port.
#include "report/device_report.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace xfer::report {
namespace {

using verbs::DeviceInfo;
using verbs::GidEntry;
using verbs::GidType;
using verbs::LinkLayer;
using verbs::PortInfo;

GidEntry Gid(int index, const std::string& text, GidType type,
             const std::string& netdev) {
  GidEntry gid;
  gid.index = index;
  EXPECT_EQ(::inet_pton(AF_INET6, text.c_str(), gid.raw.data()), 1) << text;
  gid.type = type;
  gid.netdev = netdev;
  return gid;
}

DeviceInfo TwoPortDevice() {
  DeviceInfo device;
  device.name = "mlx5_0";
  device.node_guid = "b0cd:01ff:fe2a:3b4c";
  device.fw_ver = "22.36.1010";
  device.transport = "InfiniBand";
  device.vendor_id = 0x02c9;
  device.vendor_part_id = 4125;
  device.hw_ver = 0;
  device.max_qp = 131072;
  device.max_qp_wr = 32768;
  device.max_sge = 30;
  device.max_cqe = 4194303;
  device.max_mr = 16777216;
  device.max_qp_rd_atom = 16;
  device.max_qp_init_rd_atom = 16;
  device.max_mr_size = 0xffffffffffffffffull;
  device.atomic_cap = IBV_ATOMIC_HCA;

  PortInfo roce;
  roce.number = 1;
  roce.state = IBV_PORT_ACTIVE;
  roce.phys_state = 5;
  roce.active_mtu = IBV_MTU_1024;
  roce.max_mtu = IBV_MTU_4096;
  roce.lane_gbps = 25.78125;  // EDR
  roce.lanes = 4;
  roce.link_layer = LinkLayer::kEthernet;
  roce.gid_table_len = 256;
  roce.gids = {Gid(0, "fe80::b0cd:1ff:fe2a:3b4c", GidType::kRoceV1, "eth2"),
               Gid(1, "fe80::b0cd:1ff:fe2a:3b4c", GidType::kRoceV2, "eth2"),
               Gid(2, "::ffff:169.254.77.1", GidType::kRoceV1, "eth2"),
               Gid(3, "::ffff:10.0.0.5", GidType::kRoceV2, "eth2")};

  PortInfo ib;
  ib.number = 2;
  ib.state = IBV_PORT_DOWN;
  ib.phys_state = 3;
  ib.active_mtu = IBV_MTU_4096;
  ib.max_mtu = IBV_MTU_4096;
  ib.lane_gbps = 53.125;  // HDR
  ib.lanes = 2;
  ib.link_layer = LinkLayer::kInfiniBand;
  ib.lid = 7;
  ib.sm_lid = 1;
  ib.gid_table_len = 128;
  ib.gids = {Gid(0, "fe80::202:c9ff:fe0a:b0c1", GidType::kIb, "")};
  device.ports = {roce, ib};
  return device;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The line whose first non-blank text starts with `label`; "" if none.
std::string LineStarting(const std::string& text, const std::string& label,
                         int occurrence = 0) {
  for (const std::string& line : Lines(text)) {
    const size_t start = line.find_first_not_of(' ');
    if (start != std::string::npos && line.compare(start, label.size(), label) == 0 &&
        occurrence-- == 0) {
      return line.substr(start);
    }
  }
  return "";
}

std::string Value(const std::string& line) {
  const size_t colon = line.find(':');
  const size_t start = line.find_first_not_of(' ', colon + 1);
  return start == std::string::npos ? "" : line.substr(start);
}

TEST(DeviceReport, DeviceLinesNameTheLimits) {
  const std::vector<DeviceInfo> devices = {TwoPortDevice()};
  const std::string text = DeviceReportText(devices);
  EXPECT_TRUE(text.starts_with("hca_id: mlx5_0\n")) << text;
  EXPECT_EQ(Value(LineStarting(text, "transport:")), "InfiniBand");
  EXPECT_EQ(Value(LineStarting(text, "node_guid:")), "b0cd:01ff:fe2a:3b4c");
  EXPECT_EQ(Value(LineStarting(text, "fw_ver:")), "22.36.1010");
  EXPECT_EQ(Value(LineStarting(text, "vendor_id:")), "0x2c9");
  EXPECT_EQ(Value(LineStarting(text, "vendor_part_id:")), "4125");
  EXPECT_EQ(Value(LineStarting(text, "max_qp_rd_atom:")), "16");
  EXPECT_EQ(Value(LineStarting(text, "max_qp_init_rd_atom:")), "16");
  EXPECT_EQ(Value(LineStarting(text, "max_mr_size:")), "0xffffffffffffffff bytes");
  EXPECT_EQ(Value(LineStarting(text, "atomic_cap:")), "ATOMIC_HCA (1)");
  EXPECT_EQ(Value(LineStarting(text, "phys_port_cnt:")), "2");
}

TEST(DeviceReport, PortLinesShowStateMtuAndLinkRateArithmetic) {
  const std::vector<DeviceInfo> devices = {TwoPortDevice()};
  const std::string text = DeviceReportText(devices);
  EXPECT_EQ(LineStarting(text, "port 1:"), "port 1:");
  EXPECT_EQ(Value(LineStarting(text, "state:")), "PORT_ACTIVE (4)");
  EXPECT_EQ(Value(LineStarting(text, "phys_state:")), "LINK_UP (5)");
  EXPECT_EQ(Value(LineStarting(text, "active_mtu:")), "1024 bytes");
  EXPECT_EQ(Value(LineStarting(text, "max_mtu:")), "4096 bytes");
  EXPECT_EQ(Value(LineStarting(text, "rate:")),
            "25.78125 Gb/s × 4 = 103.125 Gb/s (10^9 bit/s)");
  EXPECT_EQ(Value(LineStarting(text, "link_layer:")), "Ethernet");
  EXPECT_EQ(Value(LineStarting(text, "gid_tbl_len:")), "256");
  // Port 2 (IB): the second occurrence of each label.
  EXPECT_EQ(Value(LineStarting(text, "state:", 1)), "PORT_DOWN (1)");
  EXPECT_EQ(Value(LineStarting(text, "phys_state:", 1)), "DISABLED (3)");
  EXPECT_EQ(Value(LineStarting(text, "rate:", 1)),
            "53.125 Gb/s × 2 = 106.25 Gb/s (10^9 bit/s)");
  EXPECT_EQ(Value(LineStarting(text, "link_layer:", 1)), "InfiniBand");
  // LIDs mean something on IB only.
  EXPECT_EQ(Value(LineStarting(text, "port_lid:")), "7");
  EXPECT_EQ(Value(LineStarting(text, "sm_lid:")), "1");
  EXPECT_EQ(LineStarting(text, "port_lid:", 1), "");
}

TEST(DeviceReport, GidLinesCarryTypeTagsAndNetdev) {
  const std::vector<DeviceInfo> devices = {TwoPortDevice()};
  const std::string text = DeviceReportText(devices);
  EXPECT_EQ(Value(LineStarting(text, "GID[  0]:", 0)),
            "fe80::b0cd:1ff:fe2a:3b4c, RoCE v1, link-local, netdev eth2");
  EXPECT_EQ(Value(LineStarting(text, "GID[  1]:")),
            "fe80::b0cd:1ff:fe2a:3b4c, RoCE v2, link-local, netdev eth2");
  EXPECT_EQ(Value(LineStarting(text, "GID[  2]:")),
            "::ffff:169.254.77.1, RoCE v1, IPv4-mapped, link-local, netdev eth2");
  EXPECT_EQ(Value(LineStarting(text, "GID[  3]:")),
            "::ffff:10.0.0.5, RoCE v2, IPv4-mapped, netdev eth2");
  EXPECT_EQ(Value(LineStarting(text, "GID[  0]:", 1)),
            "fe80::202:c9ff:fe0a:b0c1, IB, link-local");
}

TEST(DeviceReport, UnknownRateAndEmptyGidTable) {
  PortInfo port;
  EXPECT_EQ(LinkRateText(port), "unknown");
  DeviceInfo device;
  device.name = "rxe9";
  device.ports = {port};
  const std::vector<DeviceInfo> devices = {device};
  const std::string text = DeviceReportText(devices);
  EXPECT_EQ(Value(LineStarting(text, "GIDs:")), "none valid");
  EXPECT_EQ(LineStarting(text, "fw_ver:"), "");  // omitted when empty
}

TEST(DeviceReport, DevicesAreSeparatedByOneBlankLine) {
  DeviceInfo second = TwoPortDevice();
  second.name = "mlx5_1";
  const std::vector<DeviceInfo> devices = {TwoPortDevice(), second};
  const std::string text = DeviceReportText(devices);
  EXPECT_NE(text.find("\n\nhca_id: mlx5_1\n"), std::string::npos) << text;
  EXPECT_EQ(DeviceReportText({}), "");
}

TEST(DeviceReport, JsonNamesUnitsInKeys) {
  const std::vector<DeviceInfo> devices = {TwoPortDevice()};
  const nlohmann::json doc = DeviceReportJson(devices);
  EXPECT_EQ(doc.at("units").at("link_gbps"), "Gb/s (10^9 bit/s), lane_gbps * lanes");
  ASSERT_EQ(doc.at("devices").size(), 1u);
  const nlohmann::json& device = doc.at("devices").at(0);
  EXPECT_EQ(device.at("name"), "mlx5_0");
  EXPECT_EQ(device.at("node_guid"), "b0cd:01ff:fe2a:3b4c");
  EXPECT_EQ(device.at("max_qp_rd_atom"), 16);
  EXPECT_EQ(device.at("max_mr_size_bytes"), 0xffffffffffffffffull);
  EXPECT_EQ(device.at("atomic_cap"), "ATOMIC_HCA");
  ASSERT_EQ(device.at("ports").size(), 2u);
  const nlohmann::json& port = device.at("ports").at(0);
  EXPECT_EQ(port.at("port"), 1);
  EXPECT_EQ(port.at("state"), "PORT_ACTIVE");
  EXPECT_EQ(port.at("phys_state"), "LINK_UP");
  EXPECT_EQ(port.at("active_mtu_bytes"), 1024);
  EXPECT_EQ(port.at("max_mtu_bytes"), 4096);
  EXPECT_DOUBLE_EQ(port.at("lane_gbps").get<double>(), 25.78125);
  EXPECT_EQ(port.at("lanes"), 4);
  EXPECT_DOUBLE_EQ(port.at("link_gbps").get<double>(), 103.125);
  EXPECT_EQ(port.at("link_layer"), "Ethernet");
  EXPECT_EQ(port.at("gid_table_len"), 256);
  ASSERT_EQ(port.at("gids").size(), 4u);
  const nlohmann::json& gid = port.at("gids").at(2);
  EXPECT_EQ(gid.at("index"), 2);
  EXPECT_EQ(gid.at("gid"), "::ffff:169.254.77.1");
  EXPECT_EQ(gid.at("type"), "RoCE v1");
  EXPECT_EQ(gid.at("ipv4_mapped"), true);
  EXPECT_EQ(gid.at("link_local"), true);
  EXPECT_EQ(gid.at("netdev"), "eth2");
  const nlohmann::json& ib = device.at("ports").at(1);
  EXPECT_EQ(ib.at("lid"), 7);
  EXPECT_EQ(ib.at("link_layer"), "InfiniBand");
  EXPECT_EQ(ib.at("gids").at(0).at("type"), "IB");
}

}  // namespace
}  // namespace xfer::report
