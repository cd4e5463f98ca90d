#include "common/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "common/unique_fd.h"

namespace xfer {

Result<std::string> ReadInputFile(const std::string& path, size_t max_bytes) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    return IoError(fmt::format("{}: cannot read it: {}", path, std::strerror(errno)));
  }
  if (S_ISDIR(info.st_mode)) return InvalidArgument(fmt::format("{}: is a directory", path));
  if (!S_ISREG(info.st_mode)) {
    return InvalidArgument(fmt::format("{}: is not a regular file", path));
  }
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) {
    return IoError(fmt::format("{}: cannot read it: {}", path, std::strerror(errno)));
  }
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return IoError(fmt::format("{}: cannot read it: {}", path, std::strerror(errno)));
    if (n == 0) return text;
    if (text.size() + static_cast<size_t>(n) > max_bytes) {
      return ResourceExhausted(fmt::format("{}: larger than {} bytes", path, max_bytes));
    }
    text.append(buffer, static_cast<size_t>(n));
  }
}

Status CheckInputDirectory(const std::string& flag, const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    return InvalidArgument(fmt::format("{} {}: no such directory", flag, path));
  }
  if (!S_ISDIR(info.st_mode)) {
    return InvalidArgument(fmt::format("{} {}: is not a directory", flag, path));
  }
  return Status::Ok();
}

}  // namespace xfer
