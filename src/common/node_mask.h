// A NUMA node mask as the kernel's memory-policy calls take it (mbind,
// set_mempolicy, migrate_pages): bit n of an array of unsigned longs for
// node n, passed with its size in bits plus one (the kernel reads maxnode
// - 1 bits).
#ifndef XFER_COMMON_NODE_MASK_H_
#define XFER_COMMON_NODE_MASK_H_

#include <cstddef>
#include <span>
#include <vector>

namespace xfer {

class NodeMask {
 public:
  // The most nodes a mask holds: as many as a 1024-CPU host can have.
  static constexpr size_t kMaxNodes = 1024;

  // REQUIRES: every node in [0, kMaxNodes).
  explicit NodeMask(std::span<const int> nodes) : words_(kMaxNodes / kBitsPerWord, 0) {
    for (const int node : nodes) {
      const auto n = static_cast<size_t>(node);
      words_[n / kBitsPerWord] |= 1ul << (n % kBitsPerWord);
    }
  }

  const unsigned long* data() const { return words_.data(); }
  // The kernel's maxnode argument for this mask.
  static constexpr unsigned long MaxNode() { return kMaxNodes + 1; }

 private:
  static constexpr size_t kBitsPerWord = 8 * sizeof(unsigned long);
  std::vector<unsigned long> words_;
};

}  // namespace xfer

#endif  // XFER_COMMON_NODE_MASK_H_
