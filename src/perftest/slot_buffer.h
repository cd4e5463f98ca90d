// The memory a perftest-style verbs test works on, laid out as perftest
// lays it out (../shared/reference/perftest.md §1.4-1.5) so that a stock
// peer's addressing lands inside it: per QP, one send slot and one receive
// slot of BUFF_SIZE = max(size, cycle_buffer) bytes each, all send slots
// first. The receive slot of QP i is what QP i advertises as its vaddr.
#ifndef XFER_PERFTEST_SLOT_BUFFER_H_
#define XFER_PERFTEST_SLOT_BUFFER_H_

#include <cstddef>
#include <cstdint>

#include "cuda/device_runtime.h"
#include "xfer/status.h"

namespace xfer::perftest {

// perftest's BUFF_SIZE(size, cycle_buffer) and INC(size, cache_line).
inline uint64_t SlotSize(uint64_t size, uint64_t cycle_buffer) {
  return size < cycle_buffer ? cycle_buffer : size;
}
inline uint64_t AddressStride(uint64_t size, uint64_t cache_line) {
  return size > cache_line ? (size + cache_line - 1) / cache_line * cache_line : cache_line;
}

// Anonymous memory, zero-filled, page aligned, optionally on 2 MiB
// hugepages; or CUDA device memory (perftest's --use_cuda), which no CPU
// code may touch. Move-only; unmapped (freed) on destruction.
class TestBuffer {
 public:
  // `slot_size` bytes for each of 2 * qps slots (rounded up to the page).
  // Errors: kResourceExhausted naming the size (and, for hugepages, how to
  // reserve them).
  static Result<TestBuffer> Allocate(uint32_t qps, uint64_t slot_size, bool hugepages);
  // The same layout in device memory on GPU `ordinal`, zero-filled.
  // `devices` outlives the buffer. Errors: DeviceRuntime::Allocate's.
  static Result<TestBuffer> AllocateDevice(cuda::DeviceRuntime& devices, int ordinal,
                                           uint32_t qps, uint64_t slot_size);

  TestBuffer(TestBuffer&& other) noexcept;
  TestBuffer& operator=(TestBuffer&& other) noexcept;
  TestBuffer(const TestBuffer&) = delete;
  TestBuffer& operator=(const TestBuffer&) = delete;
  ~TestBuffer();

  uint8_t* data() const { return data_; }
  // Whether data() is CUDA device memory.
  bool on_device() const { return devices_ != nullptr; }
  size_t length() const { return length_; }
  uint64_t slot_size() const { return slot_size_; }
  uint8_t* SendSlot(uint32_t qp) const { return data_ + uint64_t{qp} * slot_size_; }
  uint8_t* ReceiveSlot(uint32_t qp) const {
    return data_ + (uint64_t{qps_} + qp) * slot_size_;
  }

 private:
  TestBuffer() = default;
  void Release();

  cuda::DeviceRuntime* devices_ = nullptr;  // set for device memory
  uint8_t* data_ = nullptr;
  size_t length_ = 0;
  uint64_t slot_size_ = 0;
  uint32_t qps_ = 0;
};

}  // namespace xfer::perftest

#endif  // XFER_PERFTEST_SLOT_BUFFER_H_
