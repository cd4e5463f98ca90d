// Duration mode (-D) through every engine loop, both sides: bw_runner
// (write_bw, read_bw, send_bw's sender), receive_loop (send_bw's receiver)
// and latency_runner (write_lat, send_lat, read_lat). Each must report over
// the scheduled window D - 2*margin of its DurationTimeline: the window a
// row implies (messages / rate) is checked to the nanosecond, which a window
// measured between clock readings or between the first and last counted
// event would miss by microseconds at least.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "bench/bench_runner.h"
#include "launch/process_pair.h"

namespace xfer::bench {
namespace {

using namespace std::chrono_literals;

// -D 2 with a half-second margin: a warm-up, a 1 s sample and a cool-down.
constexpr double kDurationS = 2;
constexpr double kMarginS = 0.5;
constexpr double kSampleS = kDurationS - 2 * kMarginS;
// What double arithmetic on a 1 s window of up to ~10^8 messages can lose;
// far below the microseconds between any two clock readings.
constexpr double kToleranceS = 1e-9;

// Keeps the last duration-mode result of each kind.
class LastResult final : public BenchObserver {
 public:
  void OnNotice(const std::string&) override {}
  void OnWaitingForClient() override {}
  void OnStart(const RunInfo&) override {}
  void OnBandwidth(const BwResult& result) override { bw = result; }
  void OnLatency(const LatResult&) override {}
  void OnLatencyDuration(const LatDurationResult& result) override { lat = result; }
  std::optional<BwResult> bw;
  std::optional<LatDurationResult> lat;
};

BenchParams DurationRun(Verb verb, Kind kind) {
  BenchParams params;
  params.verb = verb;
  params.kind = kind;
  params.transport = "tcp";
  params.port = 0;
  params.size = kind == Kind::kBandwidth ? 4096 : 2;
  params.tx_depth = kind == Kind::kBandwidth ? 128 : 1;
  params.duration_s = kDurationS;
  params.margin_s = kMarginS;
  params.timeout = 10s;
  return params;
}

// The window a bandwidth row was computed over: N / msg rate.
Status CheckWindow(const std::optional<BwResult>& r, std::string_view side) {
  if (!r) return Internal(fmt::format("{}: no bandwidth row", side));
  if (r->iterations == 0) return Internal(fmt::format("{}: nothing counted", side));
  const double window_s = static_cast<double>(r->iterations) / (r->msg_rate_mpps * 1e6);
  if (std::abs(window_s - kSampleS) > kToleranceS) {
    return Internal(fmt::format("{}: window {:.12f} s, scheduled {} s", side, window_s, kSampleS));
  }
  return Status::Ok();
}

// The window a duration latency row was computed over: N / tps.
Status CheckWindow(const std::optional<LatDurationResult>& r, std::string_view side) {
  if (!r) return Internal(fmt::format("{}: no latency row", side));
  if (r->iterations == 0) return Internal(fmt::format("{}: nothing counted", side));
  const double window_s = static_cast<double>(r->iterations) / r->tps;
  if (std::abs(window_s - kSampleS) > kToleranceS) {
    return Internal(fmt::format("{}: window {:.12f} s, scheduled {} s", side, window_s, kSampleS));
  }
  return Status::Ok();
}

// Runs client and server over loopback tcp. The server's row is checked
// in the child, where it is computed; a wrong window fails the child and so
// the run, with the check's message.
template <typename Row>
Status RunAndCheckBothSides(const BenchParams& params, std::optional<Row> LastResult::*row) {
  const launch::BenchRoles roles{
      [row](const BenchParams& server, Listener& listener, BenchObserver&,
            const std::atomic<int>& stop) {
        LastResult result;
        XFER_RETURN_IF_ERROR(RunServer(server, listener, result, stop));
        return CheckWindow(result.*row, "server");
      },
      RunClient};
  LastResult client;
  XFER_RETURN_IF_ERROR(launch::RunProcessPair(params, client, roles));
  return CheckWindow(client.*row, "client");
}

TEST(DurationLoops, WriteBandwidthReportsTheScheduledWindow) {
  // The server prints the client's row, as perftest's does.
  const Status status =
      RunAndCheckBothSides(DurationRun(Verb::kWrite, Kind::kBandwidth), &LastResult::bw);
  EXPECT_TRUE(status.ok()) << status.ToString();
}

TEST(DurationLoops, ReadBandwidthReportsTheScheduledWindow) {
  const Status status =
      RunAndCheckBothSides(DurationRun(Verb::kRead, Kind::kBandwidth), &LastResult::bw);
  EXPECT_TRUE(status.ok()) << status.ToString();
}

TEST(DurationLoops, SendBandwidthSenderAndReceiverReportTheScheduledWindow) {
  // The client's row comes from bw_runner, the server's from receive_loop.
  const Status status =
      RunAndCheckBothSides(DurationRun(Verb::kSend, Kind::kBandwidth), &LastResult::bw);
  EXPECT_TRUE(status.ok()) << status.ToString();
}

TEST(DurationLoops, WriteLatencyBothSidesReportTheScheduledWindow) {
  const Status status =
      RunAndCheckBothSides(DurationRun(Verb::kWrite, Kind::kLatency), &LastResult::lat);
  EXPECT_TRUE(status.ok()) << status.ToString();
}

TEST(DurationLoops, SendLatencyBothSidesReportTheScheduledWindow) {
  const Status status =
      RunAndCheckBothSides(DurationRun(Verb::kSend, Kind::kLatency), &LastResult::lat);
  EXPECT_TRUE(status.ok()) << status.ToString();
}

TEST(DurationLoops, ReadLatencyReportsTheScheduledWindow) {
  // Only the client measures; the server is sent its row.
  const Status status =
      RunAndCheckBothSides(DurationRun(Verb::kRead, Kind::kLatency), &LastResult::lat);
  EXPECT_TRUE(status.ok()) << status.ToString();
}

}  // namespace
}  // namespace xfer::bench
