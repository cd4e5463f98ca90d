// Which RDMA devices serve which memory, on trees written here
// (support/host_trees.h): an 8-GPU, 8-NIC two-node server, a host with a
// bonded NIC beside a slow one and a dead one, and a VM's software RDMA.
#include "topology/nic_map.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/host_trees.h"

namespace xfer::topology {
namespace {

using xfer::testing::PciAddress;
using xfer::testing::ScratchSysfs;

std::vector<std::string> Names(const std::vector<ServingNic>& serving) {
  std::vector<std::string> names;
  for (const ServingNic& s : serving) names.push_back(s.nic);
  return names;
}

class EightGpuServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    xfer::testing::WriteEightGpuServer(tree_);
    map_ = ReadNicMap(SysfsReader(tree_.root()));
  }
  ScratchSysfs tree_;
  NicMap map_;
};

TEST_F(EightGpuServerTest, ReadsEveryNicGpuAndNode) {
  ASSERT_EQ(map_.nics.size(), 8u);
  ASSERT_EQ(map_.gpus.size(), 8u);
  EXPECT_EQ(map_.numa_nodes, (std::vector<int64_t>{0, 1}));
  const RdmaNic& nic = map_.nics[5];
  EXPECT_EQ(nic.name, "mlx5_5");
  EXPECT_TRUE(nic.active);
  EXPECT_EQ(nic.gbps, 400);
  EXPECT_EQ(nic.numa_node, 1);
  EXPECT_EQ(nic.pci_path, "/sys/devices/pci0000:90/0000:90:01.0/0000:91:00.0/0000:92:03.0/" +
                              PciAddress(0x96));
  EXPECT_EQ(map_.gpus[0].address, "0000:13:00.0");
  EXPECT_EQ(map_.gpus[7].address, "0000:b4:00.0");
  EXPECT_EQ(map_.gpus[7].numa_node, 1);
}

// The goal: GPU i's connection takes the NIC behind its switch, for every
// i; the two GPUs of a switch split its two NICs in address order.
TEST_F(EightGpuServerTest, EachGpuTakesTheNicBehindItsOwnSwitch) {
  for (size_t i = 0; i < map_.gpus.size(); ++i) {
    const std::vector<ServingNic> serving = NicsForGpu(map_, map_.gpus[i].address);
    ASSERT_EQ(serving.size(), 1u) << map_.gpus[i].address;
    EXPECT_EQ(serving[0].nic, "mlx5_" + std::to_string(i)) << map_.gpus[i].address;
    EXPECT_EQ(serving[0].tier, Tier::kSameSwitch);
  }
}

TEST_F(EightGpuServerTest, HostMemoryTakesEveryNicOfItsNode) {
  EXPECT_EQ(Names(NicsForNode(map_, 1)),
            (std::vector<std::string>{"mlx5_4", "mlx5_5", "mlx5_6", "mlx5_7"}));
  EXPECT_EQ(NicsForNode(map_, 1)[0].tier, Tier::kSameNode);
  EXPECT_EQ(Names(NicsForNode(map_, 0)),
            (std::vector<std::string>{"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"}));
  EXPECT_EQ(TierToNode(map_.nics[0], 1), Tier::kAcrossNodes);
}

// `auto` rails for host memory take the NICs of its node, none across.
TEST_F(EightGpuServerTest, AutoRailsForHostMemoryTakeTheNicsOfItsNode) {
  EXPECT_EQ(RailNicsForNode(map_, 1),
            (std::vector<std::string>{"mlx5_4", "mlx5_5", "mlx5_6", "mlx5_7"}));
  EXPECT_EQ(RailNicsForNode(map_, 0),
            (std::vector<std::string>{"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"}));
}

TEST_F(EightGpuServerTest, AnUnknownGpuIsServedByNothing) {
  EXPECT_TRUE(NicsForGpu(map_, "0000:ff:00.0").empty());
}

// An override assigns GPU 0 a NIC across the host; GPU 1, alone now with
// its switch's two NICs, takes both.
TEST_F(EightGpuServerTest, AnOverrideAssignsNicsAndMovesNodes) {
  ASSERT_TRUE(ApplyNicMapOverrides(
                  R"({"gpus": {"0000:13:00.0": {"nics": ["mlx5_7"]}},
                      "nics": {"mlx5_6": {"numa_node": 0}}})",
                  "map.json", map_)
                  .ok());
  const std::vector<ServingNic> gpu0 = NicsForGpu(map_, "0000:13:00.0");
  ASSERT_EQ(gpu0.size(), 1u);
  EXPECT_EQ(gpu0[0].nic, "mlx5_7");
  EXPECT_EQ(gpu0[0].tier, Tier::kAssigned);
  EXPECT_EQ(Names(NicsForGpu(map_, "0000:14:00.0")),
            (std::vector<std::string>{"mlx5_0", "mlx5_1"}));
  EXPECT_EQ(Names(NicsForNode(map_, 0)),
            (std::vector<std::string>{"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3", "mlx5_6"}));
}

TEST_F(EightGpuServerTest, ABadOverrideIsRefusedNamingTheKeyAndChangesNothing) {
  const struct {
    const char* text;
    const char* says;
  } cases[] = {
      {"{", "map.json: is not JSON"},
      {"[]", "map.json: must be a JSON object"},
      {R"({"nic": {}})", "unknown key 'nic' (known: nics, gpus)"},
      {R"({"nics": {"mlx5_9": {"numa_node": 0}}})",
       "nics.mlx5_9 names an RDMA device this host does not have"},
      {R"({"nics": {"mlx5_0": {"numa_node": "1"}}})", "nics.mlx5_0.numa_node must be a NUMA node"},
      {R"({"nics": {"mlx5_0": {"speed": 1}}})", "unknown key 'speed' (known: numa_node)"},
      {R"({"gpus": {"0000:13:00.0": {"nics": []}}})", "must be a non-empty list"},
      {R"({"gpus": {"0000:13:00.0": {"nics": ["eth0"]}}})",
       "gpus.0000:13:00.0.nics: \"eth0\" is not an RDMA device of this host"},
      {R"({"gpus": {"0000:99:00.0": {}}})", "names a GPU this host does not have"},
  };
  for (const auto& c : cases) {
    NicMap copy = map_;
    const Status status = ApplyNicMapOverrides(c.text, "map.json", copy);
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << c.text;
    EXPECT_NE(status.message().find(c.says), std::string::npos) << status.ToString();
  }
}

// UCX's rule: a lane slower than a quarter of the fastest is dropped; a
// port that is down serves nothing.
TEST(NicMap, ABondServesItsNodeAndTheSlowAndDeadNicsDoNot) {
  ScratchSysfs tree;
  xfer::testing::WriteBondedAndSlowNicHost(tree);
  const NicMap map = ReadNicMap(SysfsReader(tree.root()));
  ASSERT_EQ(map.nics.size(), 3u);
  EXPECT_EQ(map.nics[0].name, "mlx5_2");
  EXPECT_EQ(map.nics[1].name, "mlx5_3");
  EXPECT_FALSE(map.nics[1].active);
  EXPECT_EQ(map.nics[2].name, "mlx5_bond_0");
  EXPECT_EQ(map.nics[2].netdev, "bond0");
  EXPECT_EQ(map.nics[2].gbps, 200);
  EXPECT_EQ(Names(NicsForNode(map, 0)), (std::vector<std::string>{"mlx5_bond_0"}));
}

// A VM's software RDMA: no PCI function, no NUMA node: every active device
// serves, at the unknown tier.
TEST(NicMap, SoftwareRdmaWithoutAPlaceServesAtTheUnknownTier) {
  ScratchSysfs tree;
  for (const std::string name : {"rxe0", "rxe1"}) {
    const std::string device = "sys/devices/virtual/infiniband/" + name;
    tree.Write(device + "/parent", "veth_" + name + "\n");
    tree.Write(device + "/ports/1/state", "4: ACTIVE\n");
    tree.Write(device + "/ports/1/rate", "10 Gb/sec (1X FDR10)\n");
    tree.Write(device + "/ports/1/link_layer", "Ethernet\n");
    tree.Link("sys/class/infiniband/" + name, "../../devices/virtual/infiniband/" + name);
  }
  const NicMap map = ReadNicMap(SysfsReader(tree.root()));
  ASSERT_EQ(map.nics.size(), 2u);
  EXPECT_TRUE(map.nics[0].pci_path.empty());
  EXPECT_EQ(map.nics[0].netdev, "veth_rxe0");
  const std::vector<ServingNic> serving = NicsForNode(map, -1);
  EXPECT_EQ(Names(serving), (std::vector<std::string>{"rxe0", "rxe1"}));
  EXPECT_EQ(serving[0].tier, Tier::kUnknown);
  // Nothing tells them near: `auto` rails keep the configured device alone.
  EXPECT_TRUE(RailNicsForNode(map, -1).empty());
  EXPECT_TRUE(RailNicsForNode(map, 0).empty());
}

// `auto` on a one-node host takes its fast NICs (not the slow or the
// dead); where the memory's node is unknown, hardware NICs still serve (a
// PCI function sits on the one node there is), software RDMA does not.
TEST(NicMap, AutoRailsOnAOneNodeHostTakeItsFastHardwareNics) {
  ScratchSysfs tree;
  xfer::testing::WriteBondedAndSlowNicHost(tree);
  const NicMap map = ReadNicMap(SysfsReader(tree.root()));
  EXPECT_EQ(RailNicsForNode(map, 0), (std::vector<std::string>{"mlx5_bond_0"}));
  EXPECT_EQ(RailNicsForNode(map, -1), (std::vector<std::string>{"mlx5_bond_0"}));
}

}  // namespace
}  // namespace xfer::topology
