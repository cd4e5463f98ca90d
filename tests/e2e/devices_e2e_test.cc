// `xfer devices` as a user runs it on a machine without RDMA devices (this
// host and CI). Inside the Soft-RoCE VM, where devices exist, the
// no-device checks skip themselves. A build without RDMA verbs says so
// instead.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "common/build_options.h"
#include "e2e/process.h"

namespace xfer::testing {
namespace {

using namespace std::chrono_literals;

#if !XFER_WITH_VERBS
TEST(DevicesE2e, ABuildWithoutVerbsSaysSoAndWritesNothing) {
  const std::string path = ::testing::TempDir() + "/devices-no-verbs.json";
  std::remove(path.c_str());
  const ProcessResult result = RunXfer({"devices", "--json", path}, 30s);
  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_TRUE(result.out.empty()) << result.out;
  EXPECT_TRUE(result.err.starts_with("xfer: devices: this build has no RDMA verbs: it was "
                                     "configured with XFER_VERBS=OFF or without rdma-core"))
      << result.err;
  EXPECT_FALSE(std::ifstream(path).good()) << path;
}
#else
TEST(DevicesE2e, NoDeviceExitsOneAndPointsToTheSoftRoceVm) {
  if (HostHasRdmaDevices()) GTEST_SKIP() << "this machine has RDMA devices";
  const ProcessResult result = RunXfer({"devices"}, 30s);
  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_TRUE(result.out.empty()) << result.out;
  EXPECT_TRUE(result.err.starts_with("xfer: devices: libibverbs found no RDMA device"))
      << result.err;
  EXPECT_NE(result.err.find("scripts/softroce-vm -- xfer devices"), std::string::npos)
      << result.err;
}

TEST(DevicesE2e, NoDeviceWithDashDStillExplains) {
  if (HostHasRdmaDevices()) GTEST_SKIP() << "this machine has RDMA devices";
  const ProcessResult result = RunXfer({"devices", "-d", "mlx9"}, 30s);
  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_NE(result.err.find("softroce-vm"), std::string::npos) << result.err;
}

// Issue 9, defect 12: the JSON file still records the (empty) finding.
TEST(DevicesE2e, NoDeviceWithJsonWritesAnEmptyListAndTheReason) {
  if (HostHasRdmaDevices()) GTEST_SKIP() << "this machine has RDMA devices";
  const std::string path = ::testing::TempDir() + "/devices-none.json";
  std::remove(path.c_str());
  const ProcessResult result = RunXfer({"devices", "--json", path}, 30s);
  EXPECT_EQ(result.exit_code, 1) << result.err;
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << "no file at " << path;
  const auto document = nlohmann::json::parse(in);
  EXPECT_TRUE(document["devices"].is_array());
  EXPECT_TRUE(document["devices"].empty());
  EXPECT_NE(document["reason"].get<std::string>().find("no RDMA device"), std::string::npos);
}

TEST(DevicesE2e, UnwritableJsonIsRefusedBeforeListing) {
  const ProcessResult result = RunXfer({"devices", "--json", "/nonexistent/dir/d.json"}, 30s);
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_TRUE(result.err.starts_with("xfer: --json: /nonexistent/dir/d.json")) << result.err;
  EXPECT_TRUE(result.out.empty()) << result.out;
}

// The other side: where devices exist (the Soft-RoCE VM), they are listed.
TEST(DevicesE2e, ListsDevicesWhereThereAreSome) {
  if (!HostHasRdmaDevices()) GTEST_SKIP() << "this machine has no RDMA device";
  const ProcessResult result = RunXfer({"devices"}, 30s);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(result.out.starts_with("hca_id: ")) << result.out;
  EXPECT_NE(result.out.find("GID["), std::string::npos) << result.out;
  const ProcessResult unknown = RunXfer({"devices", "-d", "no_such_dev"}, 30s);
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("no RDMA device named 'no_such_dev' (have: "),
            std::string::npos)
      << unknown.err;
}

TEST(DevicesE2e, UnknownFlagIsAUsageError) {
  const ProcessResult result = RunXfer({"devices", "--bogus"}, 30s);
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_NE(result.err.find("xfer: unknown option '--bogus'"), std::string::npos)
      << result.err;
}

TEST(DevicesE2e, HelpExitsZero) {
  const ProcessResult result = RunXfer({"devices", "--help"}, 30s);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("Usage:\n  xfer devices [options]"), std::string::npos)
      << result.out;
}

#endif  // XFER_WITH_VERBS

}  // namespace
}  // namespace xfer::testing
