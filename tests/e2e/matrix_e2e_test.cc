// `xfer matrix` as a user runs it: real target and initiator processes over
// loopback, --loopback's forked target, --verify, mismatched flags, a target
// killed mid-matrix and an interrupted run, checked through the table and
// the JSON.
#include <signal.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "cuda/device_runtime.h"
#include "e2e/process.h"

namespace xfer::testing {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

// A fresh path: nothing a previous run left there can be mistaken for output.
std::string TempPath(const std::string& name) {
  std::string path = ::testing::TempDir() + "/matrix-" + name;
  std::remove(path.c_str());
  return path;
}

// The JSON document at `path`, or null when it is missing or unparsable.
json ReadJsonOrNull(const std::string& path) {
  std::ifstream in(path);
  if (!in.good()) return nullptr;
  return json::parse(in, nullptr, /*allow_exceptions=*/false);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

size_t CountStatus(const json& document, const std::string& status) {
  size_t n = 0;
  for (const auto& cell : document["cells"]) if (cell["status"] == status) ++n;
  return n;
}

// The value printed under `direction` in the row of `block`, in the table
// that follows the heading naming `transport`.
std::string TableCell(const std::string& out, const std::string& transport,
                      const std::string& direction, const std::string& block) {
  std::istringstream in(out);
  std::vector<std::string> header;
  bool in_table = false;
  for (std::string line; std::getline(in, line);) {
    if (line.find("--- " + transport + " ") != std::string::npos) {
      in_table = true;
      header.clear();
      continue;
    }
    if (!in_table) continue;
    std::istringstream words(line);
    std::vector<std::string> row;
    for (std::string w; words >> w;) row.push_back(w);
    if (row.empty()) {
      in_table = false;
      continue;
    }
    if (row[0] == "Block") {
      header = row;
      continue;
    }
    if (row[0] != block) continue;
    for (size_t i = 1; i < header.size() && i < row.size(); ++i) {
      if (header[i] == direction) return row[i];
    }
  }
  return "";
}

bool IsFigure(const std::string& cell) {
  return !cell.empty() && cell.find_first_not_of("0123456789.") == std::string::npos &&
         std::stod(cell) > 0;
}

// Small and quick: 1 MiB per sample, three block sizes, two samples.
std::vector<std::string> SmallMatrix(const std::string& blocks = "16K,64K,1M") {
  return {"matrix", "--transfer_size", "1M", "--block_sizes", blocks, "--loops", "2",
          "--warmup", "1", "--timeout", "10", "--quiet"};
}

bool HostHasGpu() { return cuda::DeviceRuntime::Create()->Available().ok(); }

// Issue 43, item 14: a matrix in which no cell could be measured is a
// failure a script can see (exit 1, said on stderr, outcome "failed"), not
// an all-n/a table with exit 0.
TEST(MatrixE2e, AMatrixWithNothingMeasuredExitsOne) {
  if (HostHasGpu()) GTEST_SKIP() << "D2rD runs on this host";
  const std::string path = TempPath("nothing.json");
  ProcessResult run = RunXfer(With(SmallMatrix("16K"), {"--loopback", "--directions", "D2rD",
                                                        "--transports", "tcp", "--json", path}),
                              120s);
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_NE(run.err.find("no cell could be measured: all 1 are n/a"), std::string::npos)
      << run.err;
  EXPECT_EQ(TableCell(run.out, "tcp", "D2rD", "16K"), "n/a") << "the table is still printed";
  const json document = ReadJsonOrNull(path);
  ASSERT_FALSE(document.is_null());
  EXPECT_EQ(document["run"]["outcome"], "failed");
}

TEST(MatrixE2e, LoopbackPrintsTheHostDirectionsForShmAndTcp) {
  const std::string path = TempPath("loopback.json");
  const std::string csv = TempPath("loopback.csv");
  const std::string md = TempPath("loopback.md");
  ProcessResult run = RunXfer(
      With(SmallMatrix(), {"--loopback", "--json", path, "--csv", csv, "--markdown", md}), 120s);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  for (const std::string transport : {"shm", "tcp"}) {
    for (const std::string block : {"16K", "64K", "1M"}) {
      EXPECT_TRUE(IsFigure(TableCell(run.out, transport, "H2rH", block))) << run.out;
      EXPECT_TRUE(IsFigure(TableCell(run.out, transport, "rH2H", block))) << run.out;
      if (!HostHasGpu()) {
        EXPECT_EQ(TableCell(run.out, transport, "D2rD", block), "n/a") << run.out;
      }
    }
  }
  EXPECT_NE(run.out.find("GB/s = 10^9 B/s"), std::string::npos);

  const json document = ReadJsonOrNull(path);
  ASSERT_FALSE(document.is_null());
  EXPECT_EQ(document["schema"]["name"], "xfer.matrix");
  EXPECT_EQ(document["run"]["outcome"], "complete");
  ASSERT_GE(document["transports"].size(), 2u);
  EXPECT_EQ(document["cells"].size(), document["transports"].size() * 8 * 3);
  for (const auto& cell : document["cells"]) {
    if (cell["status"] == "ok") {
      EXPECT_EQ(cell["sample_seconds"].size(), 2u);
      EXPECT_EQ(cell["warmup_seconds"].size(), 1u);
      EXPECT_EQ(cell["path"]["transport"], cell["transport"]);  // never a silent fallback
      EXPECT_GE(cell["max_gbps"].get<double>(), cell["median_gbps"].get<double>());
      EXPECT_LE(cell["min_gbps"].get<double>(), cell["median_gbps"].get<double>());
      EXPECT_EQ(cell["entries_per_sample"], (1u << 20) / cell["block_size"].get<uint64_t>());
    } else {
      EXPECT_EQ(cell["status"], "unsupported") << cell.dump();
      EXPECT_FALSE(cell["reason"].get<std::string>().empty());
    }
  }
  // 2 host directions x 3 blocks per usable transport.
  EXPECT_EQ(CountStatus(document, "ok"), 6 * 2);

  const std::string csv_text = ReadFile(csv);
  EXPECT_EQ(std::count(csv_text.begin(), csv_text.end(), '\n'),
            static_cast<long>(1 + document["cells"].size()));
  EXPECT_NE(ReadFile(md).find("H2rH<br>shm"), std::string::npos);
}

TEST(MatrixE2e, VerifyChecksEveryHostDirectionOnEveryTransport) {
  const std::string path = TempPath("verify.json");
  ProcessResult run = RunXfer(
      With(SmallMatrix(), {"--loopback", "--verify", "--directions", "H2rH,rH2H", "--batch", "1",
                           "--json", path}),
      120s);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json document = ReadJsonOrNull(path);
  ASSERT_FALSE(document.is_null());
  size_t verified = 0;
  for (const auto& cell : document["cells"]) {
    ASSERT_EQ(cell["status"], "ok") << cell.dump();
    EXPECT_EQ(cell["verified"], true) << cell.dump();
    ++verified;
  }
  EXPECT_EQ(verified, document["transports"].size() * 2 * 3);
}

TEST(MatrixE2e, BatchedRequestsAndStreamsOnTcp) {
  const std::string path = TempPath("batch.json");
  ProcessResult run = RunXfer(With(SmallMatrix(), {"--loopback", "--transports", "tcp", "--batch",
                                                   "1", "--streams", "2", "--directions", "H2rH",
                                                   "--verify", "--json", path}),
                              120s);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  ProcessResult batched = RunXfer(With(SmallMatrix("16K,64K"), {"--loopback", "--transports", "tcp",
                                                       "--batch", "4", "--streams", "2",
                                                       "--directions", "rH2H", "--verify",
                                                       "--json", path}),
                                  120s);
  ASSERT_EQ(batched.exit_code, 0) << batched.err;
  const json document = ReadJsonOrNull(path);
  for (const auto& cell : document["cells"]) {
    EXPECT_EQ(cell["requests"], 4);
    EXPECT_EQ(cell["path"]["streams"], 2);
    EXPECT_EQ(cell["verified"], true);
  }
}

// --timeline over two tcp rails: after the tables, what each rail carried
// interval by interval while the column's cells ran, and the same in the
// JSON with each cell's span on it (inside the timeline, in run order); a
// column of one rail gets none.
TEST(MatrixE2e, ATimelineShowsWhatEachRailCarriedWhileTheCellsRan) {
  const std::string path = TempPath("timeline.json");
  ProcessResult run = RunXfer(
      {"matrix", "--loopback", "--transports", "tcp", "--rails", "2", "--timeline", "20",
       "--directions", "H2rH,rH2H", "--block_sizes", "64K,1M", "--transfer_size", "16M",
       "--loops", "3", "--timeout", "10", "--quiet", "--json", path},
      120s);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find(" tcp's rails, while its cells ran:\n timeline: Gb/s per rail every 20 "
                         "ms, from "),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("   t[s]    rail 0    rail 1\n"), std::string::npos) << run.out;
  const json document = ReadJsonOrNull(path);
  ASSERT_EQ(document["rail_timelines"].size(), 1u) << document.dump();
  const json& timeline = document["rail_timelines"][0];
  EXPECT_EQ(timeline["transport"], "tcp");
  EXPECT_EQ(timeline["interval_ms"], 20);
  ASSERT_EQ(timeline["rails"].size(), 2u);
  ASSERT_FALSE(timeline["samples"].empty());
  uint64_t carried[2] = {0, 0};
  for (const json& sample : timeline["samples"]) {
    carried[0] += sample["bytes"][0].get<uint64_t>();
    carried[1] += sample["bytes"][1].get<uint64_t>();
  }
  EXPECT_GT(carried[0], 0u);
  EXPECT_GT(carried[1], 0u);
  const double end = timeline["samples"].back()["end_ms"].get<double>();
  double previous = 0;
  for (const json& cell : document["cells"]) {
    const json& span = cell["path"]["timeline_ms"];
    ASSERT_EQ(span.size(), 2u) << cell.dump();
    EXPECT_LE(previous, span[0].get<double>());
    EXPECT_LT(span[0].get<double>(), span[1].get<double>());
    EXPECT_LE(span[1].get<double>(), end + 20);
    previous = span[1].get<double>();
  }
  ProcessResult one = RunXfer(With(SmallMatrix("64K"), {"--loopback", "--transports", "tcp",
                                                         "--rails", "1", "--timeline", "20",
                                                         "--directions", "H2rH", "--json", path}),
                              60s);
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_TRUE(ReadJsonOrNull(path)["rail_timelines"].empty());
  EXPECT_FALSE(ReadJsonOrNull(path)["cells"][0]["path"].contains("timeline_ms"));
}

// Issue 43, item 21: --loopback honours -p (its child target listens there):
// with the port taken by another target, the run says so.
TEST(MatrixE2e, LoopbackListensOnTheGivenPort) {
  const std::string port = std::to_string(FreePort());
  Process target(With(SmallMatrix("16K"), {"-p", port}));
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (target.OutputSoFar().find("waiting for an initiator") == std::string::npos &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ProcessResult taken = RunXfer(With(SmallMatrix("16K"), {"--loopback", "-p", port}), 60s);
  EXPECT_EQ(taken.exit_code, 1) << taken.err;
  EXPECT_NE(taken.err.find("loopback control port"), std::string::npos) << taken.err;
  EXPECT_NE(taken.err.find(port), std::string::npos) << taken.err;
  target.Kill();
}

TEST(MatrixE2e, TargetAndInitiatorAsTwoProcesses) {
  const std::string port = std::to_string(FreePort());
  const std::vector<std::string> args =
      With(SmallMatrix(), {"--directions", "H2rH,rH2H", "--verify", "-p", port});
  Process target(args);
  const std::string path = TempPath("two.json");
  ProcessResult initiator = RunXfer(With(args, {"--json", path, "127.0.0.1"}), 120s);
  ProcessResult served = target.Wait(20s);
  ASSERT_EQ(initiator.exit_code, 0) << initiator.err;
  ASSERT_EQ(served.exit_code, 0) << served.err;
  EXPECT_NE(served.out.find("waiting for an initiator on port " + port), std::string::npos);
  const json document = ReadJsonOrNull(path);
  ASSERT_FALSE(document.is_null());
  EXPECT_EQ(CountStatus(document, "ok"), document["cells"].size());
  EXPECT_FALSE(document["hosts"]["target"]["hostname"].get<std::string>().empty());
  EXPECT_EQ(document["hosts"]["target"]["hostname"], document["hosts"]["initiator"]["hostname"]);
  // The initiator's one host buffer: registered, and deregistered at the end.
  ASSERT_EQ(document["registration"].size(), 1u) << document["registration"];
  const json& registration = document["registration"][0];
  EXPECT_EQ(registration["memory"], "host");
  EXPECT_EQ(registration["bytes"], document["config"]["transfer_size"]) << registration;
  EXPECT_GT(registration["register_s"].get<double>(), 0.0) << registration;
  EXPECT_GT(registration["deregister_s"].get<double>(), 0.0) << registration;
  // Neither shm nor tcp registers memory with a NIC: only verbs, where a
  // host has a device, reports what connecting registered.
  ASSERT_TRUE(document["nic_registration"].is_array());
  for (const json& nic : document["nic_registration"]) {
    EXPECT_EQ(nic["transport"], "verbs") << nic;
    EXPECT_GT(nic["bytes"].get<uint64_t>(), 0u) << nic;
  }
}

TEST(MatrixE2e, StrayConnectionDoesNotEndAWaitingTarget) {
  const int port = FreePort();
  const std::vector<std::string> args =
      With(SmallMatrix("64K"), {"--directions", "H2rH", "-p", std::to_string(port)});
  Process target(args);
  ASSERT_TRUE(SendStray(port, "GET / HTTP/1.0\r\n\r\n"));
  ProcessResult initiator = RunXfer(With(args, {"127.0.0.1"}), 60s);
  ProcessResult served = target.Wait(20s);
  EXPECT_EQ(initiator.exit_code, 0) << initiator.err;
  EXPECT_EQ(served.exit_code, 0) << served.err;
  EXPECT_NE(served.err.find("not an xfer matrix initiator (from 127.0.0.1)"), std::string::npos)
      << served.err;
}

// The initiator is refused and exits; the target logs the refusal and waits
// on for an initiator that agrees, until --accept_timeout.
TEST(MatrixE2e, MismatchedFlagsAreRefusedNamingTheFlag) {
  const std::string port = std::to_string(FreePort());
  Process target(With(SmallMatrix("64K"), {"-p", port, "--accept_timeout", "3"}));
  ProcessResult initiator = RunXfer(With(SmallMatrix(), {"-p", port, "127.0.0.1"}), 30s);
  ProcessResult served = target.Wait(20s);
  EXPECT_EQ(initiator.exit_code, 1);
  EXPECT_NE(initiator.err.find("--block_sizes: target 64K, initiator 16K,64K,1M"),
            std::string::npos)
      << initiator.err;
  EXPECT_EQ(served.exit_code, 1);
  EXPECT_NE(served.err.find("turned away the initiator from 127.0.0.1"), std::string::npos)
      << served.err;
  EXPECT_NE(served.err.find("--block_sizes"), std::string::npos) << served.err;
  EXPECT_NE(served.err.find("--accept_timeout"), std::string::npos) << served.err;
}

// Every D direction is measured where a GPU is, naming its device path,
// and reads n/a with the CUDA loader's reason where none is; never a
// figure without a GPU.
TEST(MatrixE2e, DeviceCellsReadNaWithThisHostsReason) {
  const std::string path = TempPath("device.json");
  ProcessResult run = RunXfer(
      With(SmallMatrix(), {"--loopback", "--directions", "D2rD,D2rH,H2rD,rD2D,rH2D,rD2H",
                           "--use_cuda", "0", "--json", path}),
      120s);
  const Status gpu = cuda::DeviceRuntime::Create()->Available();
  // Without a GPU no cell is measured: the run says so and fails (issue
  // 43, item 14), the table and the JSON still there.
  ASSERT_EQ(run.exit_code, gpu.ok() ? 0 : 1) << run.err;
  const json document = ReadJsonOrNull(path);
  ASSERT_FALSE(document.is_null());
  ASSERT_EQ(document["cells"].size(), document["transports"].size() * 6 * 3);
  for (const auto& cell : document["cells"]) {
    if (gpu.ok()) {
      EXPECT_EQ(cell["status"], "ok") << cell.dump();
      EXPECT_FALSE(cell["path"]["device"].get<std::string>().empty()) << cell.dump();
      continue;
    }
    const std::string expected = gpu.message();
    EXPECT_EQ(cell["status"], "unsupported") << cell.dump();
    EXPECT_NE(cell["reason"].get<std::string>().find(expected), std::string::npos)
        << cell.dump() << "\nexpected: " << expected;
  }
  if (!gpu.ok()) {
    EXPECT_NE(run.out.find(gpu.message()), std::string::npos) << run.out;
  }
  // The local copy anchors: measured with a GPU, the loader's reason without.
  ASSERT_TRUE(document["anchors"].is_object()) << document.dump();
  EXPECT_EQ(document["anchors"]["cells"].size(), 3u * 3);
  for (const auto& anchor : document["anchors"]["cells"]) {
    if (gpu.ok()) {
      EXPECT_EQ(anchor["status"], "ok") << anchor.dump();
    } else {
      EXPECT_EQ(anchor["status"], "unsupported") << anchor.dump();
      EXPECT_EQ(anchor["reason"], gpu.message()) << anchor.dump();
    }
  }
  EXPECT_NE(run.out.find("--- local copies on CUDA device 0"), std::string::npos) << run.out;
}

TEST(MatrixE2e, BadFlagsAreUsageErrors) {
  ProcessResult run = RunXfer({"matrix", "--loopback", "--block_sizes", "16K:3M"}, 10s);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("--block_sizes"), std::string::npos) << run.err;
  ProcessResult gpu = RunXfer({"matrix", "--loopback", "--use_cuda", "-1"}, 10s);
  EXPECT_EQ(gpu.exit_code, 2);
  EXPECT_NE(gpu.err.find("--use_cuda"), std::string::npos) << gpu.err;
  for (const char* interval : {"5", "60001", "soon"}) {
    ProcessResult timeline = RunXfer({"matrix", "--loopback", "--timeline", interval}, 10s);
    EXPECT_EQ(timeline.exit_code, 2) << interval;
    EXPECT_NE(timeline.err.find("--timeline"), std::string::npos) << timeline.err;
  }
  ProcessResult target_timeline = RunXfer({"matrix", "--timeline", "100"}, 10s);
  EXPECT_EQ(target_timeline.exit_code, 2);
  EXPECT_NE(target_timeline.err.find("--timeline: the initiator samples the rails"),
            std::string::npos)
      << target_timeline.err;
  ProcessResult unwritable =
      RunXfer({"matrix", "--loopback", "--json", "/nonexistent/dir/out.json"}, 10s);
  EXPECT_EQ(unwritable.exit_code, 2);  // bad usage, as for every command (issue 27, defect 14)
  EXPECT_NE(unwritable.err.find("--json"), std::string::npos) << unwritable.err;
}

// Waits until the JSON at `path` holds at least one finished cell.
bool WaitForFinishedCell(const std::string& path, std::chrono::seconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    const json document = ReadJsonOrNull(path);
    if (!document.is_null() && document.contains("cells") && CountStatus(document, "ok") > 0) {
      return true;
    }
    std::this_thread::sleep_for(20ms);
  }
  return false;
}

// Enough cells that the run is still going when the test acts on it.
std::vector<std::string> LongMatrix() {
  return {"matrix", "--transports", "tcp", "--directions", "H2rH,rH2H", "--transfer_size", "16M",
          "--block_sizes", "16K:1M", "--loops", "50", "--timeout", "3", "--quiet"};
}

TEST(MatrixE2e, KilledTargetIsReportedWithinTheTimeoutAndFinishedCellsStay) {
  const std::string port = std::to_string(FreePort());
  Process target(With(LongMatrix(), {"-p", port}));
  const std::string path = TempPath("killed.json");
  const std::string csv = TempPath("killed.csv");
  Process initiator(With(LongMatrix(), {"-p", port, "--json", path, "--csv", csv, "127.0.0.1"}));
  ASSERT_TRUE(WaitForFinishedCell(path, 60s));
  const auto killed_at = std::chrono::steady_clock::now();
  target.Kill();
  ProcessResult result = initiator.Wait(30s);
  const auto took = std::chrono::steady_clock::now() - killed_at;
  EXPECT_FALSE(result.timed_out);
  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_LT(took, 3s + 2s);  // --timeout 3, plus process start-up slack
  EXPECT_NE(result.err.find("tcp "), std::string::npos) << result.err;  // names the cell
  const json document = ReadJsonOrNull(path);
  ASSERT_FALSE(document.is_null());
  EXPECT_EQ(document["run"]["outcome"], "failed");
  EXPECT_GE(CountStatus(document, "ok"), 1u);
  EXPECT_EQ(CountStatus(document, "failed"), 1u);
  const std::string csv_text = ReadFile(csv);
  EXPECT_NE(csv_text.find(",ok,"), std::string::npos);
  EXPECT_NE(csv_text.find(",failed,"), std::string::npos);
}

TEST(MatrixE2e, InterruptedRunExitsWithTheSignalAndKeepsFinishedCells) {
  const std::string path = TempPath("interrupted.json");
  Process run(With(LongMatrix(), {"--loopback", "--json", path}));
  ASSERT_TRUE(WaitForFinishedCell(path, 60s));
  kill(run.pid(), SIGINT);
  ProcessResult result = run.Wait(30s);
  EXPECT_FALSE(result.timed_out);
  EXPECT_EQ(result.exit_code, 128 + SIGINT) << result.err;
  EXPECT_NE(result.err.find("interrupted by SIGINT in cell tcp "), std::string::npos) << result.err;
  const json document = ReadJsonOrNull(path);
  ASSERT_FALSE(document.is_null());
  EXPECT_EQ(document["run"]["outcome"], "interrupted");
  EXPECT_GE(CountStatus(document, "ok"), 1u);
  EXPECT_GE(CountStatus(document, "not run"), 1u);
}

}  // namespace
}  // namespace xfer::testing
