#include "perftest/slot_buffer.h"

#include <sys/mman.h>
#include <unistd.h>

#include <fmt/format.h>

#include "common/host_memory.h"

#include <cerrno>
#include <cstring>
#include <utility>

namespace xfer::perftest {
namespace {

constexpr uint64_t kHugePage = 2u << 20;

uint64_t RoundUp(uint64_t value, uint64_t unit) { return (value + unit - 1) / unit * unit; }

}  // namespace

Result<TestBuffer> TestBuffer::Allocate(uint32_t qps, uint64_t slot_size, bool hugepages) {
  const auto page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  TestBuffer buffer;
  buffer.qps_ = qps;
  buffer.slot_size_ = RoundUp(slot_size, page);
  const uint64_t total = buffer.slot_size_ * 2 * qps;
  buffer.length_ = hugepages ? RoundUp(total, kHugePage) : total;
  if (!hugepages) {
    XFER_RETURN_IF_ERROR(
        CheckHostCanBack(buffer.length_, "host memory for the test buffers", ReadHostMemory()));
  }
  int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE;
  if (hugepages) flags |= MAP_HUGETLB;
  void* memory = mmap(nullptr, buffer.length_, PROT_READ | PROT_WRITE, flags, -1, 0);
  if (memory == MAP_FAILED) {
    const int error = errno;
    return ResourceExhausted(fmt::format(
        "{} bytes of {}memory for the test buffers: {}{}", buffer.length_,
        hugepages ? "hugepage " : "", std::strerror(error),
        hugepages ? " (reserve 2 MiB hugepages: echo N > /proc/sys/vm/nr_hugepages)" : ""));
  }
  buffer.data_ = static_cast<uint8_t*>(memory);
  return buffer;
}

Result<TestBuffer> TestBuffer::AllocateDevice(cuda::DeviceRuntime& devices, int ordinal,
                                              uint32_t qps, uint64_t slot_size) {
  const auto page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  TestBuffer buffer;
  buffer.qps_ = qps;
  buffer.slot_size_ = RoundUp(slot_size, page);
  buffer.length_ = buffer.slot_size_ * 2 * qps;
  auto address = devices.Allocate(ordinal, buffer.length_);
  if (!address.ok()) {
    return address.status().WithContext(
        fmt::format("{} bytes of CUDA device memory for the test buffers", buffer.length_));
  }
  buffer.devices_ = &devices;
  buffer.data_ = reinterpret_cast<uint8_t*>(*address);
  return buffer;
}

void TestBuffer::Release() {
  if (data_ == nullptr) return;
  if (devices_ != nullptr) {
    (void)devices_->Free(reinterpret_cast<uint64_t>(data_));
  } else {
    munmap(data_, length_);
  }
  data_ = nullptr;
}

TestBuffer::TestBuffer(TestBuffer&& other) noexcept
    : devices_(std::exchange(other.devices_, nullptr)),
      data_(std::exchange(other.data_, nullptr)),
      length_(std::exchange(other.length_, 0)),
      slot_size_(other.slot_size_),
      qps_(other.qps_) {}

TestBuffer& TestBuffer::operator=(TestBuffer&& other) noexcept {
  if (this != &other) {
    Release();
    devices_ = std::exchange(other.devices_, nullptr);
    data_ = std::exchange(other.data_, nullptr);
    length_ = std::exchange(other.length_, 0);
    slot_size_ = other.slot_size_;
    qps_ = other.qps_;
  }
  return *this;
}

TestBuffer::~TestBuffer() { Release(); }

}  // namespace xfer::perftest
