#include "topology/cpu_list.h"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

namespace xfer::topology {
namespace {

// A CPU number: digits only, below kMaxCpus.
Result<int> Cpu(std::string_view text, std::string_view part) {
  int cpu = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), cpu);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
    return InvalidArgument(fmt::format("'{}' is no CPU number or range", part));
  }
  if (cpu >= kMaxCpus) {
    return InvalidArgument(fmt::format("CPU {} is above the most this build takes ({})", cpu,
                                       kMaxCpus - 1));
  }
  return cpu;
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  return text;
}

}  // namespace

Result<std::vector<int>> ParseCpuList(std::string_view text) {
  std::vector<int> cpus;
  while (true) {
    const size_t comma = text.find(',');
    const std::string_view part = Trim(text.substr(0, comma));
    const size_t dash = part.find('-');
    auto first = Cpu(part.substr(0, dash), part);
    if (!first.ok()) return first.status();
    int last = *first;
    if (dash != std::string_view::npos) {
      auto end = Cpu(part.substr(dash + 1), part);
      if (!end.ok()) return end.status();
      if (*end < *first) {
        return InvalidArgument(fmt::format("'{}' ends below where it starts", part));
      }
      last = *end;
    }
    for (int cpu = *first; cpu <= last; ++cpu) cpus.push_back(cpu);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

std::string FormatCpuList(const std::vector<int>& cpus) {
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += j == i ? fmt::format("{}", cpus[i]) : fmt::format("{}-{}", cpus[i], cpus[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace xfer::topology
