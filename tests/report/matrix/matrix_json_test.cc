// The --json document: parsed back, its schema, units, nulls and numbers
// checked against the sample run.
#include "report/matrix/matrix_json.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "report/matrix/matrix_fixture.h"

namespace xfer::report {
namespace {

using matrix::CellStatus;
using nlohmann::json;
using testing::SampleRun;

// Through text, as a reader of the file sees it.
json RoundTrip(const matrix::MatrixRun& run) { return json::parse(MatrixJson(run).dump()); }

TEST(MatrixJsonTest, SchemaAndUnits) {
  const json doc = RoundTrip(SampleRun());
  EXPECT_EQ(doc["schema"], (json{{"name", "xfer.matrix"}, {"version", 1}}));
  EXPECT_EQ(doc["units"]["bandwidth"], "GB/s (10^9 bytes/s)");
  EXPECT_EQ(doc["units"]["sizes"], "bytes");
  EXPECT_EQ(doc["units"]["times"], "seconds");
  EXPECT_EQ(doc["units"]["link_rate"], "Gb/s (10^9 bit/s)");
  for (const char* key : {"median_gbps", "min_gbps", "max_gbps", "sample_gbps"}) {
    EXPECT_EQ(doc["units"]["fields"][key], "GB/s (10^9 bytes/s)") << key;
  }
  EXPECT_EQ(doc["units"]["fields"]["block_size"], "bytes");
  EXPECT_EQ(doc["units"]["fields"]["sample_seconds"], "seconds");
  EXPECT_EQ(doc["units"]["fields"]["timeout_s"], "seconds");
}

TEST(MatrixJsonTest, RunSection) {
  matrix::MatrixRun run = SampleRun();
  json doc = RoundTrip(run);
  EXPECT_EQ(doc["run"]["command_line"],
            (json{"xfer", "matrix", "node-b", "--block-sizes", "16K,64K,2M", "--verify"}));
  EXPECT_EQ(doc["run"]["xfer_version"], "0.1.0");
  EXPECT_EQ(doc["run"]["start_time"], "2026-12-01T20:19:28Z");
  EXPECT_EQ(doc["run"]["end_time"], "2026-12-01T20:21:03Z");
  EXPECT_EQ(doc["run"]["outcome"], "failed");
  EXPECT_EQ(doc["run"]["error"], "tcp rH2H 64K: timeout: sample 3 took longer than 10 s");

  run.end_time.clear();
  run.error.clear();
  run.outcome = matrix::RunOutcome::kRunning;
  doc = RoundTrip(run);
  EXPECT_TRUE(doc["run"]["end_time"].is_null());
  EXPECT_TRUE(doc["run"]["error"].is_null());
  EXPECT_EQ(doc["run"]["outcome"], "running");
}

TEST(MatrixJsonTest, ConfigSection) {
  matrix::MatrixRun run = SampleRun();
  json config = RoundTrip(run)["config"];
  EXPECT_EQ(config["role"], "initiator");
  EXPECT_EQ(config["directions"],
            (json{"D2rD", "D2rH", "H2rH", "H2rD", "rD2D", "rH2D", "rH2H", "rD2H"}));
  EXPECT_EQ(config["transports"], json::array());
  EXPECT_EQ(config["block_sizes"], (json{16384, 65536, 2097152}));
  EXPECT_EQ(config["transfer_size"], 134217728);
  EXPECT_EQ(config["batch"], 1);
  EXPECT_EQ(config["loops"], 5);
  EXPECT_EQ(config["warmup"], 1);
  EXPECT_EQ(config["streams"], 1);
  EXPECT_EQ(config["memory"], "host");
  EXPECT_EQ(config["remote_memory"], "host");
  EXPECT_EQ(config["verify"], true);
  EXPECT_TRUE(config["timeout_s"].is_number());
  EXPECT_DOUBLE_EQ(config["timeout_s"].get<double>(), 10.0);
  EXPECT_TRUE(config["verbs"]["device"].is_null());
  EXPECT_EQ(config["verbs"]["port"], 1);
  EXPECT_TRUE(config["verbs"]["gid_index"].is_null());

  run.config.transports = {"tcp", "verbs"};
  run.config.verbs.device = "mlx5_0";
  run.config.verbs.gid_index = 3;
  run.config.timeout = std::chrono::milliseconds(1500);
  config = RoundTrip(run)["config"];
  EXPECT_EQ(config["transports"], (json{"tcp", "verbs"}));
  EXPECT_EQ(config["verbs"]["device"], "mlx5_0");
  EXPECT_EQ(config["verbs"]["gid_index"], 3);
  EXPECT_DOUBLE_EQ(config["timeout_s"].get<double>(), 1.5);
}

TEST(MatrixJsonTest, HostsAndTransports) {
  const json doc = RoundTrip(SampleRun());
  const json& initiator = doc["hosts"]["initiator"];
  EXPECT_EQ(initiator["hostname"], "node-a");
  EXPECT_EQ(initiator["kernel"], "6.1.0-18-amd64");
  EXPECT_EQ(initiator["cpu_model"], "AMD EPYC 7763 64-Core Processor");
  EXPECT_EQ(initiator["cpu_count"], 128);
  EXPECT_EQ(initiator["xfer_version"], "0.1.0");
  EXPECT_EQ(initiator["rdma"], (json::array({{{"device", "mlx5_0"},
                                              {"port", 1},
                                              {"state", "ACTIVE"},
                                              {"link_layer", "Ethernet"},
                                              {"rate_gbits", 200.0}}})));
  const json& target = doc["hosts"]["target"];
  EXPECT_EQ(target["hostname"], "node-b");
  EXPECT_TRUE(target["cpu_count"].is_null());
  EXPECT_EQ(target["rdma"], json::array());
  EXPECT_EQ(doc["transports"], (json{"shm", "tcp"}));
  EXPECT_EQ(
      doc["skipped_transports"],
      (json::array({{{"name", "verbs"}, {"reason", "no RDMA device: libibverbs lists none"}}})));
}

// What registering the initiator's buffers cost: with the engine, per
// buffer; with a NIC, per transport that connected over one.
TEST(MatrixJsonTest, RegistrationsWithTheEngineAndWithTheNic) {
  matrix::MatrixRun run = SampleRun();
  bench::RegistrationTiming host;
  host.kind = MemoryKind::kHost;
  host.bytes = uint64_t{2} << 30;
  host.register_s = 0.5;
  host.deregister_s = 0.25;
  run.registrations = {host};
  DeviceRegistration nic;
  nic.bytes = uint64_t{2} << 30;
  nic.memory_registrations = 8;
  nic.duration = std::chrono::milliseconds(300);
  run.nic_registrations = {{"verbs", nic}};
  const json doc = RoundTrip(run);
  ASSERT_EQ(doc["registration"].size(), 1u);
  EXPECT_EQ(doc["registration"][0]["memory"], "host");
  EXPECT_DOUBLE_EQ(doc["registration"][0]["register_s_per_GiB"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(doc["registration"][0]["deregister_s_per_GiB"].get<double>(), 0.125);
  ASSERT_EQ(doc["nic_registration"].size(), 1u);
  const json& verbs = doc["nic_registration"][0];
  EXPECT_EQ(verbs["transport"], "verbs");
  EXPECT_EQ(verbs["bytes"], uint64_t{2} << 30);
  EXPECT_EQ(verbs["memory_registrations"], 8);
  EXPECT_DOUBLE_EQ(verbs["register_s"].get<double>(), 0.3);
  EXPECT_DOUBLE_EQ(verbs["register_s_per_GiB"].get<double>(), 0.15);
  EXPECT_EQ(RoundTrip(SampleRun())["nic_registration"], json::array());
}

TEST(MatrixJsonTest, EveryCellInRunOrder) {
  const matrix::MatrixRun run = SampleRun();
  const json cells = RoundTrip(run)["cells"];
  ASSERT_EQ(cells.size(), run.cells.size());
  for (size_t i = 0; i < cells.size(); ++i) {
    EXPECT_EQ(cells[i]["direction"], run.cells[i].direction.Name()) << i;
    EXPECT_EQ(cells[i]["transport"], run.cells[i].transport) << i;
    EXPECT_EQ(cells[i]["block_size"], run.cells[i].block_size) << i;
    EXPECT_EQ(cells[i]["status"], matrix::CellStatusName(run.cells[i].status)) << i;
  }
}

TEST(MatrixJsonTest, MeasuredCellHasNumbersAndComputedSamples) {
  const matrix::MatrixRun run = SampleRun();
  const size_t index = run.CellIndex(1, 2, 2);  // tcp H2rH 2M
  const json cell = RoundTrip(run)["cells"][index];
  EXPECT_EQ(cell["op"], "write");
  EXPECT_EQ(cell["initiator_memory"], "host");
  EXPECT_EQ(cell["target_memory"], "host");
  EXPECT_EQ(cell["block_label"], "2M");
  EXPECT_EQ(cell["entries_per_sample"], 64);
  EXPECT_EQ(cell["requests"], 1);
  EXPECT_EQ(cell["status"], "ok");
  EXPECT_TRUE(cell["reason"].is_null());
  EXPECT_EQ(cell["path"], (json{{"transport", "tcp"}, {"streams", 1}, {"data_mover", "kernel"},
                             {"staged", false}}));
  EXPECT_EQ(cell["verified"], true);
  for (const char* key : {"median_gbps", "min_gbps", "max_gbps"}) {
    EXPECT_TRUE(cell[key].is_number_float()) << key;
  }
  EXPECT_DOUBLE_EQ(cell["median_gbps"].get<double>(), 3.05);
  EXPECT_DOUBLE_EQ(cell["min_gbps"].get<double>(), 3.05 * 0.95);
  EXPECT_DOUBLE_EQ(cell["max_gbps"].get<double>(), 3.05 * 1.02);

  const std::vector<double>& seconds = run.cells[index].sample_seconds;
  ASSERT_EQ(cell["sample_seconds"].size(), seconds.size());
  ASSERT_EQ(cell["sample_gbps"].size(), seconds.size());
  ASSERT_EQ(cell["warmup_seconds"].size(), 1u);
  const double factors[] = {1.00, 0.98, 1.02, 0.95, 1.01};
  for (size_t i = 0; i < seconds.size(); ++i) {
    EXPECT_DOUBLE_EQ(cell["sample_seconds"][i].get<double>(), seconds[i]);
    EXPECT_DOUBLE_EQ(cell["sample_gbps"][i].get<double>(), 134217728.0 / 1e9 / seconds[i]);
    EXPECT_NEAR(cell["sample_gbps"][i].get<double>(), 3.05 * factors[i], 1e-9);
  }
}

TEST(MatrixJsonTest, NullsWhereNothingApplies) {
  matrix::MatrixRun run = SampleRun();
  run.cells[run.CellIndex(0, 0, 0)].verified.reset();
  const json cells = RoundTrip(run)["cells"];
  const json& unsupported = cells[run.CellIndex(0, 0, 0)];
  EXPECT_EQ(unsupported["status"], "unsupported");
  EXPECT_EQ(unsupported["reason"],
            "device memory: CUDA device memory on device 0: no NVIDIA driver: cannot load libcuda.so.1");
  EXPECT_EQ(unsupported["initiator_memory"], "device");
  for (const char* key : {"path", "median_gbps", "min_gbps", "max_gbps", "verified"}) {
    EXPECT_TRUE(unsupported[key].is_null()) << key;
  }
  EXPECT_EQ(unsupported["sample_gbps"], json::array());

  const json& failed = cells[run.CellIndex(1, 6, 1)];
  EXPECT_EQ(failed["status"], "failed");
  EXPECT_EQ(failed["op"], "read");
  EXPECT_TRUE(failed["median_gbps"].is_null());
  EXPECT_EQ(failed["sample_seconds"], (json{0.25, 0.26}));
  EXPECT_DOUBLE_EQ(failed["sample_gbps"][0].get<double>(), 134217728.0 / 1e9 / 0.25);

  const json& not_run = cells[run.CellIndex(1, 6, 2)];
  EXPECT_EQ(not_run["status"], "not run");
  EXPECT_TRUE(not_run["reason"].is_null());
  EXPECT_TRUE(not_run["path"].is_null());
}

TEST(MatrixJsonTest, SampleWithoutPositiveTimeIsNull) {
  matrix::MatrixRun run = SampleRun();
  const size_t index = run.CellIndex(0, 2, 0);
  run.cells[index].sample_seconds = {0.0, -1.0, 0.5};
  const json cell = RoundTrip(run)["cells"][index];
  EXPECT_TRUE(cell["sample_gbps"][0].is_null());
  EXPECT_TRUE(cell["sample_gbps"][1].is_null());
  EXPECT_DOUBLE_EQ(cell["sample_gbps"][2].get<double>(), 134217728.0 / 1e9 / 0.5);
}

TEST(MatrixJsonTest, NoValueIsAString) {
  // matrix.md §11.10: numbers stay numbers.
  const json doc = RoundTrip(SampleRun());
  for (const json& cell : doc["cells"]) {
    for (const char* key : {"block_size", "entries_per_sample", "requests"}) {
      EXPECT_TRUE(cell[key].is_number_unsigned()) << key;
    }
    for (const json& value : cell["sample_gbps"]) EXPECT_TRUE(value.is_number());
    if (cell["status"] == "ok") {
      EXPECT_TRUE(cell["median_gbps"].is_number());
    }
  }
}

}  // namespace
}  // namespace xfer::report

namespace xfer::report {
namespace {

TEST(MatrixJsonTest, CellsWithACeilingRecordItAndTheirFraction) {
  matrix::MatrixRun run = testing::SampleRun();
  const size_t measured = run.CellIndex(1, 2, 2);  // tcp H2rH 2M, 3.05 GB/s
  run.cells[measured].ceiling = bench::Ceiling{6.1e9, "single-core memcpy"};
  const size_t unknown = run.CellIndex(1, 2, 1);
  run.cells[unknown].ceiling = bench::Ceiling::Unknown("socket stack");
  const json cells = json::parse(MatrixJson(run).dump())["cells"];
  EXPECT_EQ(cells[measured]["ceiling"],
            (json{{"bytes_per_sec", 6.1e9}, {"source", "single-core memcpy"}}));
  EXPECT_DOUBLE_EQ(cells[measured]["efficiency"].get<double>(), 0.5);
  EXPECT_TRUE(cells[unknown]["ceiling"]["bytes_per_sec"].is_null());
  EXPECT_TRUE(cells[unknown]["efficiency"].is_null());
  // A run that recorded no ceiling says nothing rather than null.
  EXPECT_FALSE(cells[run.CellIndex(0, 0, 0)].contains("ceiling"));
}

}  // namespace
}  // namespace xfer::report
