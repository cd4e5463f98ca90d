// CUDA device memory through the public engine API: allocation and
// registration say what the memory is, the peer learns each region's kind,
// and a transport that does not carry device memory refuses it by name
// instead of touching it as host memory. Without a GPU, the allocation's
// refusal carries the loader's reason.
#include <gtest/gtest.h>

#include <chrono>
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

TEST(EngineDeviceMemoryTest, ThePeerLearnsTheKindAndTcpRefusesDeviceMemoryByName) {
  auto runtime = cuda::DeviceRuntime::Create();
  XFER_SKIP_WITHOUT_GPU(*runtime);
  auto target = MakeEngine("target", true);
  auto initiator = MakeEngine("initiator", false);
  ASSERT_NE(target, nullptr);
  ASSERT_NE(initiator, nullptr);
  auto remote_host = target->AllocateMemory(1 << 20, {});
  auto local_device = initiator->AllocateMemory(1 << 20, Cuda(0));
  ASSERT_TRUE(remote_host.ok() && local_device.ok()) << local_device.status().ToString();
  auto peer = initiator->Connect(target->listen_address(), {});
  ASSERT_TRUE(peer.ok()) << peer.status().ToString();
  auto accepted = target->WaitForPeer(3000ms);
  ASSERT_TRUE(accepted.ok()) << accepted.status().ToString();

  auto seen = target->GetPeerInfo(*accepted);
  ASSERT_TRUE(seen.ok());
  ASSERT_EQ(seen->regions.size(), 1u);
  EXPECT_EQ(seen->regions[0].kind, MemoryKind::kCuda);
  EXPECT_EQ(seen->regions[0].device, 0);
  EXPECT_FALSE(seen->device_memory);

  const TransferEntry entry{local_device->address, reinterpret_cast<uint64_t>(remote_host->address),
                            4096};
  TransferRequest request;
  const Status refused = initiator->Submit(*peer, OpCode::kWrite, std::span(&entry, 1), request);
  EXPECT_EQ(refused.code(), StatusCode::kNotSupported) << refused.ToString();
  EXPECT_NE(refused.message().find("tcp transport does not carry CUDA device memory"),
            std::string::npos)
      << refused.ToString();
}

}  // namespace
}  // namespace xfer
