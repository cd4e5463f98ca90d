#include "perftest/verbs_benchmark.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <optional>

#include "bench/model/interruption.h"
#include "bench/model/statistics.h"
#include "perftest/bw_traffic.h"
#include "perftest/link_ceiling.h"
#include "perftest/lat_traffic.h"
#include "perftest/oob_link.h"
#include "perftest/verbs_session.h"
#include "perftest/warm_up.h"

namespace xfer::perftest {
namespace {

using bench::BenchObserver;
using bench::BenchParams;
using bench::Kind;
using bench::Verb;

// Everything a test sequence works with.
struct Run {
  const BenchParams& params;
  const bench::EffectiveSettings& settings;
  std::optional<bench::DurationWindow> duration;  // set: -D
  VerbsSession& session;
  BenchObserver& observer;
  bool server;
  const std::atomic<int>& stop;  // polled between sizes (bench/model/interruption.h)
};

// The sizes a run covers, up to the session's largest message (on UD the
// path MTU, as in perftest: -a stops there, and an untyped -s becomes it).
std::vector<uint64_t> SizesFor(const BenchParams& params, const VerbsSession& session) {
  if (params.verb == Verb::kAtomic) return {kAtomicSize};
  const uint64_t max_size = session.agreed().max_size;
  if (!params.all_sizes) return {max_size};
  std::vector<uint64_t> sizes = params.Sizes();
  std::erase_if(sizes, [max_size](uint64_t size) { return size > max_size; });
  return sizes;
}

std::vector<uint64_t> SizesFor(const Run& run) { return SizesFor(run.params, run.session); }

// Runs `step(size)` for each of `sizes` in order; once the run is
// interrupted it stops before the next size (bench/model/interruption.h). A
// stock perftest peer has no Abort message: it learns from the closed
// connection.
template <typename Step>
Status ForEachSize(const Run& run, const std::vector<uint64_t>& sizes, Step&& step) {
  for (size_t i = 0; i < sizes.size(); ++i) {
    XFER_RETURN_IF_ERROR(bench::CheckInterrupted(run.stop, i, sizes.size()));
    XFER_RETURN_IF_ERROR(step(sizes[i]));
  }
  return Status::Ok();
}

TrafficConfig ConfigFor(const Run& run, uint64_t size) {
  TrafficConfig config;
  config.verb = run.params.verb;
  config.size = size;
  config.iterations = run.params.iterations;
  config.tx_depth = run.settings.tx_depth;
  config.cq_mod = run.settings.cq_mod;
  config.post_list = run.params.post_list;
  config.peak = !run.settings.peak_disabled;
  config.duration = run.duration;
  config.timeout = run.params.timeout;
  return config;
}

void Start(const Run& run) {
  bench::RunInfo info;
  info.numa_node = run.params.numa_node_run;
  info.numa_placement = run.params.numa_placement;
  info.transport = std::string(kTransport);
  info.data_mover = DataMover::kNic;
  info.qps = run.params.qps;
  info.tx_depth = run.settings.tx_depth;
  info.cq_mod = run.settings.cq_mod;
  info.post_list = run.params.post_list;
  info.rx_depth = run.settings.rx_depth;
  info.peak_disabled = run.settings.peak_disabled;
  info.results_from_peer = run.server && run.params.kind == Kind::kBandwidth &&
                           run.params.verb != Verb::kSend && !run.params.bidirectional;
  info.verbs = run.session.RunInfo();
  if (run.params.RecordsCeiling()) {
    info.ceilings = LinkCeilings(run.params, *info.verbs, SizesFor(run));
  }
  run.observer.OnStart(info);
}

bench::BwResult Sum(const bench::BwResult& local, const bench::BwResult& remote) {
  bench::BwResult sum = local;
  sum.peak_bytes_per_s += remote.peak_bytes_per_s;
  sum.avg_bytes_per_s += remote.avg_bytes_per_s;
  sum.msg_rate_mpps += remote.msg_rate_mpps;
  return sum;
}

// Both sides must have measured the same thing; perftest never checks.
Status CheckSameRun(const bench::BwResult& local, const bench::BwResult& remote) {
  if (local.size != remote.size) {
    return InvalidArgument(fmt::format(
        "the peer measured {}-byte messages and this side {}: the two sides were started with "
        "different -s/-a",
        remote.size, local.size));
  }
  return Status::Ok();
}

Status ReportLatency(const Run& run, uint64_t size, const LatencyStamps& stamps) {
  const int rtt = bench::RttFactor(run.params.verb);
  if (run.params.duration_s > 0) {
    auto result = bench::ComputeLatencyDuration(size, stamps.window_count, stamps.window_ns, rtt);
    if (!result.ok()) return result.status();
    run.observer.OnLatencyDuration(*result);
    return Status::Ok();
  }
  auto result = bench::ComputeLatency(
      size, stamps.posted_ns, rtt,
      {run.params.report_unsorted, run.params.report_histogram,
       run.params.report_cycles ? stamps.ticks_per_ns : 0});
  if (!result.ok()) return result.status();
  run.observer.OnLatency(*result);
  return Status::Ok();
}

// --perform_warm_up, before each size's timed loop as in perftest.
Status WarmUpIfAsked(const Run& run, uint64_t size) {
  return run.params.perform_warm_up ? PerformWarmUp(run.session, ConfigFor(run, size))
                                    : Status::Ok();
}

// ib_write_bw / ib_read_bw / ib_atomic_bw.
Status OneSidedBandwidth(const Run& run) {
  VerbsSession& s = run.session;
  XFER_RETURN_IF_ERROR(s.ExchangeKeys());
  XFER_RETURN_IF_ERROR(s.ConnectQueuePairs(!run.server || run.params.bidirectional));
  XFER_RETURN_IF_ERROR(s.BarrierEachQp());
  XFER_RETURN_IF_ERROR(s.Barrier("post-RTR"));
  Start(run);
  const std::vector<uint64_t> sizes = SizesFor(run);
  if (run.params.bidirectional) {
    const Status swept = ForEachSize(run, sizes, [&](uint64_t size) -> Status {
      XFER_RETURN_IF_ERROR(s.Barrier("pre-run"));
      XFER_RETURN_IF_ERROR(WarmUpIfAsked(run, size));
      auto local = RunBandwidthSender(s, ConfigFor(run, size));
      if (!local.ok()) return local.status();
      if (run.params.all_sizes) XFER_RETURN_IF_ERROR(s.Barrier("post-run"));
      auto remote = s.ExchangeBwReport(*local, false);
      if (!remote.ok()) return remote.status();
      XFER_RETURN_IF_ERROR(CheckSameRun(*local, *remote));
      run.observer.OnPeerBandwidth(*remote);
      run.observer.OnBandwidth(Sum(*local, *remote));
      return Status::Ok();
    });
    if (!swept.ok()) return swept;
    return s.Close();
  }
  if (run.server) {
    // The client runs every size without a word; its last row comes back.
    XFER_RETURN_IF_ERROR(s.BarrierAfterPeerRun("end-of-run"));
    auto remote = s.ExchangeBwReport(bench::BwResult{}, false);
    if (!remote.ok()) return remote.status();
    run.observer.OnPeerBandwidth(*remote);
    run.observer.OnBandwidth(*remote);
    return s.Close();
  }
  bench::BwResult last;
  const Status swept = ForEachSize(run, sizes, [&](uint64_t size) -> Status {
    XFER_RETURN_IF_ERROR(WarmUpIfAsked(run, size));
    auto local = RunBandwidthSender(s, ConfigFor(run, size));
    if (!local.ok()) return local.status();
    run.observer.OnBandwidth(*local);
    last = *local;
    return Status::Ok();
  });
  if (!swept.ok()) return swept;
  XFER_RETURN_IF_ERROR(s.Barrier("end-of-run"));
  auto remote = s.ExchangeBwReport(last, false);
  if (!remote.ok()) return remote.status();
  return s.Close();
}

// ib_send_bw: the server measures the receive side and prints its own row.
// With -b both sides send and receive at once (perftest's run_iter_bi), and
// outside duration mode each prints its own send rate plus the peer's.
Status SendBandwidth(const Run& run) {
  VerbsSession& s = run.session;
  const bool duplex = run.params.bidirectional;
  XFER_RETURN_IF_ERROR(s.ExchangeKeys());
  XFER_RETURN_IF_ERROR(s.ConnectQueuePairs(!run.server || duplex));
  XFER_RETURN_IF_ERROR(s.Barrier("post-RTR"));
  XFER_RETURN_IF_ERROR(s.BarrierEachQp());
  Start(run);
  const Status swept = ForEachSize(run, SizesFor(run), [&](uint64_t size) -> Status {
    TrafficConfig config = ConfigFor(run, size);
    config.receive_too = duplex;
    if (run.server || duplex) XFER_RETURN_IF_ERROR(PrePostReceives(s, config));
    XFER_RETURN_IF_ERROR(s.Barrier("pre-run"));
    auto result = (run.server && !duplex) ? RunBandwidthReceiver(s, config)
                                          : RunBandwidthSender(s, config);
    if (!result.ok()) return result.status();
    if (duplex && run.params.duration_s <= 0) {
      auto remote = s.ExchangeBwReport(*result, false);
      if (!remote.ok()) return remote.status();
      XFER_RETURN_IF_ERROR(CheckSameRun(*result, *remote));
      run.observer.OnPeerBandwidth(*remote);
      run.observer.OnBandwidth(Sum(*result, *remote));
    } else {
      run.observer.OnBandwidth(*result);
    }
    return run.params.all_sizes ? s.Barrier("post-run") : Status::Ok();
  });
  if (!swept.ok()) return swept;
  return s.Close();
}

// The setup ib_write_lat, ib_read_lat and ib_atomic_lat share: an extra
// exchange first, then keys, connect, keys again, and the post-RTR barrier.
Status ConnectOneSidedLatency(VerbsSession& s) {
  XFER_RETURN_IF_ERROR(s.Barrier("initial"));
  XFER_RETURN_IF_ERROR(s.ExchangeKeys());
  XFER_RETURN_IF_ERROR(s.ConnectQueuePairs(true));
  XFER_RETURN_IF_ERROR(s.BarrierEachQp());
  return s.Barrier("post-RTR");
}

// ib_write_lat: no close exchange; the socket simply closes.
Status WriteLatency(const Run& run) {
  VerbsSession& s = run.session;
  XFER_RETURN_IF_ERROR(ConnectOneSidedLatency(s));
  Start(run);
  return ForEachSize(run, SizesFor(run), [&](uint64_t size) -> Status {
    auto stamps = RunWriteLatency(s, ConfigFor(run, size));
    if (!stamps.ok()) return stamps.status();
    return ReportLatency(run, size, *stamps);
  });
}

// ib_send_lat.
Status SendLatency(const Run& run) {
  VerbsSession& s = run.session;
  XFER_RETURN_IF_ERROR(s.ExchangeKeys());
  XFER_RETURN_IF_ERROR(s.ConnectQueuePairs(true));
  XFER_RETURN_IF_ERROR(s.Barrier("post-RTR"));
  XFER_RETURN_IF_ERROR(s.BarrierEachQp());
  Start(run);
  const Status swept = ForEachSize(run, SizesFor(run), [&](uint64_t size) -> Status {
    const TrafficConfig config = ConfigFor(run, size);
    XFER_RETURN_IF_ERROR(PrePostReceives(s, config));
    XFER_RETURN_IF_ERROR(s.Barrier("pre-run"));
    auto stamps = RunSendLatency(s, config);
    if (!stamps.ok()) return stamps.status();
    return ReportLatency(run, size, *stamps);
  });
  if (!swept.ok()) return swept;
  return s.Close();
}

// ib_read_lat / ib_atomic_lat: only the client measures; the server waits
// in the close exchange.
Status ReadLatency(const Run& run) {
  VerbsSession& s = run.session;
  XFER_RETURN_IF_ERROR(ConnectOneSidedLatency(s));
  Start(run);
  if (run.server) return s.BarrierAfterPeerRun("close");
  const Status swept = ForEachSize(run, SizesFor(run), [&](uint64_t size) -> Status {
    auto stamps = RunReadLatency(s, ConfigFor(run, size));
    if (!stamps.ok()) return stamps.status();
    return ReportLatency(run, size, *stamps);
  });
  if (!swept.ok()) return swept;
  return s.Close();
}

Status RunTest(const Run& run) {
  if (run.params.kind == Kind::kLatency) {
    switch (run.params.verb) {
      case Verb::kWrite: return WriteLatency(run);
      case Verb::kSend: return SendLatency(run);
      case Verb::kRead:
      case Verb::kAtomic: return ReadLatency(run);
    }
  }
  return run.params.verb == Verb::kSend ? SendBandwidth(run) : OneSidedBandwidth(run);
}

Status RunOnLink(const BenchParams& params, OobLink link, BenchObserver& observer,
                 const std::atomic<int>& stop) {
  auto settings = bench::ResolveSettings(params, params.cq_mod_given);
  if (!settings.ok()) return settings.status();
  std::optional<bench::DurationWindow> duration;
  if (params.duration_s > 0) {
    auto resolved = bench::ResolveDurationWindow(params);
    if (!resolved.ok()) return resolved.status();
    duration = *resolved;
  }
  for (const std::string& notice : settings->notices) observer.OnNotice(notice);
  const bool server = !link.is_client();
  auto session = VerbsSession::Open(params, *settings, std::move(link));
  if (!session.ok()) return session.status();
  const std::vector<uint64_t> sizes = SizesFor(params, **session);
  XFER_RETURN_IF_ERROR((*session)->CreateResources(*std::max_element(sizes.begin(), sizes.end())));
  const Run run{params, *settings, duration, **session, observer, server, stop};
  return RunTest(run);
}

}  // namespace

Status RunVerbsClient(const BenchParams& params, BenchObserver& observer,
                      const std::atomic<int>& stop) {
  auto link = OobLink::Connect({params.server_host, params.port}, params.timeout, stop);
  if (!link.ok()) return link.status();
  return RunOnLink(params, std::move(*link), observer, stop);
}

Status RunVerbsServer(const BenchParams& params, Listener& listener, BenchObserver& observer,
                      const std::atomic<int>& stop) {
  observer.OnWaitingForClient();
  auto link = OobLink::Accept(listener, params.accept_timeout, params.timeout, stop);
  if (!link.ok()) return link.status();
  listener.Close();
  return RunOnLink(params, std::move(*link), observer, stop);
}

}  // namespace xfer::perftest
