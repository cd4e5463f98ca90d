#include "report/text_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace xfer::report {
namespace {

Status SysError(const std::string& path, std::string_view call) {
  return IoError(fmt::format("{}: {}: {}", path, call, std::strerror(errno)));
}

Status WriteAll(int fd, const std::string& text, const std::string& tmp) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return SysError(tmp, "write");
    done += static_cast<size_t>(n);
  }
  if (::fchmod(fd, 0644) != 0) return SysError(tmp, "fchmod");
  if (::fsync(fd) != 0) return SysError(tmp, "fsync");
  return Status::Ok();
}

}  // namespace

Status WriteTextFile(const std::string& path, const std::string& text) {
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
    return IoError(fmt::format("{}: is a directory", path));
  }
  std::string tmp_name = path + ".tmp.XXXXXX";
  std::vector<char> tmp(tmp_name.begin(), tmp_name.end());
  tmp.push_back('\0');
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) return SysError(path, "cannot create temporary file");
  tmp_name = tmp.data();
  Status status = WriteAll(fd, text, tmp_name);
  if (::close(fd) != 0 && status.ok()) status = SysError(tmp_name, "close");
  if (status.ok() && ::rename(tmp_name.c_str(), path.c_str()) != 0) status = SysError(path, "rename");
  if (!status.ok()) ::unlink(tmp_name.c_str());
  return status;
}

}  // namespace xfer::report
