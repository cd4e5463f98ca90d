#include "report/html/run_plots.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>

namespace xfer::report {
namespace {

constexpr const char* kMessageSize = "message size [bytes, 1K = 1024]";
constexpr const char* kBlockSize = "block size [bytes, 1K = 1024]";
constexpr const char* kEfficiency = "efficiency [% of the recorded ceiling]";

// Runs drawn on the same axes: same kind, same test, same unit.
std::string GroupKey(const RunDocument& run) {
  return fmt::format("{}|{}|{}", static_cast<int>(run.kind), run.test, run.bw_unit);
}

std::vector<std::vector<const RunDocument*>> Groups(std::span<const RunDocument> runs) {
  std::vector<std::string> keys;
  std::vector<std::vector<const RunDocument*>> groups;
  for (const RunDocument& run : runs) {
    const std::string key = GroupKey(run);
    const auto it = std::find(keys.begin(), keys.end(), key);
    if (it == keys.end()) {
      keys.push_back(key);
      groups.push_back({&run});
    } else {
      groups[static_cast<size_t>(it - keys.begin())].push_back(&run);
    }
  }
  return groups;
}

// The dashed line through the rows whose ceiling is known, in `to_unit`.
template <typename Row, typename ToUnit>
PlotSeries CeilingSeries(const std::string& name, const std::vector<Row>& rows, size_t color,
                         ToUnit to_unit) {
  PlotSeries series{name + ": ceiling", {}, color, true};
  for (const Row& row : rows) {
    if (row.efficiency.ceiling && row.efficiency.ceiling->bytes_per_sec) {
      series.points.push_back(
          {static_cast<double>(row.size), to_unit(*row.efficiency.ceiling->bytes_per_sec)});
    }
  }
  return series;
}

// The rows' efficiencies in percent; empty when the run recorded none.
template <typename Row>
PlotSeries EfficiencySeries(const std::string& name, const std::vector<Row>& rows, size_t color) {
  PlotSeries series{name, {}, color, false};
  for (const Row& row : rows) {
    if (row.efficiency.efficiency) {
      series.points.push_back({static_cast<double>(row.size), *row.efficiency.efficiency * 100});
    }
  }
  return series;
}

bool HasPoints(const PlotSpec& plot) {
  return std::any_of(plot.series.begin(), plot.series.end(),
                     [](const PlotSeries& series) { return !series.points.empty(); });
}

// --timeline: each rail's Gb/s per interval over the run's time, and a
// dashed line where each rail went down.
PlotSpec RailTimelinePlot(const RunDocument& run, const RailTimelineDoc& timeline) {
  PlotSpec plot{fmt::format("{}: Gb/s per rail every {} ms", run.name, timeline.interval_ms),
                "time since the first size [s]", "rail bandwidth [Gb/s (10^9 bit/s)]", {}};
  plot.x_log = false;
  for (size_t rail = 0; rail < timeline.rails.size(); ++rail) {
    PlotSeries series{fmt::format("rail {}: {}", rail, timeline.rails[rail]), {}, rail, false};
    uint64_t begin = 0;
    for (const RailTimelineDoc::Sample& sample : timeline.samples) {
      const double seconds = static_cast<double>(sample.end_ms - begin) / 1e3;
      series.points.push_back({static_cast<double>(sample.end_ms) / 1e3,
                               static_cast<double>(sample.bytes[rail]) * 8 / seconds / 1e9});
      begin = sample.end_ms;
    }
    plot.series.push_back(std::move(series));
  }
  for (const RailTimelineDoc::Loss& loss : timeline.losses) {
    if (loss.down_ms < 0) continue;  // before the timeline began
    PlotSeries marker{fmt::format("rail {} down at {:.3f} s", loss.rail, loss.down_ms / 1e3),
                      {{loss.down_ms / 1e3, 0}}, loss.rail, false, true};
    plot.series.push_back(std::move(marker));
    if (loss.up_ms) {
      PlotSeries back{fmt::format("rail {} up again at {:.3f} s", loss.rail, *loss.up_ms / 1e3),
                      {{*loss.up_ms / 1e3, 0}}, loss.rail, false, true};
      plot.series.push_back(std::move(back));
    }
  }
  return plot;
}

void BandwidthPlots(const std::vector<const RunDocument*>& group, std::vector<PlotSpec>& out) {
  const RunDocument& first = *group.front();
  PlotSpec bw{fmt::format("{}: BW average", first.test), kMessageSize,
              fmt::format("BW average [{}]", first.bw_unit), {}};
  PlotSpec rate{fmt::format("{}: message rate", first.test), kMessageSize,
                "MsgRate [Mpps (10^6 messages/s)]", {}};
  PlotSpec efficiency{fmt::format("{}: efficiency against the ceiling", first.test), kMessageSize,
                      kEfficiency, {}};
  for (size_t i = 0; i < group.size(); ++i) {
    const RunDocument& run = *group[i];
    PlotSeries average{run.name + ": BW average", {}, i, false};
    PlotSeries msg_rate{run.name + ": MsgRate", {}, i, false};
    for (const BandwidthRow& row : run.bandwidth) {
      average.points.push_back({static_cast<double>(row.size), row.bw_average});
      msg_rate.points.push_back({static_cast<double>(row.size), row.msg_rate_mpps});
    }
    bw.series.push_back(std::move(average));
    const std::string unit = run.bw_unit;
    bw.series.push_back(CeilingSeries(run.name, run.bandwidth, i, [&unit](double bytes_per_sec) {
      return BytesPerSecToUnit(bytes_per_sec, unit);
    }));
    rate.series.push_back(std::move(msg_rate));
    efficiency.series.push_back(EfficiencySeries(run.name + ": efficiency", run.bandwidth, i));
  }
  out.push_back(std::move(bw));
  out.push_back(std::move(rate));
  if (HasPoints(efficiency)) out.push_back(std::move(efficiency));
  for (const RunDocument* run : group) {
    if (run->rail_timeline) out.push_back(RailTimelinePlot(*run, *run->rail_timeline));
  }
}

void LatencyPlot(const std::vector<const RunDocument*>& group, std::vector<PlotSpec>& out) {
  PlotSpec plot{fmt::format("{}: latency", group.front()->test), kMessageSize,
                "latency [usec]", {}};
  struct Statistic {
    const char* name;
    std::optional<double> LatencyRow::*field;
  };
  constexpr Statistic kStatistics[] = {{"t_min", &LatencyRow::t_min_us},
                                       {"t_typical", &LatencyRow::t_typical_us},
                                       {"99%", &LatencyRow::p99_us},
                                       {"99.9%", &LatencyRow::p999_us}};
  size_t color = 0;
  for (const RunDocument* run : group) {
    PlotSeries average{run->name + ": t_avg", {}, color++, false};
    for (const LatencyRow& row : run->latency) {
      average.points.push_back({static_cast<double>(row.size), row.t_avg_us});
    }
    plot.series.push_back(std::move(average));
    for (const Statistic& statistic : kStatistics) {
      PlotSeries series{fmt::format("{}: {}", run->name, statistic.name), {}, color++, false};
      for (const LatencyRow& row : run->latency) {
        if (const auto& value = row.*statistic.field) {
          series.points.push_back({static_cast<double>(row.size), *value});
        }
      }
      plot.series.push_back(std::move(series));
    }
  }
  out.push_back(std::move(plot));
}

// Up to this many message sizes get a distribution plot each: the
// smallest, the largest and evenly between.
constexpr size_t kMostDistributionPlots = 4;

// The sizes whose rows carry a distribution in any run of `group`, at most
// kMostDistributionPlots of them.
std::vector<uint64_t> DistributionSizes(const std::vector<const RunDocument*>& group) {
  std::vector<uint64_t> sizes;
  for (const RunDocument* run : group) {
    for (const LatencyRow& row : run->latency) {
      if (!row.buckets.empty()) sizes.push_back(row.size);
    }
  }
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  if (sizes.size() <= kMostDistributionPlots) return sizes;
  std::vector<uint64_t> spread;
  for (size_t i = 0; i < kMostDistributionPlots; ++i) {
    spread.push_back(sizes[i * (sizes.size() - 1) / (kMostDistributionPlots - 1)]);
  }
  return spread;
}

// A latency distribution per size, the runs side by side: the fraction of
// samples at or below each bucket's upper bound (a CDF, redrawn from the
// buckets), on a log axis of microseconds.
void LatencyDistributionPlots(const std::vector<const RunDocument*>& group,
                              std::vector<PlotSpec>& out) {
  for (const uint64_t size : DistributionSizes(group)) {
    PlotSpec plot{fmt::format("{}: latency distribution, {} bytes", group.front()->test, size),
                  "latency [usec]", "samples at or below [fraction]", {}};
    plot.x_sizes = false;
    size_t color = 0;
    for (const RunDocument* run : group) {
      const auto row = std::find_if(run->latency.begin(), run->latency.end(),
                                    [&](const LatencyRow& r) { return r.size == size; });
      const size_t this_color = color++;
      if (row == run->latency.end() || row->buckets.empty()) continue;
      uint64_t total = 0;
      for (const LatencyRow::Bucket& bucket : row->buckets) total += bucket.count;
      PlotSeries cdf{run->name, {}, this_color, false};
      // Its first point at the lowest bucket's lower bound: none below.
      const double first = static_cast<double>(std::max<uint64_t>(row->buckets.front().from_ns, 1));
      cdf.points.push_back({first / 1e3, 0});
      uint64_t below = 0;
      for (const LatencyRow::Bucket& bucket : row->buckets) {
        below += bucket.count;
        cdf.points.push_back({static_cast<double>(bucket.to_ns) / 1e3,
                              static_cast<double>(below) / static_cast<double>(total)});
      }
      plot.series.push_back(std::move(cdf));
    }
    out.push_back(std::move(plot));
  }
}

std::vector<std::string> MatrixTransports(const std::vector<const RunDocument*>& group) {
  std::vector<std::string> transports;
  for (const RunDocument* run : group) {
    for (const std::string& transport : run->transports) {
      if (std::find(transports.begin(), transports.end(), transport) == transports.end()) {
        transports.push_back(transport);
      }
    }
  }
  return transports;
}

void MatrixPlots(const std::vector<const RunDocument*>& group, std::vector<PlotSpec>& out) {
  for (const std::string& transport : MatrixTransports(group)) {
    PlotSpec plot{fmt::format("matrix: {}", transport), kBlockSize,
                  "median bandwidth [GB/s (10^9 bytes/s)]", {}};
    PlotSpec efficiency{fmt::format("matrix: {} efficiency against the ceiling", transport),
                        kBlockSize, kEfficiency, {}};
    size_t color = 0;
    for (const RunDocument* run : group) {
      for (const std::string& direction : run->directions) {
        const std::string name = fmt::format("{}: {}", run->name, direction);
        PlotSeries measured{name, {}, color, false};
        PlotSeries ceiling{name + ": ceiling", {}, color, true};
        PlotSeries fraction{name, {}, color, false};
        ++color;
        for (const MatrixCell& cell : run->cells) {
          if (cell.transport != transport || cell.direction != direction) continue;
          const double x = static_cast<double>(cell.block_size);
          if (cell.median_gbps) measured.points.push_back({x, *cell.median_gbps});
          const auto& known = cell.efficiency.ceiling;
          if (known && known->bytes_per_sec) ceiling.points.push_back({x, *known->bytes_per_sec / 1e9});
          if (cell.efficiency.efficiency) fraction.points.push_back({x, *cell.efficiency.efficiency * 100});
        }
        plot.series.push_back(std::move(measured));
        plot.series.push_back(std::move(ceiling));
        efficiency.series.push_back(std::move(fraction));
      }
    }
    out.push_back(std::move(plot));
    if (HasPoints(efficiency)) out.push_back(std::move(efficiency));
  }
}

}  // namespace

std::vector<PlotSpec> RunPlots(std::span<const RunDocument> runs) {
  std::vector<PlotSpec> plots;
  for (const auto& group : Groups(runs)) {
    switch (group.front()->kind) {
      case RunKind::kPerftestBandwidth: BandwidthPlots(group, plots); break;
      case RunKind::kPerftestLatency:
        LatencyPlot(group, plots);
        LatencyDistributionPlots(group, plots);
        break;
      case RunKind::kMatrix: MatrixPlots(group, plots); break;
      case RunKind::kCluster: break;  // its heat maps are tables, in its section
    }
  }
  return plots;
}

}  // namespace xfer::report
