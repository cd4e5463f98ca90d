#include "doctor/doctor_command.h"

#include <fmt/format.h>

#include "common/exit_status.h"
#include "common/output_file.h"

namespace xfer::doctor {
namespace {

// As every xfer output (common/output_file.h): a file atomically, a link's
// target, a stream written through.
Status WriteJson(const std::string& path, const nlohmann::json& document) {
  const std::string text = document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  const Status written = WriteOutputFile(path, text);
  return written.ok() ? written : Status(written.code(), "--json " + written.message());
}

}  // namespace

int RunDoctorCommand(const DoctorOptions& options, const std::string& json_path, std::FILE* out, std::FILE* err) {
  // A --json that cannot be written is bad usage, found before any work.
  if (!json_path.empty()) {
    if (const Status writable = PrepareOutput(json_path).status(); !writable.ok()) {
      std::fprintf(err, "xfer: doctor: --json %s\n", writable.message().c_str());
      return kExitUsage;
    }
  }
  const Result<DoctorReport> report = Diagnose(options);
  if (!report.ok()) {
    std::fprintf(err, "xfer: doctor: %s\n", report.status().message().c_str());
    return kExitFailed;
  }
  std::fputs(DoctorText(*report).c_str(), out);
  if (!json_path.empty()) {
    if (const Status written = WriteJson(json_path, DoctorJson(*report)); !written.ok()) {
      std::fprintf(err, "xfer: doctor: %s\n", written.message().c_str());
      return kExitFailed;
    }
  }
  return kExitOk;
}

}  // namespace xfer::doctor
