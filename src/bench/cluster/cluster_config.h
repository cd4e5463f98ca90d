// What one cluster matrix run (`mpirun -np N xfer matrix --scheme ...`) is
// asked to do: the matrix flags every rank was given, plus the schedule and
// how each rank picks its endpoint. Every rank parses the same command line.
#ifndef XFER_BENCH_CLUSTER_CLUSTER_CONFIG_H_
#define XFER_BENCH_CLUSTER_CLUSTER_CONFIG_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "bench/cluster/cluster_schedule.h"
#include "bench/matrix/matrix_config.h"

namespace xfer::cluster {

struct ClusterConfig {
  // The measured cells: directions (write or read of host memory), block
  // sizes, transfer size, batch, loops, warm-up, streams, the memory kinds,
  // the timeout, the secret, the output files. `transports` holds at most
  // one name ("" lets each pair's engines choose); matrix.verbs.device is
  // the -d every rank uses unless rank_devices says otherwise.
  matrix::MatrixConfig matrix;
  Scheme scheme = Scheme::kAllToAll;
  uint32_t incast_target = 0;  // --incast_target (kIncast only)
  uint32_t fan_out_source = 0;  // --fan_out_source (kFanOut only)
  // The scheme's root: incast's target, fan-out's source (PlanSteps).
  uint32_t root() const { return scheme == Scheme::kFanOut ? fan_out_source : incast_target; }
  // --rank_devices: the RDMA device of each local rank, by
  // OMPI_COMM_WORLD_LOCAL_RANK modulo the list's length (as perftest users
  // pin -d per process); empty: matrix.verbs.device for every rank.
  std::vector<std::string> rank_devices;
  // The engine's transport options for each entry of rank_devices: the
  // matrix's, with the flag -d set to that device, derived by the CLI from
  // the transports' own option tables (so this folder never names one).
  std::vector<std::map<std::string, TransportOptions, std::less<>>> rank_transport_options;
  // The IPv4 address this rank's engine listens on and the others connect
  // to; "" = the first address of an interface that is up and not loopback
  // (loopback when there is none).
  std::string listen_host;
};

}  // namespace xfer::cluster

#endif  // XFER_BENCH_CLUSTER_CLUSTER_CONFIG_H_
