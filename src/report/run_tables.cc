#include "report/run_tables.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>

#include "report/html/svg_plot.h"

namespace xfer::report {
namespace {

constexpr const char* kNotInFile = "—";

std::string Fixed(double value, int digits) { return fmt::format("{:.{}f}", value, digits); }

std::string Optional(const std::optional<double>& value) {
  return value ? Fixed(*value, 2) : std::string("unknown");
}

template <typename Row>
bool AnyEfficiency(const std::vector<Row>& rows) {
  for (const Row& row : rows) {
    if (row.efficiency.ceiling || row.efficiency.efficiency) return true;
  }
  return false;
}

// The distinct ceiling sources of a table, in order of first appearance.
class CeilingSources {
 public:
  template <typename Row>
  explicit CeilingSources(const std::vector<Row>& rows) {
    for (const Row& row : rows) {
      if (row.efficiency.ceiling && !row.efficiency.ceiling->source.empty()) {
        Add(row.efficiency.ceiling->source);
      }
    }
  }

  // " [2]" when the table has several sources; "" otherwise.
  std::string Citation(const std::string& source) const {
    if (sources_.size() < 2 || source.empty()) return "";
    const auto at = std::find(sources_.begin(), sources_.end(), source);
    return fmt::format(" [{}]", at - sources_.begin() + 1);
  }

  void AppendNotes(std::vector<std::string>& notes) const {
    if (sources_.size() == 1) notes.push_back("Ceiling: " + sources_.front());
    for (size_t i = 0; sources_.size() > 1 && i < sources_.size(); ++i) {
      notes.push_back(fmt::format("[{}] {}", i + 1, sources_[i]));
    }
  }

 private:
  void Add(const std::string& source) {
    if (std::find(sources_.begin(), sources_.end(), source) == sources_.end()) {
      sources_.push_back(source);
    }
  }
  std::vector<std::string> sources_;
};

std::string CeilingText(const EfficiencyInfo& info, const std::string& unit,
                        const CeilingSources& sources) {
  if (!info.ceiling) return "unknown";
  const Ceiling& ceiling = *info.ceiling;
  std::string text = ceiling.bytes_per_sec
                         ? Fixed(unit.empty() ? *ceiling.bytes_per_sec / 1e9
                                              : BytesPerSecToUnit(*ceiling.bytes_per_sec, unit),
                                 2)
                         : std::string("unknown");
  return text + sources.Citation(ceiling.source);
}

void AddEfficiencyCells(const EfficiencyInfo& info, const std::string& unit,
                        const CeilingSources& sources, std::vector<TableCell>& row) {
  row.push_back({CeilingText(info, unit, sources), std::nullopt});
  row.push_back({EfficiencyText(info.efficiency), std::nullopt});
}

RunTable BandwidthTable(const RunDocument& run) {
  const std::string unit(ShortUnit(run.bw_unit));
  RunTable table;
  table.caption = fmt::format("{} ({})", run.test, run.bw_unit);
  table.header = {"#bytes", fmt::format("BW peak [{}]", unit), fmt::format("BW average [{}]", unit),
                  "MsgRate [Mpps]"};
  const bool efficiency = AnyEfficiency(run.bandwidth);
  if (efficiency) {
    table.header.push_back(fmt::format("ceiling [{}]", unit));
    table.header.push_back("efficiency");
  }
  const CeilingSources sources(run.bandwidth);
  for (const BandwidthRow& r : run.bandwidth) {
    std::vector<TableCell> row = {{std::to_string(r.size), {}},
                                  {r.bw_peak ? Fixed(*r.bw_peak, 2) : "not measured", {}},
                                  {Fixed(r.bw_average, 2), {}},
                                  {Fixed(r.msg_rate_mpps, 6), {}}};
    if (efficiency) AddEfficiencyCells(r.efficiency, run.bw_unit, sources, row);
    table.rows.push_back(std::move(row));
  }
  sources.AppendNotes(table.notes);
  return table;
}

RunTable LatencyTable(const RunDocument& run) {
  RunTable table;
  table.caption = fmt::format("{} (usec)", run.test);
  const bool iterations = !run.latency.empty() && run.latency.front().t_min_us.has_value();
  table.header = iterations ? std::vector<std::string>{"#bytes", "t_min [usec]", "t_typical [usec]",
                                                       "t_avg [usec]", "99% [usec]",
                                                       "99.9% [usec]"}
                            : std::vector<std::string>{"#bytes", "t_avg [usec]"};
  const bool efficiency = AnyEfficiency(run.latency);
  if (efficiency) {
    table.header.push_back("ceiling [GB/s]");
    table.header.push_back("efficiency");
  }
  const CeilingSources sources(run.latency);
  for (const LatencyRow& r : run.latency) {
    std::vector<TableCell> row = {{std::to_string(r.size), {}}};
    if (iterations) {
      for (const auto& value : {r.t_min_us, r.t_typical_us, std::optional<double>(r.t_avg_us),
                                r.p99_us, r.p999_us}) {
        row.push_back({Optional(value), {}});
      }
    } else {
      row.push_back({Fixed(r.t_avg_us, 2), {}});
    }
    if (efficiency) AddEfficiencyCells(r.efficiency, "", sources, row);
    table.rows.push_back(std::move(row));
  }
  sources.AppendNotes(table.notes);
  return table;
}

const MatrixCell* FindCell(const RunDocument& run, const std::string& transport,
                           const std::string& direction, uint64_t block) {
  for (const MatrixCell& cell : run.cells) {
    if (cell.transport == transport && cell.direction == direction && cell.block_size == block) {
      return &cell;
    }
  }
  return nullptr;
}

std::string MedianText(const MatrixCell* cell) {
  if (cell == nullptr) return kNotInFile;
  if (cell->median_gbps) return Fixed(*cell->median_gbps, 2);
  return CellStatusText(*cell);
}

std::string CellEfficiencyText(const MatrixCell* cell) {
  if (cell == nullptr) return kNotInFile;
  if (!cell->median_gbps) return CellStatusText(*cell);
  return EfficiencyText(cell->efficiency.efficiency);
}

// One note per distinct (status, reason) of the cells without a median,
// naming the columns it covers: "n/a in D2rD shm, D2rH shm: <reason>".
std::vector<std::string> StatusNotes(const RunDocument& run) {
  std::vector<std::pair<std::string, std::string>> keys;  // first-seen order
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> columns;
  for (const std::string& direction : run.directions) {
    for (const std::string& transport : run.transports) {
      for (const MatrixCell& cell : run.cells) {
        if (cell.median_gbps || cell.direction != direction || cell.transport != transport) {
          continue;
        }
        const auto key = std::make_pair(CellStatusText(cell), cell.reason);
        auto [it, added] = columns.try_emplace(key);
        if (added) keys.push_back(key);
        const std::string column = direction + " " + transport;
        if (std::find(it->second.begin(), it->second.end(), column) == it->second.end()) {
          it->second.push_back(column);
        }
      }
    }
  }
  std::vector<std::string> notes;
  for (const auto& key : keys) {
    notes.push_back(fmt::format("{} in {}: {}", key.first, fmt::join(columns[key], ", "),
                                key.second.empty() ? "no reason given" : key.second));
  }
  return notes;
}

// "shm: <source>" for each transport whose cells name a ceiling source.
std::vector<std::string> MatrixCeilingNotes(const RunDocument& run) {
  std::vector<std::string> notes;
  for (const std::string& transport : run.transports) {
    std::vector<std::string> sources;
    for (const MatrixCell& cell : run.cells) {
      if (cell.transport != transport || !cell.efficiency.ceiling) continue;
      const std::string& source = cell.efficiency.ceiling->source;
      if (!source.empty() && std::find(sources.begin(), sources.end(), source) == sources.end()) {
        sources.push_back(source);
      }
    }
    for (const std::string& source : sources) {
      notes.push_back(source.starts_with(transport + ":") ? source : transport + ": " + source);
    }
  }
  return notes;
}

// `text_of` prints a cell; `heat` says whether cells carry their median.
template <typename TextOf>
RunTable MatrixGrid(const RunDocument& run, std::string caption, TextOf text_of, bool heat) {
  RunTable table;
  table.caption = std::move(caption);
  table.heat = heat;
  table.header = {"Block"};
  for (const std::string& direction : run.directions) {
    for (const std::string& transport : run.transports) {
      table.header.push_back(fmt::format("{}<br>{}", direction, transport));
    }
  }
  for (uint64_t block : run.block_sizes) {
    std::vector<TableCell> row = {{BinarySizeLabel(static_cast<double>(block)), {}}};
    for (const std::string& direction : run.directions) {
      for (const std::string& transport : run.transports) {
        const MatrixCell* cell = FindCell(run, transport, direction, block);
        row.push_back({text_of(cell), heat && cell != nullptr ? cell->median_gbps : std::nullopt});
      }
    }
    table.rows.push_back(std::move(row));
  }
  return table;
}

std::vector<RunTable> MatrixTables(const RunDocument& run) {
  std::vector<RunTable> tables;
  tables.push_back(MatrixGrid(run, "matrix: median GB/s (10^9 bytes/s)", MedianText, true));
  tables.back().notes = StatusNotes(run);
  bool efficiency = false;
  for (const MatrixCell& cell : run.cells) efficiency |= cell.efficiency.efficiency.has_value();
  if (efficiency) {
    tables.push_back(MatrixGrid(run, "matrix: efficiency against the ceiling", CellEfficiencyText,
                                false));
    tables.back().notes = MatrixCeilingNotes(run);
  }
  return tables;
}

// A heat map per direction and block: a row per source rank, a column per
// target rank, median GB/s coloured by value.
std::vector<RunTable> ClusterTables(const RunDocument& run) {
  std::vector<RunTable> tables;
  for (const ClusterHeatMap& map : run.heat_maps) {
    RunTable table;
    table.caption = fmt::format(
        "{}: {} {}: median GB/s (10^9 bytes/s), row: source rank, column: target rank",
        run.scheme, map.direction, BinarySizeLabel(static_cast<double>(map.block_size)));
    table.heat = true;
    table.header = {"source"};
    for (size_t target = 0; target < map.gbps.size(); ++target) {
      table.header.push_back(fmt::format("r{}", target));
    }
    for (size_t source = 0; source < map.gbps.size(); ++source) {
      const std::string host = source < run.rank_hosts.size() ? run.rank_hosts[source] : "";
      std::vector<TableCell> row = {{fmt::format("r{} ({})", source, host), {}}};
      for (const std::optional<double>& gbps : map.gbps[source]) {
        row.push_back({gbps ? fmt::format("{:.2f}", *gbps) : std::string("—"), gbps});
      }
      table.rows.push_back(std::move(row));
    }
    table.notes.push_back("—: the pair did not run (a rank into itself, or not in the scheme).");
    tables.push_back(std::move(table));
  }
  return tables;
}

}  // namespace

std::string EfficiencyText(const std::optional<double>& fraction) {
  return fraction ? fmt::format("{:.1f} %", *fraction * 100) : std::string("unknown");
}

std::vector<RunTable> RunTables(const RunDocument& run) {
  switch (run.kind) {
    case RunKind::kPerftestBandwidth: return {BandwidthTable(run)};
    case RunKind::kPerftestLatency: return {LatencyTable(run)};
    case RunKind::kMatrix: return MatrixTables(run);
    case RunKind::kCluster: return ClusterTables(run);
  }
  return {};
}

}  // namespace xfer::report
