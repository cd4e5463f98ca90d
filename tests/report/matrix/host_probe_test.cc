// The host fingerprint: /proc/cpuinfo layouts of several architectures,
// ports from a hand-built device catalog, and ProbeHost against the
// system calls it wraps.
#include "report/matrix/host_probe.h"

#include <gtest/gtest.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

namespace xfer::report {
namespace {

constexpr const char* kX86 =
    "processor\t: 0\n"
    "vendor_id\t: AuthenticAMD\n"
    "cpu family\t: 25\n"
    "model\t\t: 1\n"
    "model name\t: AMD EPYC 7763 64-Core Processor\n"
    "cpu MHz\t\t: 2445.404\n"
    "\n"
    "processor\t: 1\n"
    "model name\t: Some Other CPU\n";

// arm64 kernels print no model name, only the MIDR fields.
constexpr const char* kArm64 =
    "processor\t: 0\n"
    "BogoMIPS\t: 50.00\n"
    "Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics\n"
    "CPU implementer\t: 0x41\n"
    "CPU architecture: 8\n"
    "CPU variant\t: 0x3\n"
    "CPU part\t: 0xd0c\n"
    "CPU revision\t: 1\n";

constexpr const char* kPower =
    "processor\t: 0\n"
    "cpu\t\t: POWER9 (architected), altivec supported\n"
    "clock\t\t: 2200.000000MHz\n";

TEST(HostProbeTest, CpuModelFromModelName) {
  EXPECT_EQ(CpuModelFromCpuinfo(kX86), "AMD EPYC 7763 64-Core Processor");
}

TEST(HostProbeTest, CpuModelOnArm64FromMidrFields) {
  EXPECT_EQ(CpuModelFromCpuinfo(kArm64), "CPU implementer 0x41 part 0xd0c");
  EXPECT_EQ(CpuModelFromCpuinfo("CPU implementer\t: 0x48\n"), "CPU implementer 0x48");
}

TEST(HostProbeTest, CpuModelFromOtherArchitecturesKeys) {
  EXPECT_EQ(CpuModelFromCpuinfo(kPower), "POWER9 (architected), altivec supported");
  EXPECT_EQ(CpuModelFromCpuinfo("Hardware\t: BCM2835\n"), "BCM2835");
  EXPECT_EQ(CpuModelFromCpuinfo("uarch\t\t: sifive,u74-mc\n"), "sifive,u74-mc");
}

TEST(HostProbeTest, CpuModelUnknownRatherThanGuessed) {
  EXPECT_EQ(CpuModelFromCpuinfo(""), "unknown");
  EXPECT_EQ(CpuModelFromCpuinfo("model name\t:   \n"), "unknown");
  // Keys that only start like a known one do not count.
  EXPECT_EQ(CpuModelFromCpuinfo("cpu family\t: 6\ncpu MHz\t\t: 3000\nvendor_id\t: GenuineIntel\n"),
            "unknown");
}

#if XFER_WITH_VERBS
TEST(HostProbeTest, RdmaPortsFromDevices) {
  verbs::DeviceInfo device;
  device.name = "mlx5_0";
  verbs::PortInfo up;
  up.number = 1;
  up.state = IBV_PORT_ACTIVE;
  up.link_layer = verbs::LinkLayer::kEthernet;
  up.lane_gbps = 53.125;
  up.lanes = 4;
  verbs::PortInfo down;
  down.number = 2;
  down.state = IBV_PORT_DOWN;
  down.link_layer = verbs::LinkLayer::kInfiniBand;
  device.ports = {up, down};
  verbs::DeviceInfo rxe;
  rxe.name = "rxe0";
  rxe.ports = {up};

  const verbs::DeviceInfo devices[] = {device, rxe};
  const std::vector<matrix::RdmaPortFingerprint> ports = RdmaPortsFromDevices(devices);
  ASSERT_EQ(ports.size(), 3u);
  EXPECT_EQ(ports[0].device, "mlx5_0");
  EXPECT_EQ(ports[0].port, 1u);
  EXPECT_EQ(ports[0].state, "ACTIVE");
  EXPECT_EQ(ports[0].link_layer, "Ethernet");
  EXPECT_DOUBLE_EQ(ports[0].rate_gbps, 212.5);
  EXPECT_EQ(ports[1].port, 2u);
  EXPECT_EQ(ports[1].state, "DOWN");
  EXPECT_EQ(ports[1].link_layer, "InfiniBand");
  EXPECT_DOUBLE_EQ(ports[1].rate_gbps, 0);  // no speed reported: unknown
  EXPECT_EQ(ports[2].device, "rxe0");
  EXPECT_TRUE(RdmaPortsFromDevices({}).empty());
}
#endif

TEST(HostProbeTest, ProbeHostReadsThisMachine) {
  const matrix::HostFingerprint host = ProbeHost("0.1.0");
  char name[256] = {};
  ASSERT_EQ(::gethostname(name, sizeof name - 1), 0);
  EXPECT_EQ(host.hostname, name);
  utsname uts{};
  ASSERT_EQ(::uname(&uts), 0);
  EXPECT_EQ(host.kernel, uts.release);
  EXPECT_EQ(host.cpu_count, static_cast<uint32_t>(::sysconf(_SC_NPROCESSORS_ONLN)));
  std::ifstream in("/proc/cpuinfo");
  std::ostringstream cpuinfo;
  cpuinfo << in.rdbuf();
  EXPECT_EQ(host.cpu_model, CpuModelFromCpuinfo(cpuinfo.str()));
  EXPECT_FALSE(host.cpu_model.empty());
  EXPECT_EQ(host.xfer_version, "0.1.0");

#if XFER_WITH_VERBS
  const Result<std::vector<verbs::DeviceInfo>> devices = verbs::ListDevices();
  if (devices.ok()) {
    EXPECT_EQ(host.rdma.size(), RdmaPortsFromDevices(*devices).size());
  } else {
    EXPECT_TRUE(host.rdma.empty());
  }
#else
  EXPECT_TRUE(host.rdma.empty());  // no verbs in this build: no RDMA ports listed
#endif
}

TEST(HostProbeTest, UnknownVersionIsSaid) { EXPECT_EQ(ProbeHost("").xfer_version, "unknown"); }

}  // namespace
}  // namespace xfer::report
