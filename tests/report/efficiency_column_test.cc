// --efficiency: perftest's row with the ceiling and the fraction appended,
// and the default table untouched.
#include "report/efficiency_column.h"

#include <gtest/gtest.h>

#include "report/perftest_table.h"

namespace xfer::report {
namespace {

const bench::BwResult kRow{65536, 5000, 0, 1048576.0 * 1000.0, 0.016};

TEST(EfficiencyColumn, HeaderAndRowExtendPerftestsByteForByte) {
  const std::string header = EfficiencyColumnHeader(bench::BwUnits::kMiBps);
  std::string perftest = BwColumnHeader(bench::BwUnits::kMiBps);
  perftest.pop_back();
  EXPECT_EQ(header.rfind(perftest, 0), 0u);
  EXPECT_NE(header.find("Ceiling[MiB/sec]   Efficiency"), std::string::npos);

  const bench::Ceiling ceiling{1048576.0 * 4000.0, "single-core memcpy"};
  const std::string row = EfficiencyRow(kRow, &ceiling, bench::BwUnits::kMiBps);
  std::string plain = BwRow(kRow, bench::BwUnits::kMiBps);
  plain.pop_back();
  EXPECT_EQ(row.rfind(plain, 0), 0u);
  EXPECT_NE(row.find("4000.00"), std::string::npos) << row;
  EXPECT_NE(row.find("25.0 %"), std::string::npos) << row;
}

TEST(EfficiencyColumn, GbitsRowsStateTheCeilingInGbits) {
  const bench::Ceiling ceiling{12.5e9, "port"};  // 100 Gb/s
  const std::string row = EfficiencyRow(kRow, &ceiling, bench::BwUnits::kGbps);
  EXPECT_NE(row.find("100.00"), std::string::npos) << row;
}

TEST(EfficiencyColumn, AnUnknownCeilingPrintsNoFraction) {
  const bench::Ceiling unknown = bench::Ceiling::Unknown("tcp: socket stack");
  EXPECT_NE(EfficiencyRow(kRow, &unknown, bench::BwUnits::kMiBps).find("unknown            -"),
            std::string::npos);
  EXPECT_NE(EfficiencyRow(kRow, nullptr, bench::BwUnits::kMiBps).find("unknown"),
            std::string::npos);
}

TEST(EfficiencyColumn, EachSourceIsNamedOnce) {
  const std::map<uint64_t, bench::Ceiling> ceilings = {
      {2, {1e9, "memcpy"}}, {4, {2e9, "memcpy"}}, {8, bench::Ceiling::Unknown("other")}};
  EXPECT_EQ(CeilingSourceLines(ceilings), " Ceiling: memcpy\n Ceiling: other\n");
  EXPECT_EQ(CeilingSourceLines({}), "");
}

}  // namespace
}  // namespace xfer::report
