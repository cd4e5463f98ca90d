// The --csv FILE of the cluster matrix: one row per planned flow cell, in
// plan order, not-run cells included. The first six columns say which flow
// it was, the rest are the matrix's (report/matrix/matrix_csv.h), so one
// reader serves both files:
//
//   source,target,source_host,target_host,round,step,<the matrix's columns>
//
// round and step count from 1, as the tables print them. A pure function of
// the run; thread-safe.
#ifndef XFER_REPORT_CLUSTER_CLUSTER_CSV_H_
#define XFER_REPORT_CLUSTER_CLUSTER_CSV_H_

#include <string>

#include "bench/cluster/cluster_run.h"

namespace xfer::report {

std::string RenderClusterCsv(const cluster::ClusterRun& run);

}  // namespace xfer::report

#endif  // XFER_REPORT_CLUSTER_CLUSTER_CSV_H_
