// Reading<T>: a value read from the system, or the reason it is unknown.
//
// The doctor never guesses: every factor it prints is either a value it read
// (or derived, and then says so) or "unknown: <reason>".
#ifndef XFER_TOPOLOGY_READING_H_
#define XFER_TOPOLOGY_READING_H_

#include <optional>
#include <string>
#include <utility>

namespace xfer::topology {

template <typename T>
struct Reading {
  std::optional<T> value;
  std::string unknown_reason;  // set exactly when value is empty

  static Reading Known(T v) { return Reading{std::move(v), {}}; }
  static Reading Unknown(std::string why) { return Reading{std::nullopt, std::move(why)}; }

  bool known() const { return value.has_value(); }
  // "unknown: <reason>", for text output of an absent value.
  std::string UnknownText() const { return "unknown: " + unknown_reason; }
};

}  // namespace xfer::topology

#endif  // XFER_TOPOLOGY_READING_H_
