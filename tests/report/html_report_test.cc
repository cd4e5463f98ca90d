// Golden structure of `xfer report`'s HTML page (report/html/html_report.h):
// the tables, the number of series per plot, the axis ranges, and that the
// page is self-contained.
#include "report/html/html_report.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "report/html/svg_plot.h"
#include "report/run_builders.h"

namespace xfer::report {
namespace {

using testing::BandwidthJson;
using testing::MatrixJson;
using testing::Parse;
using testing::ReadTestData;
using nlohmann::json;

RunDocument Sample(const std::string& name) {
  auto run = ParseRunDocument(name, ReadTestData(name));
  EXPECT_TRUE(run.ok()) << run.status().message();
  return run.ok() ? *run : RunDocument{};
}

// The attributes of every <svg class="plot">, in page order.
struct PlotInfo {
  std::string title;
  int series = 0;
  int ceilings = 0;
  std::string x_min, x_max, y_min, y_max;
};

// The value of `name="..."` inside `tag`; "" when absent. (No std::regex:
// g++ 12 warns inside it under ASan, and warnings are errors.)
std::string Attribute(const std::string& tag, const std::string& name) {
  const std::string key = " " + name + "=\"";
  const size_t at = tag.find(key);
  if (at == std::string::npos) return "";
  const size_t from = at + key.size();
  return tag.substr(from, tag.find('"', from) - from);
}

std::vector<PlotInfo> Plots(const std::string& html) {
  std::vector<PlotInfo> out;
  const std::string open = "<svg class=\"plot\"";
  for (size_t at = html.find(open); at != std::string::npos; at = html.find(open, at + 1)) {
    const std::string tag = html.substr(at, html.find('>', at) - at);
    const size_t title = html.find("<title>", at) + 7;
    out.push_back({html.substr(title, html.find("</title>", title) - title),
                   std::stoi(Attribute(tag, "data-series")),
                   std::stoi(Attribute(tag, "data-ceilings")), Attribute(tag, "data-x-min"),
                   Attribute(tag, "data-x-max"), Attribute(tag, "data-y-min"),
                   Attribute(tag, "data-y-max")});
  }
  return out;
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(HtmlReport, IsSelfContained) {
  const std::vector<RunDocument> runs = {Sample("write_bw.json"), Sample("matrix.json")};
  const std::string html = RenderHtmlReport(runs);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(Count(html, "<script"), 0u);
  EXPECT_EQ(Count(html, "<link"), 0u);
  EXPECT_EQ(Count(html, "src="), 0u);
  EXPECT_EQ(Count(html, "url("), 0u);
  EXPECT_EQ(Count(html, "@import"), 0u);
  // The only http:// is the SVG namespace name, which is never fetched.
  EXPECT_EQ(Count(html, "http"), Count(html, "xmlns=\"http://www.w3.org/2000/svg\""));
}

TEST(HtmlReport, BandwidthSweepPlotsAndTable) {
  const std::vector<RunDocument> runs = {Sample("write_bw.json")};
  const std::string html = RenderHtmlReport(runs);
  const std::vector<PlotInfo> plots = Plots(html);
  ASSERT_EQ(plots.size(), 2u);
  EXPECT_EQ(plots[0].title, "RDMA_Write_BW_Test: BW average");
  EXPECT_EQ(plots[0].series, 1);
  EXPECT_EQ(plots[0].ceilings, 0);  // this file records no ceiling
  EXPECT_EQ(plots[0].x_min, "2");
  EXPECT_EQ(plots[0].x_max, "8388608");
  EXPECT_EQ(plots[0].y_min, "0");
  EXPECT_EQ(plots[1].title, "RDMA_Write_BW_Test: message rate");
  EXPECT_NE(html.find("BW average [MiB/s (2^20 bytes/s)]"), std::string::npos);
  EXPECT_NE(html.find("message size [bytes, 1K = 1024]"), std::string::npos);
  EXPECT_EQ(Count(html, "<table class=\"results\">"), 1u);
  // Header plus one row per message size.
  EXPECT_NE(html.find("<th>#bytes</th><th>BW peak [MiB/s]</th><th>BW average [MiB/s]</th>"
                      "<th>MsgRate [Mpps]</th></tr>"),
            std::string::npos);
  EXPECT_NE(html.find("<tr><td>8388608</td>"), std::string::npos);
  EXPECT_NE(html.find("No command line in this file."), std::string::npos);
}

TEST(HtmlReport, AxisRangesFollowTheData) {
  const std::vector<RunDocument> runs = {
      Parse("a.json", BandwidthJson({{4, 3.0}, {64, 7.5}, {1000, 11.0}}))};
  const std::vector<PlotInfo> plots = Plots(RenderHtmlReport(runs));
  ASSERT_EQ(plots.size(), 2u);
  // x: the powers of two around 4..1000; y: 0 up to a 1-2-5 step above 11.
  EXPECT_EQ(plots[0].x_min, "4");
  EXPECT_EQ(plots[0].x_max, "1024");
  EXPECT_EQ(plots[0].y_min, "0");
  EXPECT_EQ(plots[0].y_max, "12");
}

TEST(HtmlReport, TwoRunsShareAxesAndCeilingsAreDashed) {
  json with_ceiling = BandwidthJson({{2, 1.0}, {4, 2.0}, {8, 4.0}});
  with_ceiling["results"][1]["ceiling"] = {{"bytes_per_sec", 1.25e9}, {"source", "10G port"}};
  with_ceiling["results"][1]["efficiency"] = 0.2;
  with_ceiling["results"][2]["ceiling"] = {{"bytes_per_sec", 1.25e9}, {"source", "10G port"}};
  with_ceiling["results"][2]["efficiency"] = 0.4;
  with_ceiling["results"][0]["ceiling"] = {{"bytes_per_sec", nullptr}, {"source", "unknown"}};
  const std::vector<RunDocument> runs = {Parse("a.json", with_ceiling),
                                         Parse("b.json", BandwidthJson({{2, 1.5}, {4, 2.5}}))};
  const std::string html = RenderHtmlReport(runs);
  const std::vector<PlotInfo> plots = Plots(html);
  ASSERT_EQ(plots.size(), 3u);
  EXPECT_EQ(plots[0].series, 2);
  EXPECT_EQ(plots[0].ceilings, 1);
  // The efficiency: one line, a.json's, through its two known rows (20 %, 40 %).
  EXPECT_EQ(plots[2].title, "RDMA_Write_BW_Test: efficiency against the ceiling");
  EXPECT_EQ(plots[2].series, 1);
  EXPECT_EQ(plots[2].y_max, "40");
  EXPECT_NE(html.find("<g class=\"series\" data-name=\"a.json: efficiency\" data-points=\"2\">"),
            std::string::npos);
  EXPECT_EQ(plots[0].y_max, "10");  // the 10 Gb/s ceiling sets the range
  EXPECT_EQ(plots[1].series, 2);
  EXPECT_NE(html.find("data-name=\"a.json: BW average\""), std::string::npos);
  EXPECT_NE(html.find("data-name=\"b.json: BW average\""), std::string::npos);
  EXPECT_NE(html.find("<g class=\"ceiling\" data-name=\"a.json: ceiling\" data-points=\"2\">"),
            std::string::npos);
  EXPECT_NE(html.find("stroke-dasharray"), std::string::npos);
  // The efficiency columns, with the unknown kept as unknown.
  EXPECT_NE(html.find("<th>ceiling [Gb/s]</th><th>efficiency</th>"), std::string::npos);
  EXPECT_NE(html.find("<td>10.00 [2]</td><td>20.0 %</td>"), std::string::npos);
  EXPECT_NE(html.find("<td>unknown [1]</td><td>unknown</td>"), std::string::npos);
  EXPECT_NE(html.find("<ul class=\"notes\">\n<li>[1] unknown</li>\n<li>[2] 10G port</li>"),
            std::string::npos);
}

TEST(HtmlReport, LatencyPercentiles) {
  const std::vector<RunDocument> runs = {Sample("read_lat.json")};
  const std::string html = RenderHtmlReport(runs);
  const std::vector<PlotInfo> plots = Plots(html);
  ASSERT_EQ(plots.size(), 1u);
  EXPECT_EQ(plots[0].title, "RDMA_Read_Latency_Test: latency");
  EXPECT_EQ(plots[0].series, 5);  // t_avg, t_min, t_typical, 99%, 99.9%
  EXPECT_NE(html.find("data-name=\"read_lat.json: 99.9%\""), std::string::npos);
  EXPECT_NE(html.find("<th>99.9% [usec]</th>"), std::string::npos);
}

// Latency runs with distributions get a CDF per message size, the runs side
// by side, on a log axis of microseconds read as numbers.
TEST(HtmlReport, LatencyDistributionsArePlottedSideBySide) {
  json fast = json::parse(testing::ReadTestData("read_lat.json"));
  json slow = fast;
  fast["results"][0]["distribution"] = testing::LatencyDistributionJson(1600);
  slow["results"][0]["distribution"] = testing::LatencyDistributionJson(6400);
  const std::vector<RunDocument> runs = {Parse("fast.json", fast), Parse("slow.json", slow)};
  const std::string html = RenderHtmlReport(runs);
  const std::vector<PlotInfo> plots = Plots(html);
  const auto cdf = std::find_if(plots.begin(), plots.end(), [](const PlotInfo& plot) {
    return plot.title == "RDMA_Read_Latency_Test: latency distribution, 2 bytes";
  });
  ASSERT_NE(cdf, plots.end()) << html;
  EXPECT_EQ(cdf->series, 2);
  EXPECT_EQ(cdf->y_max, "1");
  EXPECT_NE(html.find("data-name=\"fast.json\""), std::string::npos);
  EXPECT_NE(html.find("samples at or below [fraction]"), std::string::npos);
  // One plot per size that has a distribution: only the 2-byte rows do.
  EXPECT_EQ(std::count_if(plots.begin(), plots.end(),
                          [](const PlotInfo& plot) {
                            return plot.title.find("latency distribution") != std::string::npos;
                          }),
            1);
}

TEST(HtmlReport, MatrixHeatTableAndOnePlotPerTransport) {
  const RunDocument matrix = Sample("matrix.json");
  const std::vector<RunDocument> runs = {matrix};
  const std::string html = RenderHtmlReport(runs);
  EXPECT_EQ(Count(html, "<table class=\"matrix\">"), 1u);
  // A column per direction x transport, a row per block size.
  EXPECT_NE(html.find("<th>Block</th><th>D2rD<br>shm</th><th>D2rD<br>tcp</th>"), std::string::npos);
  EXPECT_NE(html.find("<tr><td>2M</td>"), std::string::npos);
  EXPECT_GT(Count(html, "style=\"background:hsl("), 0u);
  const std::vector<PlotInfo> plots = Plots(html);
  ASSERT_EQ(plots.size(), 2u);
  EXPECT_EQ(plots[0].title, "matrix: shm");
  EXPECT_EQ(plots[1].title, "matrix: tcp");
  // One line per direction that measured anything (device memory is n/a here).
  for (const PlotInfo& plot : plots) {
    int measured = 0;
    for (const std::string& direction : matrix.directions) {
      for (const MatrixCell& cell : matrix.cells) {
        if (cell.direction == direction && cell.median_gbps &&
            cell.transport == plot.title.substr(8)) {
          ++measured;
          break;
        }
      }
    }
    EXPECT_EQ(plot.series, measured) << plot.title;
    EXPECT_GT(plot.series, 0) << plot.title;
    EXPECT_EQ(plot.x_min, "16384");
    EXPECT_EQ(plot.x_max, "2097152");
  }
  EXPECT_NE(html.find("<table class=\"fingerprint\">"), std::string::npos);
  EXPECT_NE(html.find("hosts.initiator.hostname"), std::string::npos);
}

TEST(HtmlReport, TwoMatricesShareEachTransportPlot) {
  const std::vector<RunDocument> runs = {
      Parse("a.json", MatrixJson({{"shm", "H2rH", 16384, {1, 2, 3}}, {"shm", "H2rH", 65536, {4, 5, 6}}})),
      Parse("b.json", MatrixJson({{"shm", "H2rH", 16384, {2, 3, 4}}, {"tcp", "H2rH", 16384, {1, 1, 1}}}))};
  const std::vector<PlotInfo> plots = Plots(RenderHtmlReport(runs));
  ASSERT_EQ(plots.size(), 2u);
  EXPECT_EQ(plots[0].title, "matrix: shm");
  EXPECT_EQ(plots[0].series, 2);
  EXPECT_EQ(plots[1].title, "matrix: tcp");
  EXPECT_EQ(plots[1].series, 1);
}

TEST(HtmlReport, MatrixEfficiencyPlotFollowsItsTransport) {
  json doc = MatrixJson({{"shm", "H2rH", 16384, {8, 9, 10}},
                         {"shm", "H2rH", 65536, {10, 11, 12}},
                         {"shm", "rH2H", 16384, {6, 7, 8}},
                         {"tcp", "H2rH", 16384, {1, 1, 1}}});
  for (size_t i = 0; i < 3; ++i) {
    doc["cells"][i]["ceiling"] = {{"bytes_per_sec", 20e9}, {"source", "shm: memcpy"}};
    doc["cells"][i]["efficiency"] = doc["cells"][i]["median_gbps"].get<double>() / 20;
  }
  doc["cells"][3]["ceiling"] = {{"bytes_per_sec", nullptr}, {"source", "tcp: unknown"}};
  const std::string html = RenderHtmlReport(std::vector{Parse("m.json", doc)});
  const std::vector<PlotInfo> plots = Plots(html);
  // shm has a bandwidth and an efficiency plot; tcp, which knows no ceiling, only the first.
  ASSERT_EQ(plots.size(), 3u);
  EXPECT_EQ(plots[0].title, "matrix: shm");
  EXPECT_EQ(plots[0].series, 2);
  EXPECT_EQ(plots[0].ceilings, 2);
  EXPECT_EQ(plots[1].title, "matrix: shm efficiency against the ceiling");
  EXPECT_EQ(plots[1].series, 2);
  EXPECT_EQ(plots[1].ceilings, 0);
  EXPECT_EQ(plots[1].y_max, "60");  // 11 / 20 = 55 %
  EXPECT_EQ(plots[2].title, "matrix: tcp");
  EXPECT_EQ(plots[2].ceilings, 0);
  EXPECT_NE(html.find("<li>shm: memcpy</li>"), std::string::npos);
  EXPECT_NE(html.find("<li>tcp: unknown</li>"), std::string::npos);
}

// --timeline's record becomes a plot of its own: a line per rail against
// linear time from 0, in Gb/s, and a dashed marker where rail 1 went down.
TEST(HtmlReport, ARailTimelineIsPlottedOverTimeWithTheLossMarked) {
  json doc = BandwidthJson({{1 << 20, 1.5}});
  doc["rail_timeline"] = testing::RailTimelineJson(10, 12'500'000, true);
  const std::vector<RunDocument> runs = {Parse("t.json", doc)};
  const std::string html = RenderHtmlReport(runs);
  const std::vector<PlotInfo> plots = Plots(html);
  const auto timeline = std::find_if(plots.begin(), plots.end(), [](const PlotInfo& plot) {
    return plot.title == "t.json: Gb/s per rail every 100 ms";
  });
  ASSERT_NE(timeline, plots.end()) << html;
  EXPECT_EQ(timeline->series, 2);
  EXPECT_EQ(timeline->x_min, "0");
  EXPECT_EQ(timeline->x_max, "1");  // 1.0 s of samples, on 1-2-5 ticks
  EXPECT_EQ(timeline->y_max, "1");  // 1 Gb/s per rail, the top tick
  EXPECT_EQ(Count(html, "<g class=\"marker\" data-name=\"rail 1 down at 0.251 s\" "
                        "data-x=\"0.2505\">"),
            1u)
      << html;
  EXPECT_NE(html.find("data-markers=\"1\""), std::string::npos);
  EXPECT_NE(html.find("data-name=\"rail 1: 10.0.2.1-&gt;10.0.2.2\""), std::string::npos);
  // A rail that came back is marked where it was up again too.
  doc["rail_timeline"]["recoveries"][0]["up_ms"] = 720.0;
  const std::vector<RunDocument> back_runs = {Parse("b.json", doc)};
  const std::string back = RenderHtmlReport(back_runs);
  EXPECT_EQ(Count(back, "<g class=\"marker\" data-name=\"rail 1 up again at 0.720 s\" "
                        "data-x=\"0.72\">"),
            1u)
      << back;
  EXPECT_NE(back.find("data-markers=\"2\""), std::string::npos);
  // Without a timeline, no such plot.
  const std::vector<RunDocument> plain_runs = {Parse("p.json", BandwidthJson({{1 << 20, 1.5}}))};
  const std::string plain = RenderHtmlReport(plain_runs);
  EXPECT_EQ(plain.find("per rail every"), std::string::npos);
}

TEST(HtmlReport, TextFromTheFileIsEscaped) {
  json doc = BandwidthJson({{2, 1.0}});
  doc["command_line"] = "xfer <script>alert(1)</script>";
  const std::vector<RunDocument> runs = {Parse("<b>.json", doc)};
  const std::string html = RenderHtmlReport(runs);
  EXPECT_EQ(Count(html, "<script"), 0u);
  EXPECT_NE(html.find("xfer &lt;script&gt;"), std::string::npos);
  EXPECT_NE(html.find("&lt;b&gt;.json"), std::string::npos);
}

TEST(SvgPlot, BinarySizeLabels) {
  EXPECT_EQ(BinarySizeLabel(2), "2");
  EXPECT_EQ(BinarySizeLabel(512), "512");
  EXPECT_EQ(BinarySizeLabel(1024), "1K");
  EXPECT_EQ(BinarySizeLabel(65536), "64K");
  EXPECT_EQ(BinarySizeLabel(8388608), "8M");
  EXPECT_EQ(BinarySizeLabel(1000), "1000");
}

}  // namespace
}  // namespace xfer::report
