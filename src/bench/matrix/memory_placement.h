// Where the matrix puts a buffer: the memory kinds a direction's letters
// stand for. HIXL names directions by memory class ('H' host, 'D' device);
// each class has one or more concrete kinds ("host", "hugepage" for H).
//
// A new memory kind plugs in here and nowhere else: add a row to the
// catalog in memory_placement.cc. Directions, the plan, the runners and the
// reports only ever see MemoryPlacement values.
#ifndef XFER_BENCH_MATRIX_MEMORY_PLACEMENT_H_
#define XFER_BENCH_MATRIX_MEMORY_PLACEMENT_H_

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "xfer/memory.h"
#include "xfer/status.h"

namespace xfer::matrix {

struct MemoryPlacement {
  std::string_view name;   // "host", "hugepage", "device": --memory's value
  char letter = 'H';       // the class letter in direction names
  std::string_view description;  // one line for --help
  // What Engine::AllocateMemory is asked for. None: this build of libxfer
  // has no way to allocate this kind; `unsupported` says why.
  std::optional<MemoryKind> engine_kind;
  std::string_view unsupported;
};

// Every kind, in help order. The storage is static; never empty. The first
// kind of each letter is that class's default.
std::span<const MemoryPlacement> AllPlacements();

// The kind called `name`, or nullptr.
const MemoryPlacement* FindPlacement(std::string_view name);

// The class letters in the order directions enumerate them ("DH").
std::string PlacementLetters();

// The default kind of class `letter`, or nullptr for an unknown letter.
const MemoryPlacement* DefaultPlacement(char letter);

// "host, hugepage, device".
std::string PlacementNameList();

}  // namespace xfer::matrix

#endif  // XFER_BENCH_MATRIX_MEMORY_PLACEMENT_H_
