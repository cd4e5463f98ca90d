#include "doctor/doctor_command.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace xfer::doctor {
namespace {

Status WriteJson(const std::string& path, const nlohmann::json& document) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return IoError(fmt::format("--json {}: cannot be written: {}", path, std::strerror(errno)));
  out << document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  out.close();
  if (!out) return IoError(fmt::format("--json {}: write failed", path));
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
