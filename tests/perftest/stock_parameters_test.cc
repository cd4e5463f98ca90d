// What xfer sends in perftest 6.28+'s negotiation must equal what stock
// perftest sends for the same command line, or a stock peer refuses to run.
// The expected values below are stock perftest 6.29's, recorded in the
// Soft-RoCE VM (RoCE path MTU 1024) by capturing the 320-byte message each
// ib_* tool sent for the command line, as server and as client.
#include "perftest/stock_parameters.h"

#include <gtest/gtest.h>

#include <cctype>
#include <sstream>
#include <string>
#include <vector>

#include "cli/flags.h"

namespace xfer::perftest {
namespace {

constexpr uint64_t kPathMtu = 1024;

struct StockCase {
  const char* command_line;
  // Stock 6.29's fields, in the message's order.
  int32_t test_method, connection_type, verb, tst, atomic_type, test_type, report_fmt;
  uint64_t size, iters;
  int32_t num_of_qps, duration;
};

void PrintTo(const StockCase& stock, std::ostream* os) { *os << stock.command_line; }

// Fields: test_method connection_type verb tst atomicType test_type
// report_fmt size iters num_of_qps duration.
const StockCase kStock629[] = {
    {"write_bw", 0, 0, 2, 1, 0, 0, 1, 65536, 5000, 1, 5},
    {"write_bw -q 4", 0, 0, 2, 1, 0, 0, 1, 65536, 5000, 4, 5},
    {"write_bw -a", 1, 0, 2, 1, 0, 0, 1, 8388608, 5000, 1, 5},
    {"write_bw -D 2", 0, 0, 2, 1, 0, 1, 1, 65536, 0, 1, 2},
    {"write_bw -b", 0, 0, 2, 1, 0, 0, 1, 65536, 5000, 1, 5},
    {"write_bw --report_gbits", 0, 0, 2, 1, 0, 0, 0, 65536, 5000, 1, 5},
    {"write_bw -s 4096 -n 200", 0, 0, 2, 1, 0, 0, 1, 4096, 200, 1, 5},
    {"write_bw -c UC", 0, 1, 2, 1, 0, 0, 1, 65536, 5000, 1, 5},
    {"read_bw", 0, 0, 4, 1, 0, 0, 1, 65536, 1000, 1, 5},
    {"read_bw -q 4", 0, 0, 4, 1, 0, 0, 1, 65536, 1000, 4, 5},
    {"read_bw -a", 1, 0, 4, 1, 0, 0, 1, 8388608, 1000, 1, 5},
    {"read_bw -o 1", 0, 0, 4, 1, 0, 0, 1, 65536, 1000, 1, 5},
    {"send_bw", 0, 0, 0, 1, 0, 0, 1, 65536, 1000, 1, 5},
    {"send_bw -a", 1, 0, 0, 1, 0, 0, 1, 8388608, 1000, 1, 5},
    {"send_bw -c UD", 0, 2, 0, 1, 0, 0, 1, 1024, 1000, 1, 5},
    {"send_bw -c UD -a", 1, 2, 0, 1, 0, 0, 1, 1024, 1000, 1, 5},
    {"send_bw -c UD -s 1024", 0, 2, 0, 1, 0, 0, 1, 1024, 1000, 1, 5},
    {"send_bw -b", 0, 0, 0, 1, 0, 0, 1, 65536, 1000, 1, 5},
    {"atomic_bw", 0, 0, 5, 1, 1, 0, 1, 8, 1000, 1, 5},
    {"atomic_bw -A CMP_AND_SWAP", 0, 0, 5, 1, 0, 0, 1, 8, 1000, 1, 5},
    {"atomic_bw -q 4", 0, 0, 5, 1, 1, 0, 1, 8, 1000, 4, 5},
    {"write_lat", 0, 0, 2, 0, 0, 0, 1, 2, 1000, 1, 5},
    {"write_lat -a", 1, 0, 2, 0, 0, 0, 1, 8388608, 1000, 1, 5},
    {"write_lat -D 2", 0, 0, 2, 0, 0, 1, 1, 2, 0, 1, 2},
    {"read_lat", 0, 0, 4, 0, 0, 0, 1, 2, 1000, 1, 5},
    {"send_lat", 0, 0, 0, 0, 0, 0, 1, 2, 1000, 1, 5},
    {"send_lat -c UD", 0, 2, 0, 0, 0, 0, 1, 2, 1000, 1, 5},
    {"atomic_lat", 0, 0, 5, 0, 1, 0, 1, 8, 1000, 1, 5},
};

bench::BenchParams Parse(const std::string& command_line) {
  std::vector<std::string> words{"xfer"};
  std::istringstream in(command_line);
  for (std::string word; in >> word;) words.push_back(word);
  std::vector<const char*> argv;
  for (const auto& word : words) argv.push_back(word.c_str());
  cli::ParserConfig config;
  config.transports = {"shm", "tcp", "verbs"};
  config.perftest_transport = "verbs";
  auto parsed = cli::ParseCommandLine(static_cast<int>(argv.size()), argv.data(), config);
  EXPECT_TRUE(parsed.ok()) << command_line << ": " << parsed.status().message();
  return parsed.ok() ? parsed->params : bench::BenchParams{};
}

class StockNegotiationTest : public ::testing::TestWithParam<StockCase> {};

TEST_P(StockNegotiationTest, SendsWhatStockPerftest629Sends) {
  const StockCase& stock = GetParam();
  const bench::BenchParams params = Parse(stock.command_line);
  const NegotiatedParams sent =
      StockNegotiation(params, StockMaxMessageSize(params, kPathMtu), ibv_device_attr{});
  EXPECT_EQ(sent.test_method, stock.test_method);
  EXPECT_EQ(sent.connection_type, stock.connection_type);
  EXPECT_EQ(sent.verb, stock.verb);
  EXPECT_EQ(sent.tst, stock.tst);
  EXPECT_EQ(sent.atomic_type, stock.atomic_type);
  EXPECT_EQ(sent.test_type, stock.test_type);
  EXPECT_EQ(sent.report_fmt, stock.report_fmt);
  EXPECT_EQ(sent.size, stock.size);
  EXPECT_EQ(sent.iters, stock.iters);
  EXPECT_EQ(sent.num_of_qps, stock.num_of_qps);
  EXPECT_EQ(sent.duration, stock.duration);
}

TEST_P(StockNegotiationTest, LeavesTheFieldsXferDoesNotUseAtStocksZero) {
  const bench::BenchParams params = Parse(GetParam().command_line);
  const auto bytes = EncodeNegotiation(
      StockNegotiation(params, StockMaxMessageSize(params, kPathMtu), ibv_device_attr{}));
  // aes_xts, use_rdma_cm, use_write_with_imm, no_enhanced_reorder,
  // sig_offload and data_validation (48..79, less num_of_qps and duration
  // at 52..59), the padding at 28 and the mlx5dv mask at 312.
  for (size_t offset : {size_t{28}, size_t{48}, size_t{60}, size_t{64}, size_t{68}, size_t{72},
                        size_t{76}, size_t{312}, size_t{316}}) {
    for (size_t i = 0; i < 4; ++i) EXPECT_EQ(bytes[offset + i], 0) << "byte " << offset + i;
  }
}

std::string CaseName(const ::testing::TestParamInfo<StockCase>& info) {
  std::string name;
  for (const char* c = info.param.command_line; *c != '\0'; ++c) {
    name += std::isalnum(static_cast<unsigned char>(*c)) ? *c : '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Perftest629, StockNegotiationTest, ::testing::ValuesIn(kStock629),
                         CaseName);

TEST(StockMaxMessageSize, UdKeepsATypedSizeAboveTheMtuSoTheRunRefusesIt) {
  const bench::BenchParams params = Parse("send_bw -c UD -s 4096");
  EXPECT_EQ(StockMaxMessageSize(params, kPathMtu), 4096u);
}

TEST(StockMaxMessageSize, ReliableConnectionsIgnoreTheMtu) {
  EXPECT_EQ(StockMaxMessageSize(Parse("send_bw -c UC"), kPathMtu), 65536u);
  EXPECT_EQ(StockMaxMessageSize(Parse("write_bw -a"), kPathMtu), 8388608u);
}

}  // namespace
}  // namespace xfer::perftest
