// The catalog's pure parts (GID predicates, decoders, ExplainNoDevices over
// fake filesystem roots) and ListDevices on this host.
#include "verbs/device_catalog.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/utsname.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace xfer::verbs {
namespace {

namespace fs = std::filesystem;

GidEntry Gid(const std::string& text) {
  GidEntry gid;
  EXPECT_EQ(::inet_pton(AF_INET6, text.c_str(), gid.raw.data()), 1) << text;
  return gid;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(GidEntry, Ipv4MappedIsExactlyFfffPrefix) {
  EXPECT_TRUE(Gid("::ffff:169.254.77.1").IsIpv4Mapped());
  EXPECT_TRUE(Gid("::ffff:10.0.0.5").IsIpv4Mapped());
  EXPECT_FALSE(Gid("fe80::ffff:a00:5").IsIpv4Mapped());
  EXPECT_FALSE(Gid("::fffe:10.0.0.5").IsIpv4Mapped());
  EXPECT_FALSE(Gid("1::ffff:10.0.0.5").IsIpv4Mapped());
  EXPECT_FALSE(Gid("2001:db8::1").IsIpv4Mapped());
}

TEST(GidEntry, LinkLocalIsFe80Slash10Or169254) {
  EXPECT_TRUE(Gid("fe80::b0cd:1ff:fe2a:3b4c").IsLinkLocal());
  EXPECT_TRUE(Gid("febf::1").IsLinkLocal());   // still inside fe80::/10
  EXPECT_FALSE(Gid("fec0::1").IsLinkLocal());  // site-local, outside /10
  EXPECT_TRUE(Gid("::ffff:169.254.77.1").IsLinkLocal());
  EXPECT_FALSE(Gid("::ffff:169.253.77.1").IsLinkLocal());
  EXPECT_FALSE(Gid("::ffff:10.0.0.5").IsLinkLocal());
  // 169.254 in the low bytes of a non-mapped address is not IPv4.
  EXPECT_FALSE(Gid("2001:db8::a9fe:4d01").IsLinkLocal());
}

TEST(GidEntry, ZeroAndToString) {
  EXPECT_TRUE(Gid("::").IsZero());
  EXPECT_FALSE(Gid("::1").IsZero());
  EXPECT_EQ(Gid("::ffff:169.254.77.1").ToString(), "::ffff:169.254.77.1");
  EXPECT_EQ(Gid("fe80:0:0:0:b0cd:1ff:fe2a:3b4c").ToString(),
            "fe80::b0cd:1ff:fe2a:3b4c");
  GidEntry raw;
  raw.raw = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x02, 0xc9, 0xff, 0xfe, 0x0a, 0xb0, 0xc1};
  EXPECT_EQ(raw.ToString(), "fe80::202:c9ff:fe0a:b0c1");
}

TEST(PortDecoders, LaneSpeedsWidthsAndLinkRate) {
  EXPECT_DOUBLE_EQ(LaneGbps(1), 2.5);
  EXPECT_DOUBLE_EQ(LaneGbps(2), 5.0);
  EXPECT_DOUBLE_EQ(LaneGbps(4), 10.0);
  EXPECT_DOUBLE_EQ(LaneGbps(8), 10.3125);
  EXPECT_DOUBLE_EQ(LaneGbps(16), 14.0625);
  EXPECT_DOUBLE_EQ(LaneGbps(32), 25.78125);
  EXPECT_DOUBLE_EQ(LaneGbps(64), 53.125);
  EXPECT_DOUBLE_EQ(LaneGbps(128), 106.25);
  EXPECT_DOUBLE_EQ(LaneGbps(256), 212.5);
  EXPECT_DOUBLE_EQ(LaneGbps(3), 0.0);
  EXPECT_EQ(LaneCount(1), 1);
  EXPECT_EQ(LaneCount(2), 4);
  EXPECT_EQ(LaneCount(4), 8);
  EXPECT_EQ(LaneCount(8), 12);
  EXPECT_EQ(LaneCount(16), 2);
  EXPECT_EQ(LaneCount(3), 0);

  PortInfo port;
  port.lane_gbps = LaneGbps(32);
  port.lanes = LaneCount(2);
  EXPECT_DOUBLE_EQ(port.LinkGbps(), 103.125);
  port.active_mtu = IBV_MTU_1024;
  port.max_mtu = IBV_MTU_4096;
  EXPECT_EQ(port.ActiveMtuBytes(), 1024u);
  EXPECT_EQ(port.MaxMtuBytes(), 4096u);
}

TEST(PortDecoders, StateNamesAsIbvDevinfoPrintsThem) {
  PortInfo port;
  port.state = IBV_PORT_ACTIVE;
  port.phys_state = 5;
  EXPECT_EQ(port.StateName(), "PORT_ACTIVE");
  EXPECT_EQ(port.PhysStateName(), "LINK_UP");
  port.state = IBV_PORT_DOWN;
  port.phys_state = 3;
  EXPECT_EQ(port.StateName(), "PORT_DOWN");
  EXPECT_EQ(port.PhysStateName(), "DISABLED");
  port.phys_state = 2;
  EXPECT_EQ(port.PhysStateName(), "POLLING");
  EXPECT_EQ(TransportName(IBV_TRANSPORT_IB), "InfiniBand");
  EXPECT_EQ(TransportName(IBV_TRANSPORT_IWARP), "iWARP");
  EXPECT_EQ(GidTypeName(GidType::kRoceV2), "RoCE v2");
  EXPECT_EQ(GidTypeName(GidType::kRoceV1), "RoCE v1");
  EXPECT_EQ(GidTypeName(GidType::kIb), "IB");
  EXPECT_EQ(AtomicCapName(IBV_ATOMIC_HCA), "ATOMIC_HCA");
}

TEST(DeviceInfo, FindPortByNumber) {
  DeviceInfo device;
  device.ports.resize(2);
  device.ports[0].number = 1;
  device.ports[1].number = 2;
  ASSERT_NE(device.FindPort(2), nullptr);
  EXPECT_EQ(device.FindPort(2), &device.ports[1]);
  EXPECT_EQ(device.FindPort(3), nullptr);
}

// A fake filesystem root under the temp dir, removed at scope exit.
class FakeRoot {
 public:
  FakeRoot() {
    std::string pattern = (fs::temp_directory_path() / "xfer_root_XXXXXX");
    root_ = ::mkdtemp(pattern.data());
    Write("proc/sys/kernel/osrelease", "9.9.9-test\n");
  }
  ~FakeRoot() { fs::remove_all(root_); }
  const fs::path& path() const { return root_; }
  void Dir(const std::string& relative) { fs::create_directories(root_ / relative); }
  void Write(const std::string& relative, const std::string& text) {
    fs::create_directories((root_ / relative).parent_path());
    std::ofstream(root_ / relative) << text;
  }

 private:
  fs::path root_;
};

TEST(ExplainNoDevices, EmptyRootMeansNoRdmaSupport) {
  FakeRoot root;
  const std::string text = ExplainNoDevices(root.path());
  EXPECT_TRUE(Contains(text, "no RDMA support")) << text;
  EXPECT_TRUE(Contains(text, "9.9.9-test")) << text;
  EXPECT_TRUE(Contains(text, "/sys/class/infiniband")) << text;
  EXPECT_TRUE(Contains(text, "/boot/config-9.9.9-test not readable")) << text;
  EXPECT_TRUE(text.ends_with("scripts/softroce-vm -- xfer devices")) << text;
}

TEST(ExplainNoDevices, KernelConfigWithoutInfiniband) {
  FakeRoot root;
  root.Write("boot/config-9.9.9-test",
             "CONFIG_NET=y\n# CONFIG_INFINIBAND is not set\n");
  const std::string text = ExplainNoDevices(root.path());
  EXPECT_TRUE(Contains(text, "CONFIG_INFINIBAND is not set in /boot/config-9.9.9-test"))
      << text;
  EXPECT_TRUE(Contains(text, "softroce-vm")) << text;
}

TEST(ExplainNoDevices, ModularKernelWithoutIbCoreLoaded) {
  FakeRoot root;
  root.Write("boot/config-9.9.9-test", "CONFIG_INFINIBAND=m\n");
  const std::string text = ExplainNoDevices(root.path());
  EXPECT_TRUE(Contains(text, "CONFIG_INFINIBAND=m")) << text;
  EXPECT_TRUE(Contains(text, "ib_core is not loaded")) << text;
  EXPECT_TRUE(Contains(text, "softroce-vm")) << text;
}

TEST(ExplainNoDevices, CoreLoadedButNoDeviceRegistered) {
  FakeRoot root;
  root.Dir("sys/module/ib_core");
  root.Dir("sys/module/ib_uverbs");
  const std::string text = ExplainNoDevices(root.path());
  EXPECT_TRUE(Contains(text, "RDMA core is loaded (ib_core, ib_uverbs)")) << text;
  EXPECT_TRUE(Contains(text, "rdma link add")) << text;
  EXPECT_TRUE(Contains(text, "softroce-vm")) << text;
}

TEST(ExplainNoDevices, DevicesWithoutUverbsFiles) {
  FakeRoot root;
  root.Dir("sys/class/infiniband/rxe0");
  root.Dir("sys/module/ib_core");
  const std::string text = ExplainNoDevices(root.path());
  EXPECT_TRUE(Contains(text, "the kernel has rxe0")) << text;
  EXPECT_TRUE(Contains(text, "modprobe ib_uverbs")) << text;
  EXPECT_TRUE(Contains(text, "softroce-vm")) << text;
}

TEST(ExplainNoDevices, DevicesAndUverbsButNoProvider) {
  FakeRoot root;
  root.Dir("sys/class/infiniband/rxe0");
  root.Dir("sys/class/infiniband/rxe1");
  root.Write("dev/infiniband/uverbs0", "");
  const std::string text = ExplainNoDevices(root.path());
  EXPECT_TRUE(Contains(text, "rxe0, rxe1")) << text;
  EXPECT_TRUE(Contains(text, "ibverbs-providers")) << text;
  EXPECT_FALSE(Contains(text, "modprobe ib_uverbs")) << text;
}

TEST(ExplainNoDevices, FallsBackToUnameWithoutProc) {
  FakeRoot root;
  fs::remove_all(root.path() / "proc");
  utsname names{};
  ASSERT_EQ(::uname(&names), 0);
  const std::string text = ExplainNoDevices(root.path());
  EXPECT_TRUE(Contains(text, names.release)) << text;
}

// This host has libibverbs but no RDMA device (nor kernel support): the
// catalog must report "none", not fail. Skipped where devices exist (the
// Soft-RoCE VM), where the listing itself is checked instead.
TEST(ListDevices, ReturnsEveryDeviceOrAnEmptyListWithoutError) {
  Result<std::vector<DeviceInfo>> devices = ListDevices();
  ASSERT_TRUE(devices.ok()) << devices.status().ToString();
  if (devices->empty()) {
    EXPECT_FALSE(fs::exists("/dev/infiniband/uverbs0"));
    return;
  }
  for (const DeviceInfo& device : *devices) {
    EXPECT_FALSE(device.name.empty());
    EXPECT_FALSE(device.ports.empty()) << device.name;
    for (const PortInfo& port : device.ports) {
      EXPECT_NE(port.ActiveMtuBytes(), 0u) << device.name;
      for (size_t i = 1; i < port.gids.size(); ++i) {
        EXPECT_LT(port.gids[i - 1].index, port.gids[i].index) << device.name;
      }
      for (const GidEntry& gid : port.gids) EXPECT_FALSE(gid.IsZero());
    }
  }
}

}  // namespace
}  // namespace xfer::verbs
