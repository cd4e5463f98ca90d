#include "report/run_tables.h"

#include <fmt/format.h>

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

// "unknown (tcp: not measured)" keeps the file's reason for an unknown.
std::string CeilingText(const EfficiencyInfo& info, const std::string& unit) {
  if (!info.ceiling) return "unknown";
  const Ceiling& ceiling = *info.ceiling;
  std::string text = ceiling.bytes_per_sec
                         ? Fixed(unit.empty() ? *ceiling.bytes_per_sec / 1e9
                                              : BytesPerSecToUnit(*ceiling.bytes_per_sec, unit),
                                 2)
                         : std::string("unknown");
  if (!ceiling.source.empty()) text += fmt::format(" ({})", ceiling.source);
  return text;
}

void AddEfficiencyCells(const EfficiencyInfo& info, const std::string& unit,
                        std::vector<TableCell>& row) {
  row.push_back({CeilingText(info, unit), std::nullopt});
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
  for (const BandwidthRow& r : run.bandwidth) {
    std::vector<TableCell> row = {{std::to_string(r.size), {}},
                                  {Fixed(r.bw_peak, 2), {}},
                                  {Fixed(r.bw_average, 2), {}},
                                  {Fixed(r.msg_rate_mpps, 6), {}}};
    if (efficiency) AddEfficiencyCells(r.efficiency, run.bw_unit, row);
    table.rows.push_back(std::move(row));
  }
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
    if (efficiency) AddEfficiencyCells(r.efficiency, "", row);
    table.rows.push_back(std::move(row));
  }
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
  return cell->status;
}

std::string CellEfficiencyText(const MatrixCell* cell) {
  if (cell == nullptr) return kNotInFile;
  if (!cell->median_gbps) return cell->status;
  return EfficiencyText(cell->efficiency.efficiency);
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
  bool efficiency = false;
  for (const MatrixCell& cell : run.cells) efficiency |= cell.efficiency.efficiency.has_value();
  if (efficiency) {
    tables.push_back(MatrixGrid(run, "matrix: efficiency against the ceiling", CellEfficiencyText,
                                false));
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
  }
  return {};
}

}  // namespace xfer::report
