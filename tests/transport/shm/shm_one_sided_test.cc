// One-sided READ/WRITE over the shm transport, beyond the conformance suite
// (tests/conformance/): heap regions (process_vm) next to memfd regions
// (mapped), refusals of reads, and Close racing posts.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "shm_test_util.h"
#include "transport/transport_registry.h"

namespace xfer::testing {
namespace {

using transport::Endpoint;
using transport::LocalRegionView;

constexpr size_t kRegionBytes = size_t{2} << 20;

TEST(ShmTransportTest, RegistersWithCapabilitiesAsData) {
  transport::TransportRegistry registry;
  transport::RegisterBuiltinTransports(registry);
  const transport::TransportEntry* entry = registry.Find("shm");
  ASSERT_NE(entry, nullptr);
  auto shm = entry->create({});
  ASSERT_TRUE(shm.ok()) << shm.status().ToString();
  EXPECT_EQ((*shm)->name(), "shm");
  const auto refused = entry->create({{"depth", "4"}});
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(refused.status().message(), "the shm transport takes no options (got 'depth')");
  const transport::Capabilities caps = (*shm)->capabilities();
  EXPECT_TRUE(caps.one_sided);
  EXPECT_TRUE(caps.two_sided);
  EXPECT_TRUE(caps.same_host_only);
  EXPECT_EQ(caps.max_streams, 64u);
  EXPECT_EQ(caps.preference, 100);
}

// An initiator and a target, each with one region of every kind the tests
// use: memfd read-write, heap read-write, memfd read-only, memfd write-only.
class ShmOneSidedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    local_ = pair_.initiator_memory.Add(kRegionBytes, Access::kRemoteReadWrite);
    local_heap_ = pair_.initiator_memory.Add(kRegionBytes, Access::kRemoteReadWrite, false);
    memfd_ = pair_.target_memory.Add(kRegionBytes, Access::kRemoteReadWrite);
    heap_ = pair_.target_memory.Add(kRegionBytes, Access::kRemoteReadWrite, false);
    read_only_ = pair_.target_memory.Add(4096, Access::kRemoteRead);
    write_only_ = pair_.target_memory.Add(4096, Access::kRemoteWrite);
    std::memset(heap_.address, 0, heap_.length);
    std::memset(local_heap_.address, 0, local_heap_.length);
    ASSERT_TRUE(ConnectPair(shm_, shm_, pair_).ok());
  }

  Endpoint& initiator() { return *pair_.initiator; }

  transport::shm::ShmTransport shm_;
  EndpointPair pair_;
  LocalRegionView local_, local_heap_, memfd_, heap_, read_only_, write_only_;
};

// Writes `size` bytes at an odd offset of `target`, checks them and the
// bytes around them, then reads them back into a fresh local range.
void WriteThenReadBack(Endpoint& ep, const LocalRegionView& local, const LocalRegionView& target,
                       size_t size, uint8_t seed) {
  SCOPED_TRACE(::testing::Message() << "size " << size << " target fd " << target.fd);
  const size_t offset = 3;
  ASSERT_LE(offset + size + 1, target.length);
  ASSERT_LE(2 * size, local.length);
  std::memset(target.address, 0, target.length);
  FillPattern(local.address, size, seed);
  TransferEntry write{local.address, Addr(Ptr(target) + offset), size};
  TransferRequest request;
  ASSERT_TRUE(ep.PostWrite({&write, 1}, request, 0).ok());
  ASSERT_TRUE(request.done());  // a CPU copy completes inside the post
  ASSERT_TRUE(request.Test().ok()) << request.Test().ToString();
  EXPECT_EQ(request.bytes(), size);
  EXPECT_EQ(std::memcmp(Ptr(target) + offset, local.address, size), 0);
  EXPECT_TRUE(AllBytesAre(target.address, offset, 0));
  EXPECT_EQ(Ptr(target)[offset + size], 0);

  uint8_t* back = Ptr(local) + size;
  std::memset(back, 0xEE, size);
  TransferEntry read{back, Addr(Ptr(target) + offset), size};
  ASSERT_TRUE(ep.PostRead({&read, 1}, request, 0).ok());
  ASSERT_TRUE(request.Test().ok()) << request.Test().ToString();
  EXPECT_EQ(request.bytes(), size);
  EXPECT_EQ(std::memcmp(back, local.address, size), 0);
}

TEST_F(ShmOneSidedTest, WriteAndReadHeapRegionThroughProcessVm) {
  uint8_t seed = 40;
  for (size_t size : {size_t{1}, size_t{4095}, size_t{300000}}) {
    WriteThenReadBack(initiator(), local_, heap_, size, seed++);
    // Local heap memory (fd -1) works as a source and destination too.
    WriteThenReadBack(initiator(), local_heap_, memfd_, size, seed++);
  }
}

TEST_F(ShmOneSidedTest, BatchMixesRegionKindsAndCountsEveryByte) {
  FillPattern(local_.address, 10000, 9);
  std::vector<TransferEntry> batch = {
      {Ptr(local_), Addr(Ptr(memfd_) + 100), 1000},
      {Ptr(local_) + 1000, Addr(heap_.address), 2000},
      {Ptr(local_) + 3000, Addr(Ptr(memfd_) + 50000), 3000},
      {Ptr(local_) + 6000, Addr(write_only_.address), 4000},
  };
  TransferRequest request;
  ASSERT_TRUE(initiator().PostWrite(batch, request, 5).ok());
  ASSERT_TRUE(request.Test().ok()) << request.Test().ToString();
  EXPECT_EQ(request.bytes(), 10000u);
  for (const TransferEntry& e : batch) {
    EXPECT_EQ(std::memcmp(reinterpret_cast<void*>(e.remote), e.local, e.length), 0);
  }

  // Read the same pieces back into the second half of the local region.
  std::vector<TransferEntry> reads = {
      {Ptr(local_) + 20000, Addr(Ptr(memfd_) + 100), 1000},
      {Ptr(local_) + 21000, Addr(heap_.address), 2000},
      {Ptr(local_) + 23000, Addr(Ptr(memfd_) + 50000), 3000},
  };
  ASSERT_TRUE(initiator().PostRead(reads, request, 63).ok());
  ASSERT_TRUE(request.Test().ok()) << request.Test().ToString();
  EXPECT_EQ(request.bytes(), 6000u);
  EXPECT_EQ(std::memcmp(Ptr(local_) + 20000, local_.address, 6000), 0);
}

TEST_F(ShmOneSidedTest, ReadRefusalsLeaveLocalMemoryUntouched) {
  FillPattern(memfd_.address, 4096, 5);
  std::memset(local_.address, 0, 8192);
  TransferEntry batch[] = {{local_.address, Addr(memfd_.address), 4096},
                           {Ptr(local_) + 4096, Addr(write_only_.address), 16}};
  TransferRequest request;
  EXPECT_EQ(initiator().PostRead(batch, request, 0).code(), StatusCode::kPermissionDenied);
  // Straddles the heap region's end: never inside one region, whatever
  // the allocator put next to it.
  TransferEntry outside{local_.address, Addr(Ptr(heap_) + heap_.length - 1), 2};
  EXPECT_EQ(initiator().PostRead({&outside, 1}, request, 0).code(), StatusCode::kOutOfRange);
  EXPECT_EQ(initiator().PostRead({}, request, 0).code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(AllBytesAre(local_.address, 8192, 0));
}

// Close() unmaps the peer's memory; posts racing with it must either finish
// their copy or be refused, never touch an unmapped page (ASan/SIGSEGV).
TEST_F(ShmOneSidedTest, CloseRacingWithPostsIsSafe) {
  std::atomic<int> refused{0};
  std::vector<std::thread> posters;
  for (int t = 0; t < 3; ++t) {
    posters.emplace_back([&, t = static_cast<size_t>(t)] {
      const size_t slice = 65536;
      TransferEntry entry{Ptr(local_) + t * slice, Addr(Ptr(memfd_) + t * slice), slice};
      TransferRequest request;
      for (;;) {
        Status s = t % 2 == 0 ? initiator().PostWrite({&entry, 1}, request, 0)
                              : initiator().PostRead({&entry, 1}, request, 0);
        if (!s.ok()) {
          EXPECT_EQ(s.code(), StatusCode::kConnectionLost) << s.ToString();
          refused.fetch_add(1);
          return;
        }
        EXPECT_TRUE(request.Test().ok());
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  initiator().Close();
  for (auto& t : posters) t.join();
  EXPECT_EQ(refused.load(), 3);
}

}  // namespace
}  // namespace xfer::testing
