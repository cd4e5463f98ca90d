// Typed reads of an untrusted JSON document, each naming where it failed.
// A Field is a value with its JSON path ("results[3].MsgSize"); every
// accessor checks the type and range it promises and otherwise returns
// kInvalidArgument "<path>: expected <what>" (the caller prefixes the file
// name). Required fields that are absent give "<path>: missing". Used by
// report/run_document.cc; pure, thread-safe.
#ifndef XFER_REPORT_JSON_FIELDS_H_
#define XFER_REPORT_JSON_FIELDS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "xfer/status.h"

namespace xfer::report {

class Field {
 public:
  Field(const nlohmann::json& value, std::string path) : value_(&value), path_(std::move(path)) {}

  const nlohmann::json& value() const { return *value_; }
  const std::string& path() const { return path_; }
  bool is_null() const { return value_->is_null(); }

  // The member `key` of this object; errors when this is no object or the
  // member is absent.
  Result<Field> Member(std::string_view key) const;
  // The member, or nullopt when it is absent (an error when this is no
  // object).
  Result<std::optional<Field>> OptionalMember(std::string_view key) const;
  // Element `i` of this array; i must be below Size().
  Field Element(size_t i) const;

  Status ExpectObject() const;
  // The element count; errors when this is no array.
  Result<size_t> ArraySize() const;

  Result<std::string> String() const;
  Result<bool> Bool() const;
  // An integer >= 1 (a size), stored as an integer in the document.
  Result<uint64_t> PositiveInteger() const;
  // An integer >= 0.
  Result<uint64_t> Count() const;
  // A finite number >= 0 (integer or floating point).
  Result<double> NonNegative() const;

  // "<path>: <problem>" as kInvalidArgument.
  Status Error(std::string_view problem) const;

 private:
  const nlohmann::json* value_;
  std::string path_;
};

}  // namespace xfer::report

// `lhs = *expr` for a Result expr, or returns its error from the caller.
// `lhs` may declare ("Field f") or name an existing variable.
#define XFER_REPORT_CONCAT_INNER(a, b) a##b
#define XFER_REPORT_CONCAT(a, b) XFER_REPORT_CONCAT_INNER(a, b)
#define XFER_REPORT_ASSIGN_OR_RETURN(lhs, expr) \
  XFER_REPORT_ASSIGN_OR_RETURN_IMPL(XFER_REPORT_CONCAT(xfer_result_, __LINE__), lhs, expr)
#define XFER_REPORT_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                       \
  if (!tmp.ok()) return tmp.status();                      \
  lhs = std::move(*tmp)

#endif  // XFER_REPORT_JSON_FIELDS_H_
