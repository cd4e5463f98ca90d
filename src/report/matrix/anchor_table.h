// The terminal table of a matrix's local copy anchors (local_anchor.h), one
// row per block size, a column per copy, with one note per reason:
//
//   --- local copies on CUDA device 0 (copy engine, CUDA events; no transport) ---
//    Block       H2D       D2H       D2D
//      16K    24.018    23.117   512.433
//
// and their JSON. Pure functions of the run; thread-safe.
#ifndef XFER_REPORT_MATRIX_ANCHOR_TABLE_H_
#define XFER_REPORT_MATRIX_ANCHOR_TABLE_H_

#include <string>

#include <nlohmann/json.hpp>

#include "bench/matrix/matrix_run.h"

namespace xfer::report {

// Appends the table (a blank line first) when run.anchors is not empty.
void AppendAnchorTable(const matrix::MatrixRun& run, std::string& text);

// {"device": N, "cells": [{"copy", "block_size", "status", "median_gbps",
// "min_gbps", "max_gbps", "sample_seconds", "reason"}, ...]}, or null when
// the run has no anchors.
nlohmann::json AnchorsJson(const matrix::MatrixRun& run);

}  // namespace xfer::report

#endif  // XFER_REPORT_MATRIX_ANCHOR_TABLE_H_
