// Status and Result: how every libxfer call reports success or failure.
//
// No exception crosses the libxfer API. Every fallible call returns a Status
// or a Result<T>. kInProgress is a state, not a failure: it is what
// TransferRequest::Test() returns while a transfer is still in flight.
#ifndef XFER_STATUS_H_
#define XFER_STATUS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include "xfer/export.h"

namespace xfer {

enum class StatusCode : uint8_t {
  kOk = 0,
  kInProgress,         // a request is still in flight
  kInvalidArgument,    // the caller passed something malformed
  kNotFound,           // no such peer, region or transport
  kPermissionDenied,   // the region does not grant the access, or the peer failed authentication
  kOutOfRange,         // an address range falls outside registered memory
  kTimeout,            // a wait ran past its deadline
  kConnectionLost,     // the peer closed, died or reset the connection
  kProtocolError,      // the peer sent bytes that do not parse
  kNotSupported,       // the transport or build lacks the capability
  kResourceExhausted,  // out of memory, hugepages, descriptors, ...
  kFailedPrecondition, // the system is not in a state to do it (no device, port down)
  kIoError,            // a system call failed
  kInternal,           // a bug in libxfer
  // The caller cancelled the request (Engine::Cancel). Last, so that the
  // codes peers exchange on the wire (kOk..kInternal) keep their values.
  kCancelled,
};

// Returns a stable lower-case name such as "out of range".
XFER_API std::string_view StatusCodeName(StatusCode code);

// A status code plus a human-readable message naming what went wrong.
// Copyable value type, two words wide. A status without a message (OK, in
// progress) allocates nothing and costs two stores to make and one test to
// destroy, so that the hot path may return one per call.
class [[nodiscard]] XFER_API Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message)
      : code_(code), message_(message.empty() ? nullptr : NewMessage(std::move(message))) {}
  Status(const Status& other)
      : code_(other.code_),
        message_(other.message_ == nullptr ? nullptr : NewMessage(*other.message_)) {}
  Status& operator=(const Status& other) {
    if (this != &other) *this = Status(other);
    return *this;
  }
  Status(Status&& other) noexcept
      : code_(other.code_), message_(std::exchange(other.message_, nullptr)) {}
  Status& operator=(Status&& other) noexcept {
    std::swap(code_, other.code_);
    std::swap(message_, other.message_);
    return *this;
  }
  ~Status() {
    if (message_ != nullptr) DeleteMessage(message_);
  }

  static Status Ok() { return Status(); }
  static Status InProgress() { return Status(StatusCode::kInProgress, {}); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_ != nullptr ? *message_ : EmptyMessage(); }

  // "<code name>: <message>", or "ok".
  std::string ToString() const;

  // Returns a copy whose message is "<context>: <message>".
  Status WithContext(std::string_view context) const;

 private:
  // Out of line, so that the OK path inlines to a test and the allocation
  // lives in one place.
  static const std::string* NewMessage(std::string message);
  static void DeleteMessage(const std::string* message);
  static const std::string& EmptyMessage();

  StatusCode code_ = StatusCode::kOk;
  const std::string* message_ = nullptr;  // owned; null: no message
};

inline Status InvalidArgument(std::string m) { return {StatusCode::kInvalidArgument, std::move(m)}; }
inline Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
inline Status PermissionDenied(std::string m) { return {StatusCode::kPermissionDenied, std::move(m)}; }
inline Status OutOfRange(std::string m) { return {StatusCode::kOutOfRange, std::move(m)}; }
inline Status Timeout(std::string m) { return {StatusCode::kTimeout, std::move(m)}; }
inline Status ConnectionLost(std::string m) { return {StatusCode::kConnectionLost, std::move(m)}; }
inline Status ProtocolError(std::string m) { return {StatusCode::kProtocolError, std::move(m)}; }
inline Status NotSupported(std::string m) { return {StatusCode::kNotSupported, std::move(m)}; }
inline Status ResourceExhausted(std::string m) { return {StatusCode::kResourceExhausted, std::move(m)}; }
inline Status FailedPrecondition(std::string m) { return {StatusCode::kFailedPrecondition, std::move(m)}; }
inline Status IoError(std::string m) { return {StatusCode::kIoError, std::move(m)}; }
inline Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }
inline Status Cancelled(std::string m) { return {StatusCode::kCancelled, std::move(m)}; }

// What Result does when its value is asked of an error: prints "xfer:
// Result::value() called on an error: <status>" to stderr and aborts. A
// contract violation is not an error to report: it ends the process, in
// every build, rather than throw across the API.
[[noreturn]] XFER_API void AbortOnValueOfError(const Status& status);

// Either a value of type T or a non-OK Status; shaped like C++23
// std::expected. Accessing the value of an error Result (value(), *, ->)
// is a bug: it aborts the process with the error on stderr, in every build
// (no exception crosses the API). Test ok() first.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : storage_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : storage_(std::move(status)) {}  // NOLINT

  bool ok() const { return std::holds_alternative<T>(storage_); }
  explicit operator bool() const { return ok(); }

  // The error; Status::Ok() when the Result holds a value.
  Status status() const { return ok() ? Status::Ok() : std::get<Status>(storage_); }

  T& value() & { return *Checked(); }
  const T& value() const& { return *Checked(); }
  T&& value() && { return std::move(*Checked()); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  T* Checked() {
    if (T* held = std::get_if<T>(&storage_)) return held;
    AbortOnValueOfError(*std::get_if<Status>(&storage_));
  }
  const T* Checked() const {
    if (const T* held = std::get_if<T>(&storage_)) return held;
    AbortOnValueOfError(*std::get_if<Status>(&storage_));
  }

  std::variant<T, Status> storage_;
};

}  // namespace xfer

// Propagates a non-OK Status from an expression to the caller.
#define XFER_RETURN_IF_ERROR(expr)               \
  do {                                           \
    ::xfer::Status xfer_status_ = (expr);        \
    if (!xfer_status_.ok()) return xfer_status_; \
  } while (0)

#endif  // XFER_STATUS_H_
