#include "common/host_memory.h"

#include <charconv>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace xfer {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::optional<std::string> ReadText(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::optional<uint64_t> ParseNumber(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  uint64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end == text.data()) return std::nullopt;
  return value;
}

std::optional<uint64_t> ReadNumber(const std::string& path) {
  auto text = ReadText(path);
  if (!text) return std::nullopt;
  return ParseNumber(*text);  // "max" (v2, no limit) is not a number
}

// The group of this process in the v2 hierarchy ("0::/a/b") and in v1's
// memory controller ("4:memory:/a/b").
struct CgroupPaths {
  std::string unified;
  std::string memory_v1;
};

CgroupPaths OwnCgroups() {
  CgroupPaths paths;
  std::istringstream lines(ReadText("/proc/self/cgroup").value_or(""));
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("0::", 0) == 0) paths.unified = line.substr(3);
    const size_t memory = line.find(":memory:");
    if (memory != std::string::npos) paths.memory_v1 = line.substr(memory + 8);
  }
  return paths;
}

std::optional<uint64_t> Left(std::optional<uint64_t> limit, std::optional<uint64_t> used) {
  // v1 reports "no limit" as a number near 2^63.
  if (!limit || *limit >= (uint64_t{1} << 62)) return std::nullopt;
  const uint64_t in_use = used.value_or(0);
  return *limit > in_use ? *limit - in_use : 0;
}

std::optional<uint64_t> CgroupLeft() {
  const CgroupPaths paths = OwnCgroups();
  if (!paths.unified.empty() || paths.memory_v1.empty()) {
    const std::string dir = "/sys/fs/cgroup" + (paths.unified == "/" ? "" : paths.unified);
    if (auto left = Left(ReadNumber(dir + "/memory.max"), ReadNumber(dir + "/memory.current"))) {
      return left;
    }
  }
  // v1: the group's folder where the hierarchy shows it, else the mount's
  // root, which is the group itself inside a cgroup namespace.
  for (const std::string& dir : {"/sys/fs/cgroup/memory" + paths.memory_v1,
                                 std::string("/sys/fs/cgroup/memory")}) {
    auto limit = ReadNumber(dir + "/memory.limit_in_bytes");
    if (!limit) continue;
    return Left(limit, ReadNumber(dir + "/memory.usage_in_bytes"));
  }
  return std::nullopt;
}

}  // namespace

std::optional<uint64_t> ParseMemAvailable(std::string_view meminfo) {
  constexpr std::string_view kKey = "MemAvailable:";
  const size_t at = meminfo.find(kKey);
  if (at == std::string_view::npos || (at != 0 && meminfo[at - 1] != '\n')) return std::nullopt;
  std::string_view rest = meminfo.substr(at + kKey.size());
  rest = rest.substr(0, rest.find('\n'));
  auto kib = ParseNumber(rest);
  if (!kib || rest.find("kB") == std::string_view::npos) return std::nullopt;
  if (*kib > UINT64_MAX / 1024) return std::nullopt;
  return *kib * 1024;
}

HostMemory ReadHostMemory() {
  HostMemory memory;
  if (auto meminfo = ReadText("/proc/meminfo")) memory.available = ParseMemAvailable(*meminfo);
  memory.cgroup_left = CgroupLeft();
  return memory;
}

Status CheckHostCanBack(uint64_t bytes, std::string_view what, const HostMemory& memory) {
  const auto requested = [&] {
    return fmt::format("cannot allocate {} bytes ({:.1f} GiB) of {}", bytes,
                       static_cast<double>(bytes) / kGiB, what);
  };
  if (memory.cgroup_left && bytes > *memory.cgroup_left &&
      (!memory.available || *memory.cgroup_left <= *memory.available)) {
    return ResourceExhausted(fmt::format(
        "{}: this process's memory cgroup allows {:.1f} GiB more", requested(),
        static_cast<double>(*memory.cgroup_left) / kGiB));
  }
  if (memory.available && bytes > *memory.available) {
    return ResourceExhausted(fmt::format("{}: this host has {:.1f} GiB available (MemAvailable)",
                                         requested(),
                                         static_cast<double>(*memory.available) / kGiB));
  }
  return Status::Ok();
}

}  // namespace xfer
