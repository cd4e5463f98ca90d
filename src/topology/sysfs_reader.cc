#include "topology/sysfs_reader.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>

namespace xfer::topology {
namespace {

std::string ErrnoReason(int error, const std::string& where) {
  switch (error) {
    case ENOENT:
    case ENOTDIR:
      return fmt::format("{} is missing", where);
    case EACCES:
    case EPERM:
      return fmt::format("{}: permission denied (needs root?)", where);
    case EINVAL:
      return fmt::format("{}: read fails with EINVAL (a netdev that is down reads so)", where);
    default:
      return fmt::format("{}: {}", where, std::strerror(error));
  }
}

std::string_view TrimRight(std::string_view text) {
  const size_t end = text.find_last_not_of(" \t\r\n");
  return end == std::string_view::npos ? std::string_view{} : text.substr(0, end + 1);
}

}  // namespace

SysfsReader::SysfsReader(std::filesystem::path root) : root_(std::move(root)) {}

std::filesystem::path SysfsReader::Full(std::string_view path) const {
  std::string_view relative = path;
  while (relative.starts_with('/')) relative.remove_prefix(1);
  return root_ / std::filesystem::path(relative);
}

Reading<std::string> SysfsReader::ReadAll(std::string_view path) const {
  const std::string where(path);
  const int fd = ::open(Full(path).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Reading<std::string>::Unknown(ErrnoReason(errno, where));
  std::string text;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      ::close(fd);
      return Reading<std::string>::Unknown(ErrnoReason(error, where));
    }
    if (n == 0) break;
    text.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return Reading<std::string>::Known(std::move(text));
}

Reading<std::string> SysfsReader::ReadText(std::string_view path) const {
  const Reading<std::string> whole = ReadAll(path);
  if (!whole.known()) return whole;
  std::string_view line = *whole.value;
  line = line.substr(0, line.find('\n'));
  line = TrimRight(line);
  if (line.empty()) return Reading<std::string>::Unknown(std::string(path) + " is empty");
  return Reading<std::string>::Known(std::string(line));
}

Reading<std::string> SysfsReader::ReadField(std::string_view path, std::string_view key) const {
  const Reading<std::string> whole = ReadAll(path);
  if (!whole.known()) return whole;
  std::string_view rest = *whole.value;
  while (!rest.empty()) {
    const size_t end = rest.find('\n');
    std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end + 1);
    if (!line.starts_with(key)) continue;
    line.remove_prefix(key.size());
    const size_t colon = line.find_first_not_of(" \t");
    if (colon == std::string_view::npos || line[colon] != ':') continue;
    line.remove_prefix(colon + 1);
    const size_t start = line.find_first_not_of(" \t");
    line = start == std::string_view::npos ? std::string_view{} : TrimRight(line.substr(start));
    if (line.empty()) break;
    return Reading<std::string>::Known(std::string(line));
  }
  return Reading<std::string>::Unknown(fmt::format("{} has no '{}' line", path, key));
}

Reading<int64_t> SysfsReader::ReadInteger(std::string_view path) const {
  const Reading<std::string> text = ReadText(path);
  if (!text.known()) return Reading<int64_t>::Unknown(text.unknown_reason);
  std::string_view digits = *text.value;
  const bool negative = digits.starts_with('-');
  if (negative) digits.remove_prefix(1);
  int base = 10;
  if (digits.starts_with("0x") || digits.starts_with("0X")) {
    base = 16;
    digits.remove_prefix(2);
  }
  int64_t value = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value, base);
  if (error != std::errc() || end != digits.data() + digits.size() || digits.empty()) {
    return Reading<int64_t>::Unknown(fmt::format("{} reads '{}', not a number", path, *text.value));
  }
  if (negative) value = -value;
  if (value == -1) {
    return Reading<int64_t>::Unknown(fmt::format("{} reads -1 (the kernel does not know)", path));
  }
  return Reading<int64_t>::Known(value);
}

std::vector<std::string> SysfsReader::List(std::string_view path) const {
  std::vector<std::string> names;
  std::error_code error;
  for (std::filesystem::directory_iterator it(Full(path), error), end; !error && it != end;
       it.increment(error)) {
    names.push_back(it->path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

bool SysfsReader::Exists(std::string_view path) const {
  std::error_code error;
  return std::filesystem::exists(Full(path), error);
}

std::optional<std::string> SysfsReader::Resolve(std::string_view path) const {
  std::error_code error;
  const std::filesystem::path resolved = std::filesystem::canonical(Full(path), error);
  if (error) return std::nullopt;
  const std::filesystem::path root = std::filesystem::canonical(root_, error);
  if (error) return std::nullopt;
  const std::string full = resolved.string();
  const std::string prefix = root.string() == "/" ? "" : root.string();
  if (!full.starts_with(prefix)) return std::nullopt;
  std::string inside = full.substr(prefix.size());
  if (!inside.empty() && inside.front() != '/') return std::nullopt;  // a sibling of root
  return inside.empty() ? std::string("/") : inside;
}

Reading<int64_t> KibibytesOf(const Reading<std::string>& text) {
  if (!text.known()) return Reading<int64_t>::Unknown(text.unknown_reason);
  std::string_view value = *text.value;
  int64_t kib = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), kib);
  std::string_view unit(end, static_cast<size_t>(value.data() + value.size() - end));
  while (unit.starts_with(' ')) unit.remove_prefix(1);
  if (error != std::errc() || kib < 0 || unit != "kB") {
    return Reading<int64_t>::Unknown(fmt::format("'{}' is no size in kB", value));
  }
  return Reading<int64_t>::Known(kib);
}

std::string ParentPath(std::string_view path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string_view::npos || slash == 0) return "/";
  return std::string(path.substr(0, slash));
}

std::string BaseName(std::string_view path) {
  const size_t slash = path.find_last_of('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

}  // namespace xfer::topology
