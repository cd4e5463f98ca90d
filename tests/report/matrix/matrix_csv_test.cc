// The --csv report: the golden rendering of the sample run, and the file
// read back with an RFC 4180 parser written here.
#include "report/matrix/matrix_csv.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "report/matrix/matrix_fixture.h"

namespace xfer::report {
namespace {

using matrix::CellStatus;
using testing::SampleRun;
using Record = std::vector<std::string>;

// RFC 4180 records; LF or CRLF ends a record outside quotes.
std::vector<Record> ParseCsv(const std::string& text) {
  std::vector<Record> records;
  Record record;
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      record.push_back(field);
      field.clear();
    } else if (c == '\n') {
      if (!field.empty() && field.back() == '\r') field.pop_back();
      record.push_back(field);
      field.clear();
      records.push_back(record);
      record.clear();
    } else {
      field += c;
    }
  }
  EXPECT_TRUE(field.empty() && record.empty()) << "last record not terminated";
  return records;
}

// Each data record as column name -> value.
std::vector<std::map<std::string, std::string>> Rows(const std::string& text) {
  const std::vector<Record> records = ParseCsv(text);
  std::vector<std::map<std::string, std::string>> rows;
  for (size_t r = 1; r < records.size(); ++r) {
    EXPECT_EQ(records[r].size(), records[0].size()) << "record " << r;
    std::map<std::string, std::string> row;
    for (size_t i = 0; i < records[r].size() && i < records[0].size(); ++i) {
      row[records[0][i]] = records[r][i];
    }
    rows.push_back(row);
  }
  return rows;
}

TEST(MatrixCsvTest, MatchesGolden) {
  testing::ExpectGolden("matrix.csv.golden", RenderMatrixCsv(SampleRun()));
}

TEST(MatrixCsvTest, HeaderNamesEveryColumnWithItsUnit) {
  const std::vector<Record> records = ParseCsv(RenderMatrixCsv(SampleRun()));
  ASSERT_FALSE(records.empty());
  EXPECT_EQ(records[0], (Record{"direction",
                                "op",
                                "initiator_memory",
                                "target_memory",
                                "transport",
                                "block_size_bytes",
                                "block_label",
                                "transfer_size_bytes",
                                "entries_per_sample",
                                "requests",
                                "path_transport",
                                "path_streams",
                                "status",
                                "median_GB_per_s",
                                "min_GB_per_s",
                                "max_GB_per_s",
                                "samples",
                                "warmup_samples",
                                "verified",
                                "reason"}));
}

TEST(MatrixCsvTest, OneRowPerCellIncludingNotRun) {
  const matrix::MatrixRun run = SampleRun();
  const auto rows = Rows(RenderMatrixCsv(run));
  ASSERT_EQ(rows.size(), run.cells.size());
  std::map<std::string, size_t> statuses;
  for (const auto& row : rows) ++statuses[row.at("status")];
  EXPECT_EQ(statuses["ok"], 10u);
  EXPECT_EQ(statuses["unsupported"], 36u);
  EXPECT_EQ(statuses["failed"], 1u);
  EXPECT_EQ(statuses["not run"], 1u);
}

TEST(MatrixCsvTest, MeasuredRowCarriesNumbersAndPath) {
  const matrix::MatrixRun run = SampleRun();
  const auto rows = Rows(RenderMatrixCsv(run));
  const auto& row = rows[run.CellIndex(0, 2, 1)];  // shm H2rH 64K
  EXPECT_EQ(row.at("direction"), "H2rH");
  EXPECT_EQ(row.at("op"), "write");
  EXPECT_EQ(row.at("initiator_memory"), "host");
  EXPECT_EQ(row.at("block_size_bytes"), "65536");
  EXPECT_EQ(row.at("block_label"), "64K");
  EXPECT_EQ(row.at("transfer_size_bytes"), "134217728");
  EXPECT_EQ(row.at("entries_per_sample"), "2048");
  EXPECT_EQ(row.at("requests"), "1");
  EXPECT_EQ(row.at("path_transport"), "shm");
  EXPECT_EQ(row.at("path_streams"), "1");
  EXPECT_EQ(row.at("median_GB_per_s"), "9.800000");
  EXPECT_EQ(row.at("min_GB_per_s"), "9.310000");
  EXPECT_EQ(row.at("max_GB_per_s"), "9.996000");
  EXPECT_EQ(row.at("samples"), "5");
  EXPECT_EQ(row.at("warmup_samples"), "1");
  EXPECT_EQ(row.at("verified"), "true");
  EXPECT_EQ(row.at("reason"), "");
  EXPECT_EQ(rows[run.CellIndex(0, 6, 2)].at("verified"), "false");
  EXPECT_EQ(rows[run.CellIndex(0, 6, 2)].at("op"), "read");
}

TEST(MatrixCsvTest, FieldsThatDoNotApplyAreEmpty) {
  matrix::MatrixRun run = SampleRun();
  run.cells[run.CellIndex(0, 0, 0)].verified.reset();
  const auto rows = Rows(RenderMatrixCsv(run));
  const auto& unsupported = rows[run.CellIndex(0, 0, 0)];
  EXPECT_EQ(unsupported.at("status"), "unsupported");
  for (const char* column : {"path_transport", "path_streams", "median_GB_per_s", "min_GB_per_s",
                             "max_GB_per_s", "samples", "warmup_samples", "verified"}) {
    EXPECT_EQ(unsupported.at(column), "") << column;
  }
  EXPECT_NE(unsupported.at("reason"), "");
  const auto& failed = rows[run.CellIndex(1, 6, 1)];
  EXPECT_EQ(failed.at("median_GB_per_s"), "");
  EXPECT_EQ(failed.at("samples"), "2");
  EXPECT_EQ(failed.at("path_transport"), "tcp");
  const auto& not_run = rows[run.CellIndex(1, 6, 2)];
  EXPECT_EQ(not_run.at("status"), "not run");
  EXPECT_EQ(not_run.at("samples"), "");
  EXPECT_EQ(not_run.at("entries_per_sample"), "64");
}

TEST(MatrixCsvTest, QuotesFieldsThatNeedIt) {
  EXPECT_EQ(CsvField("plain"), "plain");
  EXPECT_EQ(CsvField(""), "");
  EXPECT_EQ(CsvField("a,b"), "\"a,b\"");
  EXPECT_EQ(CsvField("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(CsvField("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(CsvField("cr\r"), "\"cr\r\"");

  matrix::MatrixRun run = SampleRun();
  const std::string reason = "connect, \"tcp\" said:\nrefused";
  run.cells[run.CellIndex(1, 6, 1)].reason = reason;
  const auto rows = Rows(RenderMatrixCsv(run));
  ASSERT_EQ(rows.size(), run.cells.size());
  EXPECT_EQ(rows[run.CellIndex(1, 6, 1)].at("reason"), reason);
}

}  // namespace
}  // namespace xfer::report
