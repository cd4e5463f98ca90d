#include "xfer/memory.h"

namespace xfer {

const char* MemoryKindName(MemoryKind kind) {
  switch (kind) {
    case MemoryKind::kHost:
      return "host";
    case MemoryKind::kHugepage:
      return "hugepage";
    case MemoryKind::kCuda:
      return "cuda";
  }
  return "unknown";
}

}  // namespace xfer
