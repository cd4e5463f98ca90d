// `xfer report --markdown` (report/markdown_report.h): the same tables as
// the HTML page, in the seeds' Markdown layout.
#include "report/markdown_report.h"

#include <gtest/gtest.h>

#include "report/run_builders.h"

namespace xfer::report {
namespace {

using testing::BandwidthJson;
using testing::MatrixJson;
using testing::Parse;

TEST(MarkdownReport, BandwidthTable) {
  nlohmann::json doc = BandwidthJson({{2, 1.0}, {4, 2.0}});
  doc["command_line"] = "xfer write_bw --loopback -s 2";
  const std::vector<RunDocument> runs = {Parse("a.json", doc)};
  EXPECT_EQ(RenderMarkdownReport(runs),
            "## a.json (bandwidth test)\n"
            "\n"
            "Command: ` xfer write_bw --loopback -s 2 `\n"
            "\n"
            "RDMA_Write_BW_Test (Gb/s (10^9 bit/s)):\n"
            "\n"
            "| #bytes | BW peak [Gb/s] | BW average [Gb/s] | MsgRate [Mpps] |\n"
            "| ---: | ---: | ---: | ---: |\n"
            "| 2 | 1.10 | 1.00 | 62.500000 |\n"
            "| 4 | 2.20 | 2.00 | 62.500000 |\n");
}

TEST(MarkdownReport, MatrixInTheSeedLayout) {
  const std::vector<RunDocument> runs = {Parse(
      "m.json", MatrixJson({{"shm", "H2rH", 16384, {1, 2, 3}}, {"tcp|x", "H2rH", 16384, {}}}))};
  EXPECT_EQ(RenderMarkdownReport(runs),
            "## m.json (matrix)\n"
            "\n"
            "Command: ` xfer matrix --loopback `\n"
            "\n"
            "matrix: median GB/s (10^9 bytes/s):\n"
            "\n"
            "| Block | H2rH<br>shm | H2rH<br>tcp\\|x |\n"
            "| ---: | ---: | ---: |\n"
            "| 16K | 2.00 | n/a |\n");
}

}  // namespace
}  // namespace xfer::report
