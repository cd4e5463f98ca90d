#include "bench/bench_runner.h"

#include <fmt/format.h>

#include <optional>

#include "bench/bench_session.h"
#include "bench/heartbeat.h"
#include "bench/model/interruption.h"
#include "bench/page_nodes.h"
#include "bench/rail_sampler.h"
#include "bench/bw_runner.h"
#include "bench/latency_runner.h"
#include "bench/receive_loop.h"
#include "bench/run_ceilings.h"
#include "bench/model/statistics.h"
#include "bench/warm_up.h"

namespace xfer::bench {
namespace {

// Everything one size of one side needs.
struct SizeStep {
  const BenchParams& params;
  const EffectiveSettings& settings;
  const std::optional<DurationWindow>& duration;  // set: -D
  const BufferLayout& layout;
  Session& session;
  BenchObserver& observer;
  uint32_t index;
  uint64_t size;
  const std::atomic<int>& stop;
};

bool ServerPrintsPeerResults(const BenchParams& p) {
  return p.verb != Verb::kSend && !p.bidirectional &&
         !(p.verb == Verb::kWrite && p.kind == Kind::kLatency);
}

LatencyConfig LatencyFor(const SizeStep& step, bool is_server) {
  LatencyConfig config;
  config.size = step.size;
  config.iterations = step.params.iterations;
  config.duration = step.duration;
  config.is_server = is_server;
  config.notify = step.params.notify;
  config.prepared = step.params.prepared;
  config.timeout = step.params.timeout;
  config.stop = &step.stop;
  OobChannel& oob = *step.session.oob;
  if (is_server && step.params.duration_s > 0) {
    // The client's next out-of-band message (Done) means it has stopped.
    config.watch_peer = [&oob] { return oob.WatchPeer(); };
  } else {
    // Only a failing peer ends the wait: its Abort, or its end of stream.
    config.watch_peer = [&oob]() -> Result<bool> {
      auto waiting = oob.WatchPeer();
      if (!waiting.ok()) return waiting.status();
      return false;
    };
  }
  return config;
}

// Turns one side's samples into the table row; read_lat's client also sends
// it to the server, which only waited.
Status ReportLatency(const SizeStep& step, const LatencySamples& samples, bool send_to_peer) {
  const int rtt = RttFactor(step.params.verb);
  if (step.params.duration_s > 0) {
    auto result = ComputeLatencyDuration(step.size, samples.window_count, samples.window_ns, rtt);
    if (!result.ok()) return result.status();
    step.observer.OnLatencyDuration(*result);
    return send_to_peer ? step.session.oob->SendLatDurationResult(*result) : Status::Ok();
  }
  auto result = ComputeLatency(
      step.size, samples.stamps, rtt,
      {step.params.report_unsorted, step.params.report_histogram,
       step.params.report_cycles ? samples.ticks_per_ns : 0});
  if (!result.ok()) return result.status();
  step.observer.OnLatency(*result);
  return send_to_peer ? step.session.oob->SendLatResult(*result) : Status::Ok();
}

Status ReceivePeerLatency(const SizeStep& step) {
  if (step.params.duration_s > 0) {
    auto result = step.session.oob->RecvLatDurationResult();
    if (!result.ok()) return result.status();
    step.observer.OnLatencyDuration(*result);
    return Status::Ok();
  }
  auto result = step.session.oob->RecvLatResult();
  if (!result.ok()) return result.status();
  step.observer.OnLatency(*result);
  return Status::Ok();
}

// One side's bandwidth loop at this size. The other side either waits (a
// heartbeat keeps it from timing out), receives (send_bw), or runs the same
// loop towards us (-b).
Result<BwResult> MeasureBandwidth(const SizeStep& step) {
  BwRunConfig config;
  config.size = step.size;
  config.iterations = step.params.iterations;
  config.streams = step.session.peer_info.streams;
  config.remote_slot_base = step.params.bidirectional ? config.streams : 0;
  config.tx_depth = step.settings.tx_depth;
  config.cq_mod = step.settings.cq_mod;
  config.post_list = step.params.post_list;
  config.peak = !step.settings.peak_disabled;
  config.duration = step.duration;
  config.timeout = step.params.timeout;
  config.stop = &step.stop;
  Heartbeat alive([&oob = *step.session.oob] { return oob.SendHeartbeat(); },
                  step.params.verb != Verb::kSend);
  if (step.params.verb == Verb::kSend) {
    return RunBandwidthLoop(step.session, step.layout, config, SendPost(step.session));
  }
  const OpCode op = step.params.verb == Verb::kWrite ? OpCode::kWrite : OpCode::kRead;
  XFER_RETURN_IF_ERROR(WarmUp(step.session, step.layout, config, op));
  if (step.params.prepared) {
    auto post = PreparedPost(step.session, step.layout, config, op);
    if (!post.ok()) return post.status();
    return RunBandwidthLoop(step.session, step.layout, config, *post);
  }
  return RunBandwidthLoop(step.session, step.layout, config, OneSidedPost(step.session, op));
}

// perftest's duplex report: each side prints local + remote bandwidth and
// message rate; #iterations stays the local count.
BwResult SumBidirectional(const BwResult& local, const BwResult& remote) {
  BwResult sum = local;
  sum.peak_bytes_per_s += remote.peak_bytes_per_s;
  sum.avg_bytes_per_s += remote.avg_bytes_per_s;
  sum.msg_rate_mpps += remote.msg_rate_mpps;
  return sum;
}

// -b: both sides measured; swap results (client first) and print the sum.
Status ReportBidirectional(const SizeStep& step, const BwResult& local, bool server) {
  if (!server) XFER_RETURN_IF_ERROR(step.session.oob->SendBwResult(local));
  auto remote = step.session.oob->RecvBwResult();
  if (!remote.ok()) return remote.status();
  if (server) XFER_RETURN_IF_ERROR(step.session.oob->SendBwResult(local));
  step.observer.OnPeerBandwidth(*remote);
  step.observer.OnBandwidth(SumBidirectional(local, *remote));
  return Status::Ok();
}

Status ClientBandwidth(const SizeStep& step) {
  XFER_RETURN_IF_ERROR(step.session.oob->SendBarrier(step.index));
  XFER_RETURN_IF_ERROR(step.session.oob->RecvBarrier(step.index));
  auto result = MeasureBandwidth(step);
  if (!result.ok()) return result.status();
  if (step.params.bidirectional) return ReportBidirectional(step, *result, false);
  step.observer.OnBandwidth(*result);
  if (step.params.verb == Verb::kSend) return Status::Ok();
  return step.session.oob->SendBwResult(*result);
}

Status ClientLatency(const SizeStep& step) {
  LatencyConfig config = LatencyFor(step, false);
  ResetReceiveSlot(step.session, step.layout, step.size);
  if (step.params.verb == Verb::kSend) {
    SendLatency loop(step.session, step.layout, config);
    XFER_RETURN_IF_ERROR(loop.PrePost());
    XFER_RETURN_IF_ERROR(step.session.oob->SendBarrier(step.index));
    XFER_RETURN_IF_ERROR(step.session.oob->RecvBarrier(step.index));
    auto stamps = loop.Run();
    if (!stamps.ok()) return stamps.status();
    return ReportLatency(step, *stamps, false);
  }
  XFER_RETURN_IF_ERROR(step.session.oob->SendBarrier(step.index));
  XFER_RETURN_IF_ERROR(step.session.oob->RecvBarrier(step.index));
  Result<LatencySamples> stamps = Internal("not run");
  if (step.params.verb == Verb::kWrite) {
    stamps = RunWriteLatency(step.session, step.layout, config);
  } else {
    // The read_lat server only waits.
    Heartbeat alive([&oob = *step.session.oob] { return oob.SendHeartbeat(); }, true);
    stamps = RunReadLatency(step.session, step.layout, config);
  }
  if (!stamps.ok()) return stamps.status();
  return ReportLatency(step, *stamps, step.params.verb == Verb::kRead);
}

Status ServerSendBandwidth(const SizeStep& step) {
  ReceiveConfig config;
  config.size = step.size;
  config.messages = step.params.iterations * step.session.peer_info.streams;
  config.rx_depth = step.settings.rx_depth;
  config.duration = step.duration;
  config.timeout = step.params.timeout;
  ReceiveLoop loop(step.session, step.layout, config);
  XFER_RETURN_IF_ERROR(loop.PrePost());
  XFER_RETURN_IF_ERROR(step.session.oob->RecvBarrier(step.index));
  XFER_RETURN_IF_ERROR(step.session.oob->SendBarrier(step.index));
  auto result = loop.Run([&step] { return step.session.oob->Readable(); });
  if (!result.ok()) return result.status();
  step.observer.OnBandwidth(*result);
  return Status::Ok();
}

Status ServerLatency(const SizeStep& step) {
  LatencyConfig config = LatencyFor(step, true);
  ResetReceiveSlot(step.session, step.layout, step.size);
  if (step.params.verb == Verb::kSend) {
    SendLatency loop(step.session, step.layout, config);
    XFER_RETURN_IF_ERROR(loop.PrePost());
    XFER_RETURN_IF_ERROR(step.session.oob->RecvBarrier(step.index));
    XFER_RETURN_IF_ERROR(step.session.oob->SendBarrier(step.index));
    auto stamps = loop.Run();
    if (!stamps.ok()) return stamps.status();
    return ReportLatency(step, *stamps, false);
  }
  XFER_RETURN_IF_ERROR(step.session.oob->RecvBarrier(step.index));
  XFER_RETURN_IF_ERROR(step.session.oob->SendBarrier(step.index));
  if (step.params.verb == Verb::kWrite) {
    auto stamps = RunWriteLatency(step.session, step.layout, config);
    if (!stamps.ok()) return stamps.status();
    return ReportLatency(step, *stamps, false);
  }
  return ReceivePeerLatency(step);  // read_lat: the client measures
}

Status ServerStep(const SizeStep& step) {
  if (step.params.kind == Kind::kLatency) return ServerLatency(step);
  if (step.params.verb == Verb::kSend) return ServerSendBandwidth(step);
  XFER_RETURN_IF_ERROR(step.session.oob->RecvBarrier(step.index));
  XFER_RETURN_IF_ERROR(step.session.oob->SendBarrier(step.index));
  if (step.params.bidirectional) {
    auto local = MeasureBandwidth(step);
    if (!local.ok()) return local.status();
    return ReportBidirectional(step, *local, true);
  }
  auto result = step.session.oob->RecvBwResult();
  if (!result.ok()) return result.status();
  step.observer.OnPeerBandwidth(*result);
  step.observer.OnBandwidth(*result);
  return Status::Ok();
}

Status ClientStep(const SizeStep& step) {
  return step.params.kind == Kind::kLatency ? ClientLatency(step) : ClientBandwidth(step);
}

Status RunSizes(const BenchParams& params, Session& session, BenchObserver& observer, bool server,
                const std::atomic<int>& stop) {
  auto settings = ResolveSettings(params, params.cq_mod_given);
  if (!settings.ok()) return settings.status();
  std::optional<DurationWindow> duration;
  if (params.duration_s > 0) {
    auto resolved = ResolveDurationWindow(params);
    if (!resolved.ok()) return resolved.status();
    duration = *resolved;
  }
  for (const auto& notice : settings->notices) observer.OnNotice(notice);
  RunInfo info;
  info.numa_node = params.numa_node_run;
  info.numa_placement = params.numa_placement;
  if (session.buffer.kind != MemoryKind::kCuda) {
    const size_t page = session.buffer.kind == MemoryKind::kHugepage ? size_t{2} << 20
                                                                     : size_t{4096};
    if (auto nodes = NodesOfPages(session.buffer.address, session.buffer.length, page);
        nodes.ok()) {
      info.buffer_pages = nodes->pages;
      info.buffer_pages_unplaced = nodes->unplaced;
    }
  }
  info.transport = session.peer_info.transport;
  info.data_mover = session.peer_info.data_mover;
  info.staged = session.peer_info.staged;
  info.notify = params.notify;
  info.prepared = params.prepared;
  info.qps = session.peer_info.streams;
  info.tx_depth = settings->tx_depth;
  info.cq_mod = settings->cq_mod;
  info.post_list = params.post_list;
  info.rx_depth = settings->rx_depth;
  info.peak_disabled = settings->peak_disabled;
  info.results_from_peer = server && ServerPrintsPeerResults(params);
  info.rails = session.peer_info.rails;
  const auto sizes = params.Sizes();
  // Measured before the first size, while the peer waits at its barrier.
  if (auto probe = ProbeRegistration(params, session); probe.ok()) {
    info.registration = *probe;
    info.registration->nic = session.peer_info.registration;
  } else {
    observer.OnNotice("registration not measured: " + probe.status().ToString());
  }
  if (params.RecordsCeiling()) info.ceilings = RunCeilings(params, session.peer_info, sizes);
  observer.OnStart(info);

  // --timeline: over several rails, what each carries, interval by
  // interval, from the first size to the last.
  std::optional<RailSampler> sampler;
  if (params.timeline_ms != 0 && session.peer_info.rails.size() > 1) {
    sampler.emplace(*session.engine, session.peer, std::chrono::milliseconds(params.timeline_ms));
    XFER_RETURN_IF_ERROR(sampler->Start());
  } else if (params.timeline_ms != 0) {
    observer.OnNotice(
        "--timeline: this connection has one rail, which the engine does not count interval "
        "by interval; give --rails 2 or more for a timeline");
  }
  const BufferLayout layout = LayoutFor(params);
  for (uint32_t i = 0; i < sizes.size(); ++i) {
    XFER_RETURN_IF_ERROR(CheckInterrupted(stop, i, sizes.size()));
    const SizeStep step{params, *settings, duration, layout, session, observer, i, sizes[i], stop};
    Status stepped = server ? ServerStep(step) : ClientStep(step);
    if (!stepped.ok() && stop.load(std::memory_order_acquire) != 0) {
      // Interrupted mid-size: said as between sizes, with the size dropped.
      Status interrupted = CheckInterrupted(stop, i, sizes.size());
      return Status(interrupted.code(),
                    fmt::format("{}; size {} was dropped (not measured whole)",
                                interrupted.message(), sizes[i]));
    }
    XFER_RETURN_IF_ERROR(stepped);
  }
  if (sampler) observer.OnRailTimeline(sampler->Stop());
  if (session.peer_info.rails.size() > 1) {
    // The split this side's posts took over the rails.
    if (auto now = session.engine->GetPeerInfo(session.peer); now.ok()) observer.OnRails(now->rails);
  }
  if (server) {
    XFER_RETURN_IF_ERROR(session.oob->RecvDone());
    return session.oob->SendDone();
  }
  XFER_RETURN_IF_ERROR(session.oob->SendDone());
  return session.oob->RecvDone();
}

// Runs the sizes and, if they fail, tells the peer why before returning.
Status RunAndReport(const BenchParams& params, Session& session, BenchObserver& observer,
                    bool server, const std::atomic<int>& stop) {
  Status status = RunSizes(params, session, observer, server, stop);
  if (!status.ok() && status.code() != StatusCode::kConnectionLost) {
    session.oob->SendAbort(status.ToString());
  }
  return status;
}

}  // namespace

Status RunServer(const BenchParams& params, Listener& listener, BenchObserver& observer,
                 const std::atomic<int>& stop) {
  observer.OnWaitingForClient();
  auto session = OpenServerSession(params, listener, stop);
  if (!session.ok()) return session.status();
  return RunAndReport(params, *session, observer, true, stop);
}

Status RunClient(const BenchParams& params, BenchObserver& observer,
                 const std::atomic<int>& stop) {
  auto session = OpenClientSession(params, stop);
  if (!session.ok()) return session.status();
  return RunAndReport(params, *session, observer, false, stop);
}

}  // namespace xfer::bench
