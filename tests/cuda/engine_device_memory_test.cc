// CUDA device memory through the public engine API: allocation and
// registration say what the memory is, the peer learns each region's kind,
// and a transport that does not carry device memory refuses it by name
// instead of touching it as host memory. Without a GPU, the allocation's
// refusal carries the loader's reason.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <vector>

#include "cuda/device_runtime.h"
#include "gpu_host.h"
#include "xfer/engine.h"

namespace xfer {
namespace {

using namespace std::chrono_literals;

std::unique_ptr<Engine> MakeEngine(const char* name, bool listen) {
  EngineOptions options;
  options.name = name;
  options.listen_address = listen ? "127.0.0.1:0" : "";
  options.transports = {"tcp"};
  options.connect_timeout = 3000ms;
  options.io_timeout = 2000ms;
  auto engine = Engine::Create(options);
  EXPECT_TRUE(engine.ok()) << engine.status().ToString();
  return engine.ok() ? std::move(engine.value()) : nullptr;
}

MemoryOptions Cuda(int device) {
  MemoryOptions options;
  options.kind = MemoryKind::kCuda;
  options.device = device;
  return options;
}

TEST(EngineDeviceMemoryTest, WithoutAUsableGpuAllocationFailsWithTheLoadersReason) {
  auto runtime = cuda::DeviceRuntime::Create();
  const Status why = runtime->Available();
  if (why.ok()) GTEST_SKIP() << "this host has a usable GPU";
  auto engine = MakeEngine("engine", false);
  ASSERT_NE(engine, nullptr);
  auto region = engine->AllocateMemory(1 << 20, Cuda(0));
  ASSERT_FALSE(region.ok());
  EXPECT_EQ(region.status().code(), why.code());
  EXPECT_NE(region.status().message().find(why.message()), std::string::npos)
      << region.status().ToString();
  EXPECT_NE(region.status().message().find("device 0"), std::string::npos)
      << region.status().ToString();
}

TEST(EngineDeviceMemoryTest, HostMemoryRegistersAsHost) {
  auto engine = MakeEngine("engine", false);
  ASSERT_NE(engine, nullptr);
  std::vector<uint8_t> memory(1 << 16);
  MemoryOptions claimed = Cuda(0);  // the kind is detected, not taken from the caller
  auto region = engine->RegisterMemory(memory.data(), memory.size(), claimed);
  ASSERT_TRUE(region.ok()) << region.status().ToString();
  EXPECT_EQ(region->kind, MemoryKind::kHost);
  EXPECT_EQ(region->device, -1);
}

// Issue 29, §1: host regions that meet device memory are page-locked once,
// when device memory first takes part, and unpinned at deregistration.
TEST(EngineDeviceMemoryTest, HostRegionsArePinnedOnceDeviceMemoryTakesPartAndUnpinnedAfter) {
  auto runtime = cuda::DeviceRuntime::Create();
  XFER_SKIP_WITHOUT_GPU(*runtime);
  auto engine = MakeEngine("engine", false);
  ASSERT_NE(engine, nullptr);
  auto pinned = [&](const MemoryRegion& region) {
    auto info = runtime->Classify(region.address, region.length);
    return info.ok() && info->pinned;
  };
  auto before = engine->AllocateMemory(size_t{4} << 20, {});
  ASSERT_TRUE(before.ok());
  EXPECT_FALSE(pinned(*before)) << "pinned before any device memory took part";
  auto device = engine->AllocateMemory(size_t{1} << 20, Cuda(0));
  ASSERT_TRUE(device.ok()) << device.status().ToString();
  EXPECT_TRUE(pinned(*before)) << "the earlier host region was not pinned";
  std::vector<uint8_t> callers(size_t{1} << 20);
  auto after = engine->RegisterMemory(callers.data(), callers.size(), {});
  ASSERT_TRUE(after.ok());
  EXPECT_TRUE(pinned(*after)) << "a host region registered later was not pinned";
  ASSERT_TRUE(engine->DeregisterMemory(*after).ok());
  auto info = runtime->Classify(callers.data(), callers.size());
  ASSERT_TRUE(info.ok());
  EXPECT_FALSE(info->pinned) << "the caller's memory stayed pinned after deregistration";
}

TEST(EngineDeviceMemoryTest, AllocatedAndRegisteredDeviceMemoryIsKnownAsSuch) {
  auto runtime = cuda::DeviceRuntime::Create();
  XFER_SKIP_WITHOUT_GPU(*runtime);
  auto engine = MakeEngine("engine", false);
  ASSERT_NE(engine, nullptr);
  auto owned = engine->AllocateMemory(1 << 20, Cuda(0));
  ASSERT_TRUE(owned.ok()) << owned.status().ToString();
  EXPECT_EQ(owned->kind, MemoryKind::kCuda);
  EXPECT_EQ(owned->device, 0);

  auto callers = runtime->Allocate(0, size_t{2} << 20);
  ASSERT_TRUE(callers.ok()) << callers.status().ToString();
  auto* base = reinterpret_cast<uint8_t*>(*callers);
  auto inner = engine->RegisterMemory(base + 65536, size_t{1} << 20, {});
  ASSERT_TRUE(inner.ok()) << inner.status().ToString();
  EXPECT_EQ(inner->kind, MemoryKind::kCuda);
  EXPECT_EQ(inner->device, 0);
  auto beyond = engine->RegisterMemory(base + (size_t{3} << 20) / 2, size_t{1} << 20, {});
  EXPECT_EQ(beyond.status().code(), StatusCode::kInvalidArgument) << beyond.status().ToString();
  ASSERT_TRUE(engine->DeregisterMemory(*inner).ok());
  ASSERT_TRUE(engine->DeregisterMemory(*owned).ok());
  EXPECT_TRUE(runtime->Free(*callers).ok());
}

TEST(EngineDeviceMemoryTest, ThePeerLearnsTheKindAndTcpStagesDeviceMemoryByteForByte) {
  auto runtime = cuda::DeviceRuntime::Create();
  XFER_SKIP_WITHOUT_GPU(*runtime);
  auto target = MakeEngine("target", true);
  auto initiator = MakeEngine("initiator", false);
  ASSERT_NE(target, nullptr);
  ASSERT_NE(initiator, nullptr);
  // Larger than two staging chunks and not a multiple of one, so that the
  // ring wraps and ends on a short chunk.
  constexpr size_t kLength = (size_t{9} << 20) + 4093;
  auto remote_device = target->AllocateMemory(kLength, Cuda(0));
  auto local_device = initiator->AllocateMemory(kLength, Cuda(0));
  auto local_host = initiator->AllocateMemory(kLength, {});
  ASSERT_TRUE(remote_device.ok()) << remote_device.status().ToString();
  ASSERT_TRUE(local_device.ok() && local_host.ok()) << local_device.status().ToString();
  auto peer = initiator->Connect(target->listen_address(), {});
  ASSERT_TRUE(peer.ok()) << peer.status().ToString();
  auto accepted = target->WaitForPeer(3000ms);
  ASSERT_TRUE(accepted.ok()) << accepted.status().ToString();

  auto seen = target->GetPeerInfo(*accepted);
  ASSERT_TRUE(seen.ok());
  ASSERT_EQ(seen->regions.size(), 2u);
  EXPECT_TRUE(seen->device_memory);
  EXPECT_FALSE(seen->device_path.empty());
  int cuda_regions = 0;
  for (const RemoteRegion& region : seen->regions) {
    cuda_regions += region.kind == MemoryKind::kCuda && region.device == 0 ? 1 : 0;
  }
  EXPECT_EQ(cuda_regions, 1);

  std::vector<uint8_t> pattern(kLength);
  for (size_t i = 0; i < kLength; ++i) pattern[i] = static_cast<uint8_t>(i * 193 + 5);
  ASSERT_TRUE(runtime->Copy(local_device->address, pattern.data(), kLength).ok());
  const auto remote = reinterpret_cast<uint64_t>(remote_device->address);
  const TransferEntry write{local_device->address, remote, kLength};
  ASSERT_TRUE(initiator->Transfer(*peer, OpCode::kWrite, std::span(&write, 1), 10s).ok());
  std::memset(local_host->address, 0, kLength);
  const TransferEntry read{local_host->address, remote, kLength};
  Status status = initiator->Transfer(*peer, OpCode::kRead, std::span(&read, 1), 10s);
  ASSERT_TRUE(status.ok()) << status.ToString();
  EXPECT_EQ(std::memcmp(local_host->address, pattern.data(), kLength), 0);

  // Messages are the CPU's to copy: device memory is refused, untouched.
  TransferRequest send;
  const Status refused = initiator->PostSend(*peer, local_device->address, 4096, send);
  EXPECT_EQ(refused.code(), StatusCode::kNotSupported) << refused.ToString();
  TransferRequest receive;
  EXPECT_EQ(target->PostRecv(*accepted, remote_device->address, 4096, receive).code(),
            StatusCode::kNotSupported);
}

}  // namespace
}  // namespace xfer
