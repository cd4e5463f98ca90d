// Host settings that bear on bandwidth and message rate: hugepages, THP and
// the CPU frequency governor.
#ifndef XFER_DOCTOR_HOST_TUNING_H_
#define XFER_DOCTOR_HOST_TUNING_H_

#include <cstdint>
#include <string>
#include <vector>

#include "topology/reading.h"
#include "topology/sysfs_reader.h"

namespace xfer::doctor {

struct HugepagePool {
  int64_t page_kib = 0;                 // the pool's page size, KiB (2^10 B)
  topology::Reading<int64_t> total;               // nr_hugepages
  topology::Reading<int64_t> free;                // free_hugepages
};

struct HostTuning {
  topology::Reading<int64_t> default_hugepage_kib;  // /proc/meminfo Hugepagesize
  std::vector<HugepagePool> pools;        // /sys/kernel/mm/hugepages/hugepages-<n>kB
  topology::Reading<std::string> thp_enabled;       // the [selected] word of .../transparent_hugepage/enabled
  // The distinct scaling_governor values over cpu*/cpufreq, joined with ", ";
  // unknown ("not exposed") when no CPU has cpufreq, as in a VM.
  topology::Reading<std::string> governor;
};

HostTuning ReadHostTuning(const topology::SysfsReader& sysfs);

}  // namespace xfer::doctor

#endif  // XFER_DOCTOR_HOST_TUNING_H_
