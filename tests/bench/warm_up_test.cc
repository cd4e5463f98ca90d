// The warm-up pass touches every address the bandwidth loop will use, and
// nothing else, so that no first touch is left for the timed section.
#include "bench/warm_up.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>

#include "xfer/engine.h"

namespace xfer::bench {
namespace {

using namespace std::chrono_literals;

constexpr uint8_t kTargetFill = 0x11;
constexpr uint8_t kSourceFill = 0xee;

std::unique_ptr<Engine> MakeEngine(const std::string& name, const std::string& listen) {
  EngineOptions options;
  options.name = name;
  options.listen_address = listen;
  options.transports = {"shm"};
  auto engine = Engine::Create(options);
  EXPECT_TRUE(engine.ok()) << engine.status().ToString();
  return engine.ok() ? std::move(engine.value()) : nullptr;
}

class WarmUpTest : public ::testing::TestWithParam<uint64_t> {
 protected:
  void SetUp() override {
    target_ = MakeEngine("target", "127.0.0.1:0");
    session_.engine = MakeEngine("initiator", "");
    ASSERT_TRUE(target_ && session_.engine);
    auto remote = target_->AllocateMemory(layout_.total_bytes(), {});
    auto local = session_.engine->AllocateMemory(layout_.total_bytes(), {});
    ASSERT_TRUE(remote.ok() && local.ok());
    remote_ = *remote;
    session_.buffer = *local;
    std::memset(remote_.address, kTargetFill, remote_.length);
    std::memset(session_.buffer.address, kSourceFill, session_.buffer.length);
    session_.remote_buffer = reinterpret_cast<uint64_t>(remote_.address);
    session_.remote_length = remote_.length;
    auto peer = session_.engine->Connect(target_->listen_address(), {});
    ASSERT_TRUE(peer.ok()) << peer.status().ToString();
    session_.peer = *peer;
    ASSERT_TRUE(target_->WaitForPeer(3s).ok());
  }

  // The bytes the timed loop writes for messages of `size` on `streams`
  // streams: BufferLayout::MessageOffset's cycle within each slot.
  std::vector<bool> LoopFootprint(uint64_t size, uint32_t streams) const {
    std::vector<bool> touched(remote_.length, false);
    for (uint32_t q = 0; q < streams; ++q) {
      // MessageOffset wraps within kCycleBuffer / kCacheLine messages.
      for (uint64_t k = 0; k < BufferLayout::kCycleBuffer / BufferLayout::kCacheLine; ++k) {
        const uint64_t start = layout_.slot_offset(q) + BufferLayout::MessageOffset(size, k);
        for (uint64_t i = 0; i < size; ++i) touched[start + i] = true;
      }
    }
    return touched;
  }

  static constexpr uint32_t kStreams = 2;
  BufferLayout layout_{uint64_t{1} << 16, kStreams};
  std::unique_ptr<Engine> target_;
  MemoryRegion remote_;
  Session session_;
};

TEST_P(WarmUpTest, WritesExactlyTheBytesTheLoopWillWrite) {
  const uint64_t size = GetParam();
  BwRunConfig config;
  config.size = size;
  config.streams = kStreams;
  config.timeout = 5s;
  ASSERT_TRUE(WarmUp(session_, layout_, config, OpCode::kWrite).ok());
  const std::vector<bool> footprint = LoopFootprint(size, kStreams);
  const auto* bytes = static_cast<const uint8_t*>(remote_.address);
  for (size_t i = 0; i < remote_.length; ++i) {
    ASSERT_EQ(bytes[i], footprint[i] ? kSourceFill : kTargetFill) << "byte " << i;
  }
}

// Small messages cycle through a page at cache-line steps; larger ones
// start at the slot's beginning.
INSTANTIATE_TEST_SUITE_P(Sizes, WarmUpTest, ::testing::Values(2, 64, 100, 2048, 4096, 65536));

}  // namespace
}  // namespace xfer::bench
