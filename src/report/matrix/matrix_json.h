// The --json FILE document of `xfer matrix`. Numbers are JSON numbers and a
// value that does not apply is null, never a string or a zero (matrix.md
// §11.10: nvbandwidth's string cells). Keys are sorted. Layout:
//
//   { "schema": {"name": "xfer.matrix", "version": 1},
//     "units": {"bandwidth": "GB/s (10^9 bytes/s)", "sizes": "bytes",
//               "times": "seconds", "link_rate": "Gb/s (10^9 bit/s)",
//               "fields": {"<key>": "<unit>", ...}},
//     "run": {"command_line": ["xfer", "matrix", ...], "xfer_version",
//             "start_time", "end_time" (null while running), "outcome":
//             "running"|"complete"|"failed"|"interrupted", "error" (null)},
//     "config": {"role", "directions": ["D2rD", ...], "transports" (as
//                asked; [] = the default set), "block_sizes", "transfer_size",
//                "batch", "loops", "warmup", "streams", "memory",
//                "remote_memory", "verify", "timeout_s",
//                "verbs": {"device" (null = the first), "port",
//                          "gid_index" (null = automatic)}},
//     "hosts": {"initiator": HOST, "target": HOST},
//     "transports": ["shm", "tcp"],             (the column groups)
//     "skipped_transports": [{"name", "reason"}],
//     "cells": [CELL, ...] }                    (every cell, run order)
//
//   HOST: {"hostname", "kernel", "cpu_model", "cpu_count" (null: unknown),
//          "xfer_version", "rdma": [{"device", "port", "state",
//          "link_layer", "rate_gbits" (Gb/s of bits; null: unknown)}]}
//   CELL: {"direction", "op": "write"|"read", "initiator_memory",
//          "target_memory", "transport", "block_size", "block_label",
//          "entries_per_sample", "requests", "status": "ok"|"unsupported"|
//          "failed"|"not run", "reason" (null), "path": {"transport",
//          "streams", "data_mover", "staged", "device"} (null: not measured;
//          data_mover as xfer::DataMoverName says it, "nic" on RDMA; staged:
//          the initiator's buffers bounced through its staging memory;
//          device, for cells with device memory only: how it moved),
//          "warmup_seconds": [...],
//          "sample_seconds": [...], "sample_gbps": [...] (transfer_size /
//          10^9 / seconds per sample; null for a sample without a positive
//          time), "median_gbps", "min_gbps", "max_gbps" (null unless ok),
//          "verified" (null unless checked)}
//
// Sizes are bytes, times seconds, *_gbps GB/s = 10^9 bytes/s. A pure
// function of the run; thread-safe. Write it with WriteJsonFile
// (report/json_report.h) or dump it with error_handler_t::replace: reasons
// may hold invalid UTF-8.
#ifndef XFER_REPORT_MATRIX_MATRIX_JSON_H_
#define XFER_REPORT_MATRIX_MATRIX_JSON_H_

#include <nlohmann/json.hpp>

#include "bench/matrix/host_fingerprint.h"
#include "bench/matrix/matrix_run.h"

namespace xfer::report {

inline constexpr int kMatrixJsonVersion = 1;

nlohmann::json MatrixJson(const matrix::MatrixRun& run);

// The HOST object above.
nlohmann::json HostFingerprintJson(const matrix::HostFingerprint& host);

}  // namespace xfer::report

#endif  // XFER_REPORT_MATRIX_MATRIX_JSON_H_
