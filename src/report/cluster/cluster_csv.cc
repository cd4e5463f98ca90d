#include "report/cluster/cluster_csv.h"

#include <fmt/format.h>

#include "report/matrix/matrix_csv.h"

namespace xfer::report {
namespace {

std::string HostOf(const cluster::ClusterRun& run, uint32_t rank) {
  return rank < run.ranks.size() ? run.ranks[rank].host.hostname : std::string();
}

}  // namespace

std::string RenderClusterCsv(const cluster::ClusterRun& run) {
  std::string text = fmt::format("source,target,source_host,target_host,round,step,{}\n",
                                 MatrixCsvHeader());
  for (const cluster::PairCell& pair : run.cells) {
    text += fmt::format("{},{},{},{},{},{},", pair.flow.source, pair.flow.target,
                        CsvField(HostOf(run, pair.flow.source)),
                        CsvField(HostOf(run, pair.flow.target)), pair.round + 1, pair.step + 1);
    text += MatrixCsvRow(pair.cell, run.config.matrix.transfer_size);
  }
  return text;
}

}  // namespace xfer::report
