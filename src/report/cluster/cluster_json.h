// The --json FILE document of a cluster matrix (`mpirun -np N xfer matrix
// --scheme ...`), written by rank 0. Numbers are JSON numbers; a value that
// does not apply is null. Layout:
//
//   { "schema": {"name": "xfer.cluster", "version": 1},
//     "units": {"bandwidth": "GB/s (10^9 bytes/s)", "sizes": "bytes",
//               "times": "seconds", "memory": "bytes"},
//     "run": {"command_line", "xfer_version", "start_time", "end_time"
//             (null while running), "outcome": "running"|"complete"|
//             "failed"|"interrupted", "error" (null), "launcher": "mpi"},
//     "config": {"scheme", "ranks", "incast_target" (null unless incast),
//                "fan_out_source" (null unless fan-out),
//                "directions", "transport" (null: each pair's engines
//                chose), "block_sizes", "transfer_size", "batch", "loops",
//                "warmup", "streams", "memory", "remote_memory",
//                "timeout_s", "rank_devices"},
//     "ranks": [{"rank", "local_rank", "host": HOST (matrix_json.h),
//                "engine_address", "rdma_device" (null: the first, or none),
//                "registered_bytes", "max_rss_bytes"}],
//     "plan": {"rounds", "steps": [{"round", "flows": [[source, target]]}]},
//     "cells": [{"step", "round", "source", "target", "direction", "op",
//                "block_size", "block_label", "entries_per_sample",
//                "requests", "status", "reason" (null), "transport" (the
//                path that carried it; null: not measured),
//                "warmup_seconds", "sample_seconds", "sample_gbps",
//                "median_gbps", "min_gbps", "max_gbps" (null unless ok)}],
//     "heat_maps": [{"direction", "block_size", "block_label",
//                    "gbps": [[null | GB/s, ...], ...] (row: source,
//                    column: target), "median_of_pairs_gbps" (null: none),
//                    "slowest": [{"source", "target", "median_gbps",
//                                 "gap_to_median"}]}],
//     "aggregates": [{"step", "round", "direction", "block_size", "flows",
//                     "measured", "sum_gbps", "slowest_gbps"}],
//     "costs": {"exchange_seconds", "meeting_seconds_median",
//               "meeting_seconds_max", "meetings"} }
//
// A pure function of the run; thread-safe. Write it with WriteJsonFile.
#ifndef XFER_REPORT_CLUSTER_CLUSTER_JSON_H_
#define XFER_REPORT_CLUSTER_CLUSTER_JSON_H_

#include <nlohmann/json.hpp>

#include "bench/cluster/cluster_run.h"

namespace xfer::report {

inline constexpr int kClusterJsonVersion = 1;

nlohmann::json ClusterJson(const cluster::ClusterRun& run);

}  // namespace xfer::report

#endif  // XFER_REPORT_CLUSTER_CLUSTER_JSON_H_
