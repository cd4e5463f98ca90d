#include "doctor/doctor_command.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace xfer::doctor {
namespace {

// Writes atomically: a temporary file beside `path`, fsync, then rename, so
// that a reader never sees a half-written report and a failed write leaves
// the old file. (xfer_report's WriteJsonFile does the same; the doctor does
// not depend on xfer_report.)
Status WriteJson(const std::string& path, const nlohmann::json& document) {
  const std::string text = document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  const std::string tmp = fmt::format("{}.tmp.{}", path, ::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return IoError(fmt::format("--json {}: cannot be written: {}", path, std::strerror(errno)));
  auto fail = [&](const char* what) {
    const int error = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    return IoError(fmt::format("--json {}: {} failed: {}", path, what, std::strerror(error)));
  };
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail("write");
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) return fail("fsync");
  if (::close(fd) != 0) {
    const int error = errno;
    ::unlink(tmp.c_str());
    return IoError(fmt::format("--json {}: close failed: {}", path, std::strerror(error)));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(tmp.c_str());
    return IoError(fmt::format("--json {}: rename failed: {}", path, std::strerror(error)));
  }
  return Status::Ok();
}

}  // namespace

int RunDoctorCommand(const DoctorOptions& options, const std::string& json_path, std::FILE* out, std::FILE* err) {
  const Result<DoctorReport> report = Diagnose(options);
  if (!report.ok()) {
    std::fprintf(err, "xfer: doctor: %s\n", report.status().message().c_str());
    return 1;
  }
  std::fputs(DoctorText(*report).c_str(), out);
  if (!json_path.empty()) {
    if (const Status written = WriteJson(json_path, DoctorJson(*report)); !written.ok()) {
      std::fprintf(err, "xfer: doctor: %s\n", written.message().c_str());
      return 1;
    }
  }
  return 0;
}

}  // namespace xfer::doctor
