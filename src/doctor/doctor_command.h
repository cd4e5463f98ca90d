// `xfer doctor`, as main() runs it.
#ifndef XFER_DOCTOR_DOCTOR_COMMAND_H_
#define XFER_DOCTOR_DOCTOR_COMMAND_H_

#include <cstdio>
#include <string>

#include "doctor/doctor_report.h"

namespace xfer::doctor {

// Prints the report on `out` and, with a non-empty `json_path`, writes it
// there too. Errors go to `err` as "xfer: doctor: <message>".
// Exit status: 0 done; 1 a bad --run file (the message names it), no
// device to diagnose, or --json cannot be written.
int RunDoctorCommand(const DoctorOptions& options, const std::string& json_path, std::FILE* out, std::FILE* err);

}  // namespace xfer::doctor

#endif  // XFER_DOCTOR_DOCTOR_COMMAND_H_
