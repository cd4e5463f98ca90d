// One matrix sample over a real tcp connection between two engines of this
// process: every entry lands at its offset however the batch is split into
// requests, and a broken connection is an error, not a figure.
#include "bench/matrix/batch_sampler.h"

#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <vector>

#include "bench/matrix/data_pattern.h"
#include "xfer/engine.h"

namespace xfer::matrix {
namespace {

using namespace std::chrono_literals;

constexpr uint64_t kSamplerBlock = 4096;
constexpr uint64_t kEntries = 10;
constexpr uint64_t kBytes = kSamplerBlock * kEntries;

class BatchSamplerTest : public ::testing::TestWithParam<uint32_t> {
 protected:
  void SetUp() override {
    EngineOptions options;
    options.transports = {"tcp"};
    options.io_timeout = 2000ms;
    auto target = Engine::Create(options);
    ASSERT_TRUE(target.ok()) << target.status().ToString();
    target_ = std::move(target.value());
    options.listen_address = "";
    auto initiator = Engine::Create(options);
    ASSERT_TRUE(initiator.ok()) << initiator.status().ToString();
    initiator_ = std::move(initiator.value());
    auto remote = target_->AllocateMemory(kBytes, {});
    auto local = initiator_->AllocateMemory(kBytes, {});
    ASSERT_TRUE(remote.ok() && local.ok());
    remote_ = *remote;
    local_ = *local;
    auto peer = initiator_->Connect(target_->listen_address(), {.transport = "tcp", .streams = 2});
    ASSERT_TRUE(peer.ok()) << peer.status().ToString();
    peer_ = *peer;
  }

  BatchLayout Layout(OpCode op, uint32_t requests) const {
    BatchLayout layout;
    layout.op = op;
    layout.local = static_cast<uint8_t*>(local_.address);
    layout.remote = reinterpret_cast<uint64_t>(remote_.address);
    layout.block_size = kSamplerBlock;
    layout.entries = kEntries;
    layout.requests = requests;
    layout.streams = 2;
    return layout;
  }

  std::unique_ptr<Engine> target_;
  std::unique_ptr<Engine> initiator_;
  MemoryRegion remote_;
  MemoryRegion local_;
  PeerId peer_ = 0;
};

TEST_P(BatchSamplerTest, WriteLandsEveryEntryAtItsOffset) {
  FillPattern(static_cast<uint8_t*>(local_.address), kBytes, 11);
  BatchSampler sampler(*initiator_, peer_, Layout(OpCode::kWrite, GetParam()), 5000ms);
  auto seconds = sampler.Sample();
  ASSERT_TRUE(seconds.ok()) << seconds.status().ToString();
  EXPECT_GT(*seconds, 0);
  EXPECT_FALSE(FindPatternMismatch(static_cast<uint8_t*>(remote_.address), kBytes, 11));
}

TEST_P(BatchSamplerTest, ReadBringsBackEveryEntryAndCanBeRepeated) {
  FillPattern(static_cast<uint8_t*>(remote_.address), kBytes, 12);
  BatchSampler sampler(*initiator_, peer_, Layout(OpCode::kRead, GetParam()), 5000ms);
  for (int i = 0; i < 3; ++i) {
    PoisonPattern(static_cast<uint8_t*>(local_.address), kBytes);
    auto seconds = sampler.Sample();
    ASSERT_TRUE(seconds.ok()) << seconds.status().ToString();
    EXPECT_FALSE(FindPatternMismatch(static_cast<uint8_t*>(local_.address), kBytes, 12));
  }
}

TEST_P(BatchSamplerTest, ABrokenConnectionIsAnErrorNotAFigure) {
  BatchSampler sampler(*initiator_, peer_, Layout(OpCode::kWrite, GetParam()), 2000ms);
  ASSERT_TRUE(initiator_->Disconnect(peer_).ok());
  auto seconds = sampler.Sample();
  ASSERT_FALSE(seconds.ok());
  EXPECT_EQ(seconds.status().code(), StatusCode::kNotFound);
}

// 1: one synchronous batch; 3: an uneven split (3+3+4); 10: one entry each.
INSTANTIATE_TEST_SUITE_P(Requests, BatchSamplerTest, ::testing::Values(1u, 3u, 10u));

}  // namespace
}  // namespace xfer::matrix
