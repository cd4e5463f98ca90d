#include "bench/cluster/rank_messages.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace xfer::cluster {
namespace {

using nlohmann::json;

RankInfo SampleRank() {
  RankInfo rank;
  rank.rank = 3;
  rank.local_rank = 1;
  rank.host.hostname = "node-b";
  rank.host.kernel = "6.1.0";
  rank.host.cpu_model = "EPYC";
  rank.host.cpu_count = 64;
  rank.host.xfer_version = "0.2.0";
  rank.host.rdma.push_back({"mlx5_1", 1, "ACTIVE", "Ethernet", 100.0});
  rank.engine_address = "10.0.0.2:40123";
  rank.rdma_device = "mlx5_1";
  rank.buffer_address = 0x7f0000001000;
  rank.buffer_length = 1 << 20;
  rank.registered_bytes = 2 << 20;
  return rank;
}

FlowReport SampleReport() {
  FlowReport report;
  report.rank = 2;
  report.group = 7;
  report.measured = true;
  report.status = matrix::CellStatus::kOk;
  report.path_transport = "tcp";
  report.path_streams = 1;
  report.requests = 4;
  report.warmup_seconds = {0.5};
  report.sample_seconds = {0.25, 0.125};
  report.registered_bytes = 4096;
  report.max_rss_bytes = 1 << 24;
  return report;
}

TEST(RankMessages, HelloRoundTripsEveryField) {
  const RankInfo sent = SampleRank();
  auto got = DecodeHello(EncodeHello(sent));
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->rank, 3u);
  EXPECT_EQ(got->local_rank, 1u);
  EXPECT_EQ(got->host.hostname, "node-b");
  EXPECT_EQ(got->host.cpu_count, 64u);
  ASSERT_EQ(got->host.rdma.size(), 1u);
  EXPECT_EQ(got->host.rdma[0].device, "mlx5_1");
  EXPECT_DOUBLE_EQ(got->host.rdma[0].rate_gbps, 100.0);
  EXPECT_EQ(got->engine_address, "10.0.0.2:40123");
  EXPECT_EQ(got->buffer_address, sent.buffer_address);
  EXPECT_EQ(got->buffer_length, sent.buffer_length);
  EXPECT_EQ(got->registered_bytes, sent.registered_bytes);
}

TEST(RankMessages, ReportRoundTripsEveryField) {
  auto got = DecodeReport(EncodeReport(SampleReport()), 16);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->rank, 2u);
  EXPECT_EQ(got->group, 7u);
  EXPECT_TRUE(got->measured);
  EXPECT_EQ(got->status, matrix::CellStatus::kOk);
  EXPECT_EQ(got->path_transport, "tcp");
  EXPECT_EQ(got->requests, 4u);
  EXPECT_EQ(got->sample_seconds, (std::vector<double>{0.25, 0.125}));
  EXPECT_EQ(got->max_rss_bytes, uint64_t{1} << 24);
}

// A rank's part of a group: several flows at once for fan-out's source.
TEST(RankMessages, AListOfReportsRoundTripsWithEachFlowsTargetAndIsBounded) {
  std::vector<FlowReport> sent;
  for (uint32_t target : {0u, 1u, 3u}) {
    FlowReport report = SampleReport();
    report.target = target;
    report.sample_seconds = {0.5 / (target + 1)};
    sent.push_back(report);
  }
  auto got = DecodeReports(EncodeReports(sent), 16, 3);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(got->size(), 3u);
  for (size_t i = 0; i < sent.size(); ++i) {
    EXPECT_EQ((*got)[i].target, sent[i].target);
    EXPECT_EQ((*got)[i].sample_seconds, sent[i].sample_seconds);
  }
  auto too_many = DecodeReports(EncodeReports(sent), 16, 2);
  ASSERT_FALSE(too_many.ok());
  EXPECT_NE(too_many.status().message().find("more than 2 flows"), std::string::npos)
      << too_many.status().message();
  for (std::string text : {std::string("[]"), std::string("{}"), std::string("[5]"),
                           std::string("[{\"rank\": 1}]")}) {
    auto bad = DecodeReports(text, 16, 3);
    EXPECT_EQ(bad.status().code(), StatusCode::kProtocolError) << text;
  }
}

// Each hostile edit of a good message, and the field the error must name.
struct Edit {
  const char* what;
  void (*apply)(json&);
  const char* names;
};

TEST(RankMessages, HostileReportsAreRefusedNamingTheField) {
  const Edit edits[] = {
      {"missing rank", [](json& m) { m.erase("rank"); }, "rank"},
      {"negative rank", [](json& m) { m["rank"] = -1; }, "rank"},
      {"rank as text", [](json& m) { m["rank"] = "2"; }, "rank"},
      {"streams past 32 bits", [](json& m) { m["path_streams"] = uint64_t{1} << 40; },
       "path_streams"},
      {"unknown status", [](json& m) { m["status"] = "great"; }, "status"},
      {"zero sample", [](json& m) { m["sample_seconds"] = {0.5, 0.0}; }, "sample_seconds"},
      {"negative sample", [](json& m) { m["sample_seconds"] = {-1.0}; }, "sample_seconds"},
      {"text sample", [](json& m) { m["sample_seconds"] = {"1"}; }, "sample_seconds"},
      {"too many samples", [](json& m) { m["sample_seconds"] = std::vector<double>(17, 1.0); },
       "sample_seconds"},
      {"ok without samples", [](json& m) { m["sample_seconds"] = json::array(); },
       "sample_seconds"},
      {"huge reason", [](json& m) { m["reason"] = std::string(5000, 'x'); }, "reason"},
      {"measured as number", [](json& m) { m["measured"] = 1; }, "measured"},
  };
  for (const Edit& edit : edits) {
    SCOPED_TRACE(edit.what);
    json message = json::parse(EncodeReport(SampleReport()));
    edit.apply(message);
    auto got = DecodeReport(message.dump(), 16);
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(got.status().code(), StatusCode::kProtocolError);
    EXPECT_NE(got.status().message().find(edit.names), std::string::npos)
        << got.status().message();
  }
}

TEST(RankMessages, HostileHellosAreRefused) {
  const Edit edits[] = {
      {"host not an object", [](json& m) { m["host"] = 5; }, "host"},
      {"missing hostname", [](json& m) { m["host"].erase("hostname"); }, "hostname"},
      {"rdma not a list", [](json& m) { m["host"]["rdma"] = "mlx5_0"; }, "rdma"},
      {"rate not finite", [](json& m) { m["host"]["rdma"][0]["rate_gbps"] = "inf"; },
       "rate_gbps"},
      {"address negative", [](json& m) { m["buffer_address"] = -4096; }, "buffer_address"},
  };
  for (const Edit& edit : edits) {
    SCOPED_TRACE(edit.what);
    json message = json::parse(EncodeHello(SampleRank()));
    edit.apply(message);
    auto got = DecodeHello(message.dump());
    ASSERT_FALSE(got.ok());
    EXPECT_NE(got.status().message().find(edit.names), std::string::npos)
        << got.status().message();
  }
}

TEST(RankMessages, NonJsonAndOversizedMessagesAreRefused) {
  for (std::string text : {std::string(""), std::string("{"), std::string("[1,2]"),
                           std::string("null"), std::string("\xff\xfe", 2)}) {
    EXPECT_FALSE(DecodeReport(text, 16).ok()) << text;
    EXPECT_FALSE(DecodeHello(text).ok()) << text;
  }
  const std::string huge = "\"" + std::string(kMaxRankMessageBytes, 'a') + "\"";
  auto got = DecodeReport(huge, 16);
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("too long"), std::string::npos);
}

}  // namespace
}  // namespace xfer::cluster
