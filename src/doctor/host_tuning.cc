#include "doctor/host_tuning.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

namespace xfer::doctor {
namespace {

// "Hugepagesize:    2048 kB" from meminfo.
topology::Reading<int64_t> ReadMeminfoHugepageSize(const topology::SysfsReader& sysfs) {
  return topology::KibibytesOf(sysfs.ReadField("/proc/meminfo", "Hugepagesize"));
}

topology::Reading<std::string> SelectedWord(const topology::Reading<std::string>& text) {
  if (!text.known()) return text;
  const size_t open = text.value->find('[');
  const size_t close = text.value->find(']', open);
  if (open == std::string::npos || close == std::string::npos) {
    return topology::Reading<std::string>::Unknown(fmt::format("no [selected] word in '{}'", *text.value));
  }
  return topology::Reading<std::string>::Known(text.value->substr(open + 1, close - open - 1));
}

topology::Reading<std::string> ReadGovernors(const topology::SysfsReader& sysfs) {
  std::vector<std::string> governors;
  for (const std::string& cpu : sysfs.List("/sys/devices/system/cpu")) {
    if (!cpu.starts_with("cpu") || cpu.size() < 4 || !std::isdigit(static_cast<unsigned char>(cpu[3]))) continue;
    const topology::Reading<std::string> governor =
        sysfs.ReadText(fmt::format("/sys/devices/system/cpu/{}/cpufreq/scaling_governor", cpu));
    if (governor.known() && std::find(governors.begin(), governors.end(), *governor.value) == governors.end()) {
      governors.push_back(*governor.value);
    }
  }
  if (governors.empty()) {
    return topology::Reading<std::string>::Unknown("not exposed (no cpu*/cpufreq/scaling_governor; usual in a VM)");
  }
  return topology::Reading<std::string>::Known(fmt::format("{}", fmt::join(governors, ", ")));
}

}  // namespace

HostTuning ReadHostTuning(const topology::SysfsReader& sysfs) {
  HostTuning host;
  host.default_hugepage_kib = ReadMeminfoHugepageSize(sysfs);
  for (const std::string& name : sysfs.List("/sys/kernel/mm/hugepages")) {
    if (!name.starts_with("hugepages-") || !name.ends_with("kB")) continue;
    HugepagePool pool;
    const std::string_view digits(name.data() + 10, name.size() - 12);
    std::from_chars(digits.data(), digits.data() + digits.size(), pool.page_kib);
    const std::string dir = "/sys/kernel/mm/hugepages/" + name;
    pool.total = sysfs.ReadInteger(dir + "/nr_hugepages");
    pool.free = sysfs.ReadInteger(dir + "/free_hugepages");
    host.pools.push_back(std::move(pool));
  }
  std::sort(host.pools.begin(), host.pools.end(),
            [](const HugepagePool& a, const HugepagePool& b) { return a.page_kib < b.page_kib; });
  host.thp_enabled = SelectedWord(sysfs.ReadText("/sys/kernel/mm/transparent_hugepage/enabled"));
  host.governor = ReadGovernors(sysfs);
  return host;
}

}  // namespace xfer::doctor
