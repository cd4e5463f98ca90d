#include "common/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <algorithm>
#include <filesystem>
#include <iterator>
#include <vector>

#include <fmt/format.h>

#include "common/socket.h"

namespace xfer {
namespace {

constexpr int kMaxLinkHops = 40;  // the kernel's own bound (MAXSYMLINKS)
constexpr mode_t kNewFileMode = 0644;

Status SysError(const std::string& path, std::string_view what, int error) {
  return IoError(fmt::format("{}: {}: {}", path, what, std::strerror(error)));
}

std::string Dirname(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// Names of open files, which the kernel resolves itself: /proc/..., and
// /dev/fd/N and /dev/std{in,out,err}, which lead there.
bool UnderProc(const std::string& path) {
  return path.rfind("/proc/", 0) == 0 || path.rfind("/dev/fd/", 0) == 0 ||
         path == "/dev/stdout" || path == "/dev/stderr" || path == "/dev/stdin";
}

// This process's standard output by another name: written as "-" is, at
// its own offset, not reopened.
bool IsOwnStdout(const std::string& path) {
  return path == "/dev/stdout" || path == "/dev/fd/1" || path == "/proc/self/fd/1";
}

// What `path` names once its links are followed.
struct Resolved {
  std::string final_path;     // the last name in the chain
  bool through_proc = false;  // the chain leads into /proc: an open file
  bool exists = false;        // final_path exists (and is not a link)
  mode_t mode = 0;            // its st_mode where it exists
};

Result<Resolved> Resolve(const std::string& path) {
  Resolved resolved;
  resolved.final_path = path;
  for (int hops = 0;; ++hops) {
    if (UnderProc(resolved.final_path)) {
      resolved.through_proc = true;
      return resolved;
    }
    struct stat info {};
    if (::lstat(resolved.final_path.c_str(), &info) != 0) {
      if (errno == ENOENT) return resolved;  // to be created there
      return SysError(path, "cannot write there", errno);
    }
    if (!S_ISLNK(info.st_mode)) {
      resolved.exists = true;
      resolved.mode = info.st_mode;
      return resolved;
    }
    if (hops == kMaxLinkHops) {
      return InvalidArgument(fmt::format("{}: too many levels of symbolic links", path));
    }
    std::vector<char> target(PATH_MAX);
    const ssize_t n = ::readlink(resolved.final_path.c_str(), target.data(), target.size());
    if (n < 0) return SysError(path, "cannot read the link", errno);
    const std::string next(target.data(), static_cast<size_t>(n));
    resolved.final_path = next.front() == '/' ? next : Dirname(resolved.final_path) + "/" + next;
  }
}

Status WriteAll(int fd, std::string_view text, const std::string& path) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return SysError(path, "write", errno);
    done += static_cast<size_t>(n);
  }
  return Status::Ok();
}

// A FIFO opens without waiting for a reader: none is an error, not a hang.
Result<UniqueFd> OpenStream(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (!fd.valid()) {
    if (errno == ENXIO) {
      return IoError(fmt::format("{}: no process is reading it (a FIFO takes output only while "
                                 "one does)", path));
    }
    return SysError(path, "cannot open it for writing", errno);
  }
  const int flags = ::fcntl(fd.get(), F_GETFL);
  if (flags < 0 || ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK) != 0) {
    return SysError(path, "fcntl", errno);
  }
  return fd;
}

// A new file beside `target`, named after it; returns its descriptor and
// fills `name`.
Result<UniqueFd> CreateTemporary(const std::string& target, std::string& name) {
  std::string pattern = target + ".tmp.XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  UniqueFd fd(::mkstemp(buffer.data()));
  if (!fd.valid()) return SysError(target, "cannot create a file there", errno);
  name = buffer.data();
  return fd;
}

Status Replace(const OutputTarget& target, std::string_view text) {
  struct stat old {};
  const bool existed = ::stat(target.write_path.c_str(), &old) == 0;
  std::string tmp;
  auto fd = CreateTemporary(target.write_path, tmp);
  if (!fd.ok()) return fd.status();
  Status status = WriteAll(fd->get(), text, tmp);
  // The replaced file's permissions, or the usual ones for a new file.
  const mode_t mode = existed ? (old.st_mode & 07777) : kNewFileMode;
  if (status.ok() && ::fchmod(fd->get(), mode) != 0) status = SysError(tmp, "fchmod", errno);
  if (status.ok() && ::fsync(fd->get()) != 0) status = SysError(tmp, "fsync", errno);
  if (::close(fd->release()) != 0 && status.ok()) status = SysError(tmp, "close", errno);
  if (status.ok() && ::rename(tmp.c_str(), target.write_path.c_str()) != 0) {
    status = SysError(target.path, "cannot rename the new file over it", errno);
  }
  if (!status.ok()) ::unlink(tmp.c_str());
  return status;
}

Status Stream(const OutputTarget& target, std::string_view text) {
  auto fd = OpenStream(target.path);
  if (!fd.ok()) return fd.status();
  XFER_RETURN_IF_ERROR(WriteAll(fd->get(), text, target.path));
  if (::close(fd->release()) != 0) return SysError(target.path, "close", errno);
  return Status::Ok();
}

std::string Absolute(const std::string& path) {
  std::error_code error;
  const std::filesystem::path absolute = std::filesystem::absolute(path, error);
  return error ? path : absolute.lexically_normal().string();
}

}  // namespace

Result<OutputTarget> PrepareOutput(const std::string& path) {
  if (path == "-") return OutputTarget{path, path, OutputMode::kStdout};
  if (path.empty()) return InvalidArgument("the output path is empty");
  auto resolved = Resolve(path);
  if (!resolved.ok()) return resolved.status();
  if (resolved->through_proc && IsOwnStdout(resolved->final_path)) {
    return OutputTarget{path, path, OutputMode::kStdout};
  }
  const bool replaceable = !resolved->through_proc &&
                           (!resolved->exists || S_ISREG(resolved->mode));
  if (replaceable) {
    std::string tmp;
    auto probe = CreateTemporary(resolved->final_path, tmp);
    if (!probe.ok()) return probe.status();
    ::unlink(tmp.c_str());
    return OutputTarget{path, resolved->final_path, OutputMode::kReplace};
  }
  if (resolved->exists && S_ISDIR(resolved->mode)) {
    return InvalidArgument(fmt::format("{}: is a directory", path));
  }
  // Checked without opening: a FIFO's reader would see the end of its
  // stream when the check closed it.
  if (::access(path.c_str(), W_OK) != 0) return SysError(path, "cannot write it", errno);
  // root passes access() for a file nobody may write (/proc/version), and
  // opens it too; only its mode says that every write will fail.
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) && (info.st_mode & 0222) == 0) {
    return IoError(fmt::format("{}: cannot write it: it is read-only (mode {:o})", path,
                               info.st_mode & 07777));
  }
  return OutputTarget{path, path, OutputMode::kStream};
}

Status WriteOutput(const OutputTarget& target, std::string_view text) {
  switch (target.mode) {
    case OutputMode::kStdout:
      // What stdio holds goes first, so the output keeps its order.
      if (std::fflush(stdout) != 0) return SysError("standard output", "write", errno);
      return WriteAll(STDOUT_FILENO, text, "standard output");
    case OutputMode::kReplace: return Replace(target, text);
    case OutputMode::kStream: return Stream(target, text);
  }
  return Internal("unknown output mode");
}

Status WriteOutputFile(const std::string& path, std::string_view text) {
  auto target = PrepareOutput(path);
  if (!target.ok()) return target.status();
  return WriteOutput(*target, text);
}

bool SameFile(const std::string& a, const std::string& b) {
  if (a == "-" || b == "-") return a == b;
  struct stat sa {}, sb {};
  if (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0) {
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  }
  auto ra = Resolve(a);
  auto rb = Resolve(b);
  if (!ra.ok() || !rb.ok()) return false;
  return Absolute(ra->final_path) == Absolute(rb->final_path);
}

bool WithinTree(const std::string& output, const std::string& tree) {
  if (output == "-" || tree.empty()) return false;
  auto resolved = Resolve(output);
  if (!resolved.ok()) return false;
  std::error_code error;
  // The folder that receives the file, its links followed; the name itself
  // is not followed again (Resolve did).
  const std::filesystem::path written = std::filesystem::path(Absolute(resolved->final_path));
  const std::filesystem::path folder =
      std::filesystem::weakly_canonical(written.parent_path(), error);
  if (error) return false;
  const std::filesystem::path file = folder / written.filename();
  const std::filesystem::path root = std::filesystem::weakly_canonical(tree, error);
  if (error) return false;
  auto [root_end, file_at] = std::mismatch(root.begin(), root.end(), file.begin(), file.end());
  return root_end == root.end() ||
         (std::next(root_end) == root.end() && root_end->empty());  // "dir/" ends in ""
}

}  // namespace xfer
