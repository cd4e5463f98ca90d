#include "report/json_fields.h"

#include <fmt/format.h>

#include <cmath>

namespace xfer::report {
namespace {

using nlohmann::json;

// What a value is, for "expected X, got Y" messages.
std::string_view TypeName(const json& value) {
  if (value.is_number_float() && !std::isfinite(value.get<double>())) return "a non-finite number";
  return value.type_name();
}

}  // namespace

Status Field::Error(std::string_view problem) const {
  return InvalidArgument(fmt::format("{}: {}", path_, problem));
}

Status Field::ExpectObject() const {
  if (value_->is_object()) return Status::Ok();
  return Error(fmt::format("expected an object, got {}", TypeName(*value_)));
}

Result<Field> Field::Member(std::string_view key) const {
  XFER_RETURN_IF_ERROR(ExpectObject());
  const std::string path = path_.empty() ? std::string(key) : fmt::format("{}.{}", path_, key);
  const auto it = value_->find(key);
  if (it == value_->end()) return InvalidArgument(path + ": missing");
  return Field(*it, path);
}

Result<std::optional<Field>> Field::OptionalMember(std::string_view key) const {
  XFER_RETURN_IF_ERROR(ExpectObject());
  const auto it = value_->find(key);
  if (it == value_->end()) return std::optional<Field>();
  const std::string path = path_.empty() ? std::string(key) : fmt::format("{}.{}", path_, key);
  return std::optional<Field>(Field(*it, path));
}

Field Field::Element(size_t i) const { return Field((*value_)[i], fmt::format("{}[{}]", path_, i)); }

Result<size_t> Field::ArraySize() const {
  if (!value_->is_array()) return Error(fmt::format("expected an array, got {}", TypeName(*value_)));
  return value_->size();
}

Result<std::string> Field::String() const {
  if (!value_->is_string()) return Error(fmt::format("expected a string, got {}", TypeName(*value_)));
  return value_->get<std::string>();
}

Result<bool> Field::Bool() const {
  if (!value_->is_boolean()) return Error(fmt::format("expected true or false, got {}", TypeName(*value_)));
  return value_->get<bool>();
}

Result<uint64_t> Field::PositiveInteger() const {
  if (value_->is_number_unsigned() && value_->get<uint64_t>() > 0) return value_->get<uint64_t>();
  return Error("expected a positive integer");
}

Result<uint64_t> Field::Count() const {
  if (value_->is_number_unsigned()) return value_->get<uint64_t>();
  return Error("expected a non-negative integer");
}

Result<double> Field::NonNegative() const {
  if (value_->is_number()) {
    const double number = value_->get<double>();
    if (std::isfinite(number) && number >= 0) return number;
  }
  const bool finite = value_->is_number() && std::isfinite(value_->get<double>());
  return Error(fmt::format("expected a finite number >= 0, got {}",
                           finite ? value_->dump() : std::string(TypeName(*value_))));
}

}  // namespace xfer::report
