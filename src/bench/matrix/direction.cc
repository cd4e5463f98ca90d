#include "bench/matrix/direction.h"

#include <fmt/format.h>

#include "bench/matrix/memory_placement.h"

namespace xfer::matrix {

std::string Direction::Name() const {
  return op == OpCode::kWrite ? fmt::format("{}2r{}", initiator, target)
                              : fmt::format("r{}2{}", target, initiator);
}

std::vector<Direction> AllDirections() {
  const std::string letters = PlacementLetters();
  std::vector<Direction> directions;
  for (OpCode op : {OpCode::kWrite, OpCode::kRead}) {
    for (size_t i = 0; i < letters.size(); ++i) {
      for (size_t j = 0; j < letters.size(); ++j) {
        const size_t t = i % 2 == 0 ? j : letters.size() - 1 - j;
        directions.push_back({op, letters[i], letters[t]});
      }
    }
  }
  return directions;
}

Result<Direction> ParseDirection(std::string_view name) {
  for (const Direction& direction : AllDirections()) {
    if (direction.Name() == name) return direction;
  }
  return InvalidArgument(
      fmt::format("'{}' is not a direction (expected one of {})", name, DirectionNameList()));
}

std::string DirectionNameList() {
  std::string list;
  for (const Direction& direction : AllDirections()) {
    if (!list.empty()) list += ", ";
    list += direction.Name();
  }
  return list;
}

}  // namespace xfer::matrix
