// `xfer report` and `xfer compare` as a person meets them: real runs written
// with --json, turned into one HTML page, loaded in Debian's headless
// Chromium. The browser lays the page out, so the checks below are what it
// drew (sizes from layout, series it painted), not what the file claims.
// The test saves a screenshot in XFER_ARTIFACT_DIR for a person to look at.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "e2e/process.h"

namespace xfer::testing {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

constexpr const char* kBrowser = "chromium";

std::string Slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void Spit(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

bool BrowserInstalled() {
  return RunProgram(kBrowser, {"--version"}, 30s).exit_code == 0;
}

std::vector<std::string> BrowserArgs(const fs::path& profile) {
  return {"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
          "--hide-scrollbars", "--user-data-dir=" + profile.string()};
}

// Appended to a copy of the page: what the layout engine made of each plot,
// written into the DOM so that --dump-dom carries it out. The page itself
// has no script; this one exists only in the copy.
constexpr const char* kMeasure = R"(<script>
const plots = [...document.querySelectorAll('svg.plot')].map(svg => {
  const box = svg.getBoundingClientRect();
  const painted = g => { const b = g.getBBox(); return b.width > 0 || b.height > 0; };
  return {
    title: svg.querySelector('title').textContent,
    width: box.width, height: box.height,
    declared_series: Number(svg.dataset.series),
    series: svg.querySelectorAll('g.series').length,
    ceilings: svg.querySelectorAll('g.ceiling').length,
    painted: [...svg.querySelectorAll('g.series, g.ceiling')].filter(painted).length,
  };
});
const heated = [...document.querySelectorAll('table.matrix td')].filter(
    td => getComputedStyle(td).backgroundColor !== 'rgba(0, 0, 0, 0)').length;
const out = document.createElement('pre');
out.id = 'xfer-measure';
out.textContent = JSON.stringify({
  plots, heated, resources: performance.getEntriesByType('resource').length});
document.body.appendChild(out);
</script>
)";

std::string Unescape(std::string text) {
  const std::pair<const char*, const char*> entities[] = {
      {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&amp;", "&"}};
  for (const auto& [entity, plain] : entities) {
    for (size_t at; (at = text.find(entity)) != std::string::npos;) {
      text.replace(at, std::string(entity).size(), plain);
    }
  }
  return text;
}

class ReportE2e : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("xfer-report-e2e-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  void Xfer(const std::vector<std::string>& args) {
    ProcessResult run = RunXfer(args, 120s);
    ASSERT_EQ(run.exit_code, 0) << args.front() << ": " << run.err;
  }

  fs::path dir_;
};

TEST_F(ReportE2e, ASweepALatencyRunAndAMatrixRenderInChromium) {
  ASSERT_TRUE(BrowserInstalled())
      << "no '" << kBrowser << "' on PATH: scripts/setup.sh installs Debian's chromium";
  const std::string a = Path("a.json"), b = Path("b.json");
  const std::string lat = Path("lat.json"), matrix = Path("m.json");
  for (const std::string& file : {a, b}) {
    ASSERT_NO_FATAL_FAILURE(Xfer({"write_bw", "--loopback", "--transport", "shm", "-a", "-n",
                                  "50", "--efficiency", "--json", file}));
  }
  ASSERT_NO_FATAL_FAILURE(
      Xfer({"read_lat", "--loopback", "--transport", "shm", "-a", "-n", "50", "--json", lat}));
  ASSERT_NO_FATAL_FAILURE(Xfer({"matrix", "--loopback", "--transports", "shm,tcp", "--directions",
                                "H2rH,rH2H", "--block_sizes", "16K,64K", "--transfer_size", "4M",
                                "--loops", "3", "--efficiency", "--json", matrix}));
  const std::string page = Path("report.html");
  ASSERT_NO_FATAL_FAILURE(Xfer({"report", a, b, lat, matrix, "-o", page}));
  const std::string html = Slurp(page);

  const std::string measured_page = Path("measured.html");
  std::string copy = html;
  const size_t end = copy.rfind("</body>");
  ASSERT_NE(end, std::string::npos);
  copy.insert(end, kMeasure);
  Spit(measured_page, copy);
  std::vector<std::string> args = BrowserArgs(dir_ / "profile");
  args.push_back("--dump-dom");
  args.push_back("file://" + measured_page);
  ProcessResult dom = RunProgram(kBrowser, args, 90s);
  ASSERT_EQ(dom.exit_code, 0) << dom.err;
  const std::string open = "<pre id=\"xfer-measure\">";
  const size_t from = dom.out.find(open);
  ASSERT_NE(from, std::string::npos) << "the measuring script did not run:\n" << dom.out;
  const size_t to = dom.out.find("</pre>", from);
  const nlohmann::json seen =
      nlohmann::json::parse(Unescape(dom.out.substr(from + open.size(), to - from - open.size())));

  // Runs of one kind share axes: the two sweeps draw on the same three plots.
  struct Expected {
    const char* title;
    int series;
    int ceilings;
  };
  const Expected expected[] = {
      {"RDMA_Write_BW_Test: BW average", 2, 2},
      {"RDMA_Write_BW_Test: message rate", 2, 0},
      {"RDMA_Write_BW_Test: efficiency against the ceiling", 2, 0},
      {"RDMA_Read_Latency_Test: latency", 5, 0},
      // Its samples' distribution: a CDF for four of its 23 sizes, spread.
      {"RDMA_Read_Latency_Test: latency distribution, 2 bytes", 1, 0},
      {"RDMA_Read_Latency_Test: latency distribution, 256 bytes", 1, 0},
      {"RDMA_Read_Latency_Test: latency distribution, 32768 bytes", 1, 0},
      {"RDMA_Read_Latency_Test: latency distribution, 8388608 bytes", 1, 0},
      {"matrix: shm", 2, 2},
      {"matrix: shm efficiency against the ceiling", 2, 0},
      {"matrix: tcp", 2, 0},  // tcp records no ceiling
  };
  const nlohmann::json& plots = seen.at("plots");
  ASSERT_EQ(plots.size(), std::size(expected)) << seen.dump(1);
  for (size_t i = 0; i < plots.size(); ++i) {
    const nlohmann::json& plot = plots[i];
    SCOPED_TRACE(plot.dump());
    EXPECT_EQ(plot.at("title"), expected[i].title);
    EXPECT_GT(plot.at("width").get<double>(), 100);
    EXPECT_GT(plot.at("height").get<double>(), 100);
    EXPECT_EQ(plot.at("series"), expected[i].series);
    EXPECT_EQ(plot.at("declared_series"), expected[i].series);
    EXPECT_EQ(plot.at("ceilings"), expected[i].ceilings);
    EXPECT_EQ(plot.at("painted"), expected[i].series + expected[i].ceilings);
  }
  // Every matrix cell that ran (2 transports x 2 directions x 2 blocks) is coloured.
  EXPECT_EQ(seen.at("heated"), 8);
  // Self-contained: the page fetched nothing.
  EXPECT_EQ(seen.at("resources"), 0);

  // The screenshot of the page itself, for a person to look at.
  const fs::path shots = XFER_ARTIFACT_DIR;
  fs::create_directories(shots);
  const fs::path shot = shots / "report.png";
  fs::remove(shot);
  args = BrowserArgs(dir_ / "profile");
  args.push_back("--window-size=1280,2600");
  args.push_back("--screenshot=" + shot.string());
  args.push_back("file://" + page);
  ProcessResult picture = RunProgram(kBrowser, args, 90s);
  ASSERT_EQ(picture.exit_code, 0) << picture.err;
  const std::string png = Slurp(shot);
  ASSERT_GT(png.size(), 24u);
  EXPECT_EQ(png.substr(1, 3), "PNG");
  // IHDR: the width and height the window asked for, big-endian at 16 and 20.
  auto be32 = [&png](size_t at) {
    return (static_cast<uint32_t>(static_cast<uint8_t>(png[at])) << 24) |
           (static_cast<uint32_t>(static_cast<uint8_t>(png[at + 1])) << 16) |
           (static_cast<uint32_t>(static_cast<uint8_t>(png[at + 2])) << 8) |
           static_cast<uint32_t>(static_cast<uint8_t>(png[at + 3]));
  };
  EXPECT_EQ(be32(16), 1280u);
  EXPECT_EQ(be32(20), 2600u);
  std::printf("screenshot: %s\n", shot.c_str());

  // The two sweeps compared point by point.
  ProcessResult compared = RunXfer({"compare", a, b}, 30s);
  ASSERT_EQ(compared.exit_code, 0) << compared.err;
  EXPECT_NE(compared.out.find("Compared: RDMA_Write_BW_Test BW_average"), std::string::npos);
  EXPECT_NE(compared.out.find("\n8388608 "), std::string::npos) << compared.out;
  EXPECT_NE(compared.out.find("23 spread unknown, 0 not in both"), std::string::npos)
      << compared.out;
}

TEST_F(ReportE2e, ABadFileNamesItselfAndWritesNothing) {
  const std::string good = Path("good.json");
  ASSERT_NO_FATAL_FAILURE(Xfer({"write_bw", "--loopback", "--transport", "shm", "-s", "4096",
                                "-n", "50", "--json", good}));
  const std::string text = Slurp(good);
  const std::string truncated = Path("truncated.json");
  Spit(truncated, text.substr(0, text.size() / 2));
  const std::string foreign = Path("package.json");
  Spit(foreign, R"({"name": "left-pad", "version": "1.3.0"})");
  const std::string page = Path("out.html");

  ProcessResult run = RunXfer({"report", good, truncated, "-o", page}, 30s);
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.err.rfind("xfer: report: " + truncated + ": not valid JSON: ", 0), 0u) << run.err;
  EXPECT_FALSE(fs::exists(page));

  run = RunXfer({"report", foreign, "-o", page}, 30s);
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.err.rfind("xfer: report: " + foreign + ": not an xfer run: ", 0), 0u) << run.err;
  EXPECT_FALSE(fs::exists(page));

  run = RunXfer({"compare", good, Path("missing.json")}, 30s);
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find(Path("missing.json") + ": cannot read"), std::string::npos) << run.err;
  EXPECT_TRUE(run.out.empty()) << run.out;

  run = RunXfer({"report", good}, 30s);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("-o/--output: required"), std::string::npos) << run.err;

  // An existing page is left as it was when a later file is bad.
  Spit(page, "keep me");
  run = RunXfer({"report", good, foreign, "-o", page}, 30s);
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(Slurp(page), "keep me");
}

}  // namespace
}  // namespace xfer::testing
