// Verdicts for the seed runs (doctor.md §3), end to end through Diagnose.
#include "doctor/verdict.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include <nlohmann/json.hpp>

#include "doctor/doctor_report.h"
#include "tree_util.h"

namespace xfer::doctor {
namespace {

using testing::RunFixture;
using testing::Tree;

Verdict Judge(const std::string& tree, const std::string& run) {
  DoctorOptions options;
  options.sysfs_root = Tree(tree);
  options.run_path = RunFixture(run);
  const Result<DoctorReport> report = Diagnose(options);
  EXPECT_TRUE(report.ok()) << report.status().message();
  if (!report.ok() || report->verdicts.size() != 1) return {};
  return report->verdicts.front();
}

void ExpectHas(const Verdict& verdict, const std::string& text) {
  EXPECT_NE(verdict.line.find(text), std::string::npos) << verdict.line;
}

TEST(Verdict, Seed001SendBwIs99Point7PercentOfThe10GPort) {
  const Verdict verdict = Judge("seed001_hns_25g_at_10g", "seed001_send_bw.json");
  ASSERT_TRUE(verdict.fraction.has_value());
  EXPECT_NEAR(*verdict.fraction, 0.997, 5e-4);
  EXPECT_TRUE(verdict.link_bound);
  ExpectHas(verdict, "(99.7 %)");
  ExpectHas(verdict, "bound by port rate 10 Gb/s");
  ExpectHas(verdict, "1168.70 MiB/s");
}

TEST(Verdict, Seed002UdIs86Point8PercentBoundByPcie) {
  const Verdict verdict = Judge("seed002_cx2_qdr_gen2_x4", "seed002_send_bw_ud.json");
  ASSERT_TRUE(verdict.fraction.has_value());
  EXPECT_NEAR(*verdict.fraction, 0.868, 5e-4);
  ExpectHas(verdict, "(86.8 %)");
  ExpectHas(verdict, "bound by PCIe 2.0 x4");
}

TEST(Verdict, Seed000ReadQ4Is100Percent) {
  const Verdict verdict = Judge("seed000_100g_roce", "seed000_read_bw_q4.json");
  ASSERT_TRUE(verdict.fraction.has_value());
  ExpectHas(verdict, "(100.0 %)");
  ExpectHas(verdict, "bound by port rate 100 Gb/s");
  EXPECT_EQ(verdict.line.find("above the model"), std::string::npos) << verdict.line;
}

TEST(Verdict, Seed000Write1QpIsNotLinkBound) {
  const Verdict verdict = Judge("seed000_100g_roce", "seed000_write_bw_1qp.json");
  ASSERT_TRUE(verdict.fraction.has_value());
  EXPECT_NEAR(*verdict.fraction, 0.457, 5e-4);
  EXPECT_FALSE(verdict.link_bound);
  ExpectHas(verdict, "(45.7 %)");
  ExpectHas(verdict, "not link-bound");
  ExpectHas(verdict, "-q 4");
}

TEST(Verdict, ShmRunHasNoRdmaLink) {
  const Verdict verdict = Judge("veth_rxe", "matrix_shm.json");
  ExpectHas(verdict, "no RDMA link on th");
  EXPECT_FALSE(verdict.fraction.has_value());
}

TEST(Verdict, UnknownCeilingSaysSo) {
  RunMeasurement run;
  run.label = "x";
  run.bytes_per_s = 1e9;
  Ceiling ceiling;
  ceiling.bytes_per_s = topology::Reading<double>::Unknown("port rate unknown: speed is missing");
  const Verdict verdict = JudgeRun(run, ceiling);
  EXPECT_FALSE(verdict.fraction.has_value());
  ExpectHas(verdict, "expected unknown (port rate unknown: speed is missing)");
}

TEST(Verdict, DeviceNotUnderRootIsNotFound) {
  DoctorOptions options;
  options.sysfs_root = Tree("veth_rxe");
  options.device = "mlx5_9";
  const Result<DoctorReport> report = Diagnose(options);
  ASSERT_FALSE(report.ok());
  EXPECT_NE(report.status().message().find("no RDMA device named 'mlx5_9'"), std::string::npos);
  EXPECT_NE(report.status().message().find("rxe0"), std::string::npos) << report.status().message();
}

// Issue 27, defect 11: a --sysfs-root that is not there is named as such.
TEST(Verdict, AMissingSysfsRootIsNamed) {
  DoctorOptions options;
  options.sysfs_root = "/nonexistent-xfer-sysfs-root";
  const Result<DoctorReport> report = Diagnose(options);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(report.status().message(), "--sysfs-root /nonexistent-xfer-sysfs-root: no such directory");
}

}  // namespace
}  // namespace xfer::doctor

namespace xfer::doctor {
namespace {

// Judges `run` with test_info.numa.buffer_pages set to `pages`.
Verdict JudgeWithBufferPages(const std::string& run, const nlohmann::json& pages) {
  const std::string path = ::testing::TempDir() + "/numa-" + run;
  {
    std::ifstream in(testing::RunFixture(run));
    nlohmann::json document = nlohmann::json::parse(in);
    document["test_info"]["numa"] = {{"node", 0}, {"placement", "..."}, {"buffer_pages", pages}};
    std::ofstream(path) << document.dump();
  }
  DoctorOptions options;
  options.sysfs_root = testing::Tree("seed000_100g_roce");  // yusur_0 on node 0
  options.run_path = path;
  const Result<DoctorReport> report = Diagnose(options);
  EXPECT_TRUE(report.ok()) << report.status().message();
  std::remove(path.c_str());
  if (!report.ok() || report->verdicts.size() != 1) return {};
  return report->verdicts.front();
}

// Issue 40: a test buffer on the far NUMA node is named: as what binds a
// run that is not link-bound, as a note on one that is; a near one adds
// nothing.
TEST(Verdict, ATestBufferOnTheFarNodeIsNamed) {
  const Verdict slow =
      JudgeWithBufferPages("seed000_write_bw_1qp.json", {{"0", 100}, {"1", 412}});
  ExpectHas(slow, "; bound by a far buffer: the test buffer is on NUMA node 1 (412 of its 512 "
                  "pages), yusur_0 on node 0: every byte crosses between the sockets; rerun with "
                  "--numa_node 0");
  const Verdict full = JudgeWithBufferPages("seed000_read_bw_q4.json", {{"1", 512}});
  EXPECT_TRUE(full.link_bound);
  ExpectHas(full, "; also: the test buffer is on NUMA node 1 (512 of its 512 pages)");
  const Verdict near = JudgeWithBufferPages("seed000_read_bw_q4.json", {{"0", 300}, {"1", 212}});
  EXPECT_EQ(near.line.find("NUMA node"), std::string::npos) << near.line;
}

// Issue 43, item 12: a run that did not complete says so above any
// verdict, in the text and the JSON; a complete one adds nothing.
TEST(Verdict, AnIncompleteRunIsSaidAboveTheVerdicts) {
  const std::string path = ::testing::TempDir() + "/interrupted-run.json";
  {
    std::ifstream in(testing::RunFixture("seed001_send_bw.json"));
    nlohmann::json document = nlohmann::json::parse(in);
    document["outcome"] = "interrupted";
    document["error"] = "interrupted by SIGINT after 3 of 23 sizes";
    std::ofstream(path) << document.dump();
  }
  DoctorOptions options;
  options.sysfs_root = testing::Tree("seed001_hns_25g_at_10g");
  options.run_path = path;
  const Result<DoctorReport> report = Diagnose(options);
  ASSERT_TRUE(report.ok()) << report.status().message();
  const std::string text = DoctorText(*report);
  const size_t said = text.find(
      "the run did not complete (interrupted: interrupted by SIGINT after 3 of 23 sizes)");
  ASSERT_NE(said, std::string::npos) << text;
  EXPECT_LT(said, text.find("Send_BW_Test")) << "said above the verdict";
  EXPECT_EQ(DoctorJson(*report)["run"]["outcome"], "interrupted");

  options.run_path = testing::RunFixture("seed001_send_bw.json");
  const Result<DoctorReport> complete = Diagnose(options);
  ASSERT_TRUE(complete.ok());
  EXPECT_EQ(DoctorText(*complete).find("did not complete"), std::string::npos);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace xfer::doctor
