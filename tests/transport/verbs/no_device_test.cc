// The verbs transport as data (registration, capabilities) and on a host
// without an RDMA device: it says so, with the reason, fast, on both sides
// of a connection. These run on every host; the no-device cases skip where
// a device exists.
#include <gtest/gtest.h>

#include <chrono>

#include "support/endpoint_pair.h"
#include "support/verbs_test_env.h"
#include "transport/transport_registry.h"
#include "transport/verbs/verbs_transport.h"

namespace xfer::transport::verbs {
namespace {

using namespace std::chrono_literals;

TEST(VerbsTransportTest, RegistersWithCapabilitiesBetweenTcpAndShm) {
  TransportRegistry registry;
  RegisterBuiltinTransports(registry);
  const TransportEntry* entry = registry.Find("verbs");
  ASSERT_NE(entry, nullptr);
  EXPECT_FALSE(entry->description.empty());
  auto created = entry->create({{"device", "mlx5_7"}, {"port", "2"}, {"gid_index", "3"}});
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  const auto& transport = created.value();
  EXPECT_EQ(transport->name(), "verbs");
  const auto* verbs = dynamic_cast<const VerbsTransport*>(transport.get());
  ASSERT_NE(verbs, nullptr);
  EXPECT_EQ(verbs->options().device.device, "mlx5_7");
  EXPECT_EQ(verbs->options().device.port, 2);
  EXPECT_EQ(verbs->options().device.gid_index, 3);

  const Capabilities caps = transport->capabilities();
  EXPECT_TRUE(caps.one_sided);
  EXPECT_TRUE(caps.two_sided);
  EXPECT_FALSE(caps.same_host_only);
  EXPECT_EQ(caps.max_streams, 64u);
  const int tcp = (*registry.Find("tcp")->create({}))->capabilities().preference;
  const int shm = (*registry.Find("shm")->create({}))->capabilities().preference;
  EXPECT_GT(caps.preference, tcp);
  EXPECT_LT(caps.preference, shm);
}

TEST(VerbsTransportTest, OptionsAreReadWithTheirRangesAndUnknownKeysRefused) {
  auto read = ReadVerbsTransportOptions(
      {{"mtu", "2048"}, {"send_depth", "64"}, {"registration_piece", "1073741824"}});
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->mtu_bytes, 2048u);
  EXPECT_EQ(read->send_depth, 64u);
  EXPECT_EQ(read->registration_piece_bytes, uint64_t{1} << 30);
  EXPECT_EQ(ReadVerbsTransportOptions({})->registration_piece_bytes,
            kDefaultRegistrationPieceBytes);
  EXPECT_EQ(read->device.device, "");
  EXPECT_EQ(read->device.port, 1);
  EXPECT_FALSE(read->device.gid_index.has_value());
  auto message = [](TransportOptions options) {
    return ReadVerbsTransportOptions(options).status().message();
  };
  EXPECT_EQ(message({{"port", "0"}}), "verbs transport option 'port': '0' is not an integer in [1, 255]");
  EXPECT_EQ(message({{"gid_index", "x1"}}),
            "verbs transport option 'gid_index': 'x1' is not an integer in [0, 2147483647]");
  EXPECT_EQ(message({{"mtu", "1500"}}),
            "verbs transport option 'mtu': '1500' is not one of 256, 512, 1024, 2048, 4096");
  EXPECT_EQ(message({{"mtu", "8192"}}),
            "verbs transport option 'mtu': '8192' is not one of 256, 512, 1024, 2048, 4096");
  EXPECT_EQ(message({{"registration_piece", "4096"}}),
            "verbs transport option 'registration_piece': '4096' is not an integer in [1048576, "
            "1099511627776]");
  EXPECT_EQ(message({{"registration_piece", "1048577"}}),
            "verbs transport option 'registration_piece': '1048577' is not a multiple of 4096");
  EXPECT_EQ(message({{"devcie", "rxe0"}}),
            "unknown verbs transport option 'devcie' (it takes: device, port, gid_index, mtu, "
            "send_depth, registration_piece)");
}

// The table behind those checks is the one its registry entry declares
// (issue 28, item 2): tools derive their flags and help from it.
TEST(VerbsTransportTest, ItsRegistryEntryDeclaresItsOptionTable) {
  TransportRegistry registry;
  RegisterBuiltinTransports(registry);
  const TransportEntry* entry = registry.Find("verbs");
  ASSERT_NE(entry, nullptr);
  std::vector<std::string> declared;
  for (const OptionSpec& spec : entry->options) {
    declared.push_back(std::string(spec.key) + " " + std::string(spec.flag));
  }
  EXPECT_EQ(declared, (std::vector<std::string>{"device -d", "port -i", "gid_index -x", "mtu -m",
                                                "send_depth ", "registration_piece "}));
}

TEST(VerbsTransportTest, AnUnknownDeviceIsNotUsableAndSaysWhy) {
  VerbsTransportOptions options;
  options.device.device = "no-such-rdma-device";
  const Status usable = VerbsTransport(options).Usable();
  ASSERT_FALSE(usable.ok());
  if (xfer::testing::HasVerbsDevice()) {
    EXPECT_EQ(usable.code(), StatusCode::kNotFound) << usable.ToString();
    EXPECT_NE(usable.message().find("no-such-rdma-device"), std::string::npos) << usable.ToString();
  } else {
    EXPECT_EQ(usable.code(), StatusCode::kFailedPrecondition) << usable.ToString();
  }
}

class VerbsNoDeviceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (xfer::testing::HasVerbsDevice()) GTEST_SKIP() << "this host has an RDMA device";
  }
};

TEST_F(VerbsNoDeviceTest, TransportIsNotUsableAndExplainsWhy) {
  const Status usable = VerbsTransport(VerbsTransportOptions{}).Usable();
  EXPECT_EQ(usable.code(), StatusCode::kFailedPrecondition) << usable.ToString();
  EXPECT_NE(usable.message().find("no RDMA device"), std::string::npos) << usable.ToString();
  EXPECT_NE(usable.message().find("softroce-vm"), std::string::npos) << usable.ToString();
}

TEST_F(VerbsNoDeviceTest, EndpointSetupFailsCleanlyAndQuicklyOnBothSides) {
  xfer::testing::EndpointPair pair;
  pair.initiator_memory.Add(4096, Access::kRemoteReadWrite);
  pair.target_memory.Add(4096, Access::kRemoteReadWrite);
  VerbsTransport initiator(VerbsTransportOptions{});
  VerbsTransport target(VerbsTransportOptions{});
  const auto start = std::chrono::steady_clock::now();
  // ConnectPair returns the initiator's error (the target's is the same).
  Status status = xfer::testing::ConnectPair(initiator, target, pair, 2);
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition) << status.ToString();
  EXPECT_NE(status.message().find("no RDMA device"), std::string::npos) << status.ToString();
  // Each side told the other instead of waiting out the 10 s setup deadline.
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
  EXPECT_EQ(pair.initiator, nullptr);
  EXPECT_EQ(pair.target, nullptr);
}

}  // namespace
}  // namespace xfer::transport::verbs
