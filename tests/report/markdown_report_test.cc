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
            "Command: `xfer write_bw --loopback -s 2`\n"
            "\n"
            "RDMA_Write_BW_Test (Gb/s (10^9 bit/s)):\n"
            "\n"
            "| #bytes | BW peak [Gb/s] | BW average [Gb/s] | MsgRate [Mpps] |\n"
            "| ---: | ---: | ---: | ---: |\n"
            "| 2 | 1.10 | 1.00 | 62.500000 |\n"
            "| 4 | 2.20 | 2.00 | 62.500000 |\n");
}

TEST(MarkdownReport, AnIncompleteRunSaysSoAboveItsTable) {
  nlohmann::json doc = BandwidthJson({{2, 1.0}});
  doc["outcome"] = "interrupted";
  doc["error"] = "interrupted by SIGINT after 1 of 23 sizes";
  const std::vector<RunDocument> runs = {Parse("a.json", doc)};
  const std::string text = RenderMarkdownReport(runs);
  EXPECT_NE(text.find("## a.json (bandwidth test)\n\n**Incomplete run (interrupted): interrupted "
                      "by SIGINT after 1 of 23 sizes; only what finished is shown.**\n\n"),
            std::string::npos)
      << text;
}

TEST(MarkdownReport, MatrixInTheSeedLayout) {
  const std::vector<RunDocument> runs = {Parse(
      "m.json", MatrixJson({{"shm", "H2rH", 16384, {1, 2, 3}}, {"tcp|x", "H2rH", 16384, {}}}))};
  EXPECT_EQ(RenderMarkdownReport(runs),
            "## m.json (matrix)\n"
            "\n"
            "Command: `xfer matrix --loopback`\n"
            "\n"
            "matrix: median GB/s (10^9 bytes/s):\n"
            "\n"
            "| Block | H2rH<br>shm | H2rH<br>tcp\\|x |\n"
            "| ---: | ---: | ---: |\n"
            "| 16K | 2.00 | n/a |\n"
            "\n"
            "- n/a in H2rH tcp\\|x: no device memory\n");
}

TEST(MarkdownReport, ACeilingSourceIsANoteNotACell) {
  nlohmann::json doc = BandwidthJson({{2, 1.0}, {4, 2.0}, {8, 3.0}});
  doc["results"][0]["ceiling"] = {{"bytes_per_sec", 1.25e9}, {"source", "10G port"}};
  doc["results"][0]["efficiency"] = 0.1;
  doc["results"][1]["ceiling"] = {{"bytes_per_sec", 1.25e9}, {"source", "10G port"}};
  doc["results"][1]["efficiency"] = 0.2;
  const std::string one_source = RenderMarkdownReport(std::vector{Parse("a.json", doc)});
  EXPECT_NE(one_source.find("| 2 | 1.10 | 1.00 | 62.500000 | 10.00 | 10.0 % |\n"),
            std::string::npos)
      << one_source;
  EXPECT_NE(one_source.find("| 8 | 3.30 | 3.00 | 46.875000 | unknown | unknown |\n"),
            std::string::npos)
      << one_source;
  EXPECT_NE(one_source.find("\n- Ceiling: 10G port\n"), std::string::npos) << one_source;

  doc["results"][1]["ceiling"]["source"] = "PCIe 2.0 x4";
  const std::string two_sources = RenderMarkdownReport(std::vector{Parse("a.json", doc)});
  EXPECT_NE(two_sources.find("| 10.00 [1] | 10.0 % |"), std::string::npos) << two_sources;
  EXPECT_NE(two_sources.find("| 10.00 [2] | 20.0 % |"), std::string::npos) << two_sources;
  EXPECT_NE(two_sources.find("\n- [1] 10G port\n- [2] PCIe 2.0 x4\n"), std::string::npos)
      << two_sources;
}

TEST(MarkdownReport, ACommandWithBackticksStaysOneCodeSpan) {
  nlohmann::json doc = BandwidthJson({{2, 1.0}});
  doc["command_line"] = "`echo` x";
  const std::string text = RenderMarkdownReport(std::vector{Parse("a.json", doc)});
  EXPECT_NE(text.find("Command: `` `echo` x ``\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace xfer::report
