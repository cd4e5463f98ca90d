#include "report/efficiency_column.h"

#include <fmt/format.h>

#include <set>

#include "report/perftest_table.h"

namespace xfer::report {
namespace {

std::string WithoutNewline(std::string line) {
  if (!line.empty() && line.back() == '\n') line.pop_back();
  return line;
}

}  // namespace

std::string EfficiencyColumnHeader(bench::BwUnits units) {
  return fmt::format("{}   Ceiling[{}]   Efficiency\n", WithoutNewline(BwColumnHeader(units)),
                     BwUnitLabel(units));
}

std::string EfficiencyRow(const bench::BwResult& result, const bench::Ceiling* ceiling,
                          bench::BwUnits units) {
  const std::string row = WithoutNewline(BwRow(result, units));
  const std::optional<double> fraction =
      ceiling != nullptr ? ceiling->Efficiency(result.avg_bytes_per_s) : std::nullopt;
  if (!fraction) return fmt::format("{}   {:<16}   -\n", row, "unknown");
  return fmt::format("{}   {:<16.2f}   {:.1f} %\n", row,
                     ToReportUnits(*ceiling->bytes_per_s, units), *fraction * 100.0);
}

std::string CeilingSourceLines(const std::map<uint64_t, bench::Ceiling>& ceilings) {
  std::string out;
  std::set<std::string> printed;
  for (const auto& [size, ceiling] : ceilings) {
    if (printed.insert(ceiling.source).second) out += fmt::format(" Ceiling: {}\n", ceiling.source);
  }
  return out;
}

}  // namespace xfer::report
