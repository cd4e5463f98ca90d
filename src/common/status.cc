#include "xfer/status.h"

#include <cstdio>
#include <cstdlib>

namespace xfer {

void AbortOnValueOfError(const Status& status) {
  std::fprintf(stderr, "xfer: Result::value() called on an error: %s\n",
               status.ToString().c_str());
  std::fflush(stderr);
  std::abort();
}

std::string_view StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "ok";
    case StatusCode::kInProgress: return "in progress";
    case StatusCode::kInvalidArgument: return "invalid argument";
    case StatusCode::kNotFound: return "not found";
    case StatusCode::kPermissionDenied: return "permission denied";
    case StatusCode::kOutOfRange: return "out of range";
    case StatusCode::kTimeout: return "timeout";
    case StatusCode::kConnectionLost: return "connection lost";
    case StatusCode::kProtocolError: return "protocol error";
    case StatusCode::kNotSupported: return "not supported";
    case StatusCode::kResourceExhausted: return "resource exhausted";
    case StatusCode::kFailedPrecondition: return "failed precondition";
    case StatusCode::kIoError: return "i/o error";
    case StatusCode::kInternal: return "internal error";
    case StatusCode::kCancelled: return "cancelled";
  }
  return "unknown status";
}

const std::string* Status::NewMessage(std::string message) {
  return new std::string(std::move(message));
}

void Status::DeleteMessage(const std::string* message) { delete message; }

const std::string& Status::EmptyMessage() {
  static const std::string empty;
  return empty;
}

std::string Status::ToString() const {
  if (ok()) return "ok";
  std::string out(StatusCodeName(code_));
  if (message_) {
    out += ": ";
    out += *message_;
  }
  return out;
}

Status Status::WithContext(std::string_view context) const {
  if (ok()) return *this;
  std::string message(context);
  if (message_) {
    message += ": ";
    message += *message_;
  }
  return Status(code_, std::move(message));
}

}  // namespace xfer
