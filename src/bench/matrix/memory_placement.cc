#include "bench/matrix/memory_placement.h"

#include <array>

namespace xfer::matrix {
namespace {

// Device first: HIXL's tables start with D2rD.
constexpr std::array<MemoryPlacement, 3> kPlacements = {{
    {"device", 'D', "CUDA device memory on the GPU --use_cuda names (default 0)",
     MemoryKind::kCuda, {}},
    {"host", 'H', "ordinary pages", MemoryKind::kHost, {}},
    {"hugepage", 'H', "2 MiB hugepages (needs free pages in /proc/sys/vm/nr_hugepages)",
     MemoryKind::kHugepage, {}},
}};

}  // namespace

std::span<const MemoryPlacement> AllPlacements() { return kPlacements; }

const MemoryPlacement* FindPlacement(std::string_view name) {
  for (const MemoryPlacement& placement : kPlacements) {
    if (placement.name == name) return &placement;
  }
  return nullptr;
}

std::string PlacementLetters() {
  std::string letters;
  for (const MemoryPlacement& placement : kPlacements) {
    if (letters.find(placement.letter) == std::string::npos) letters += placement.letter;
  }
  return letters;
}

const MemoryPlacement* DefaultPlacement(char letter) {
  for (const MemoryPlacement& placement : kPlacements) {
    if (placement.letter == letter) return &placement;
  }
  return nullptr;
}

std::string PlacementNameList() {
  std::string list;
  for (const MemoryPlacement& placement : kPlacements) {
    if (!list.empty()) list += ", ";
    list += placement.name;
  }
  return list;
}

}  // namespace xfer::matrix
