// CUDA device memory between two processes on one GPU, over shm (the
// peer's device memory through its IPC handle, ours against its mapped
// host memory) and over tcp (staged through pinned host memory on both
// sides), checked byte for byte in every direction the matrix names: D2rD,
// H2rD, rD2D, rD2H, D2rH, rH2D. Runs where a GPU is, skips elsewhere; the
// peer is tests/cuda/peer/device_peer.cc.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "cuda/device_runtime.h"
#include "gpu_host.h"
#include "xfer/engine.h"

namespace xfer {
namespace {

using namespace std::chrono_literals;

// XFER_DEVICE_PEER in the environment wins: a packed tree (tests/gpu)
// moves the binary.
std::string PeerBinary() {
  const char* from_env = std::getenv("XFER_DEVICE_PEER");
  return from_env != nullptr ? from_env : XFER_DEVICE_PEER;
}

struct PeerProcess {
  pid_t pid = -1;
  int stdin_fd = -1;
  std::string address;
  uint64_t device_region = 0;
  uint64_t host_region = 0;
  size_t length = 0;

  // fork + exec at once: the child runs a fresh image, so the parent's
  // CUDA state (which a forked child could not use) does not matter.
  bool Start(const std::string& transport) {
    int to_child[2];
    int from_child[2];
    if (pipe2(to_child, O_CLOEXEC) != 0 || pipe2(from_child, O_CLOEXEC) != 0) return false;
    const std::string binary = PeerBinary();
    pid = fork();
    if (pid == 0) {
      dup2(to_child[0], STDIN_FILENO);
      dup2(from_child[1], STDOUT_FILENO);
      execl(binary.c_str(), binary.c_str(), transport.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    close(to_child[0]);
    close(from_child[1]);
    stdin_fd = to_child[1];
    FILE* out = fdopen(from_child[0], "r");
    char line[512] = {};
    const bool got = out != nullptr && std::fgets(line, sizeof(line), out) != nullptr;
    if (out != nullptr) std::fclose(out);
    if (!got) return false;
    std::istringstream fields(line);
    fields >> address >> device_region >> host_region >> length;
    return !fields.fail();
  }

  ~PeerProcess() {
    if (stdin_fd >= 0) close(stdin_fd);
    if (pid > 0) {
      int status = 0;
      for (int i = 0; i < 200 && waitpid(pid, &status, WNOHANG) == 0; ++i) {
        usleep(10000);
      }
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
    }
  }
};

std::vector<uint8_t> Pattern(size_t length, uint8_t seed) {
  std::vector<uint8_t> bytes(length);
  for (size_t i = 0; i < length; ++i) bytes[i] = static_cast<uint8_t>(i * 167 + seed);
  return bytes;
}

class DeviceTransferTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    runtime_ = cuda::DeviceRuntime::Create();
    XFER_SKIP_WITHOUT_GPU(*runtime_);
    ASSERT_TRUE(peer_.Start(GetParam())) << "could not start " << PeerBinary();
    EngineOptions options;
    options.name = "initiator";
    options.listen_address = "";
    options.transports = {GetParam()};
    auto engine = Engine::Create(options);
    ASSERT_TRUE(engine.ok()) << engine.status().ToString();
    engine_ = std::move(*engine);
    MemoryOptions device;
    device.kind = MemoryKind::kCuda;
    auto local_device = engine_->AllocateMemory(peer_.length, device);
    auto local_host = engine_->AllocateMemory(peer_.length, {});
    ASSERT_TRUE(local_device.ok()) << local_device.status().ToString();
    ASSERT_TRUE(local_host.ok()) << local_host.status().ToString();
    local_device_ = *local_device;
    local_host_ = *local_host;
    auto peer = engine_->Connect(peer_.address, {});
    ASSERT_TRUE(peer.ok()) << peer.status().ToString();
    peer_id_ = *peer;
  }

  Status Move(OpCode op, void* local, uint64_t remote) {
    const TransferEntry entry{local, remote, peer_.length};
    return engine_->Transfer(peer_id_, op, std::span(&entry, 1), 10s);
  }

  std::vector<uint8_t> DeviceBytes(void* device) {
    std::vector<uint8_t> bytes(peer_.length);
    EXPECT_TRUE(runtime_->Copy(bytes.data(), device, bytes.size()).ok());
    return bytes;
  }

  std::unique_ptr<cuda::DeviceRuntime> runtime_;
  PeerProcess peer_;
  std::unique_ptr<Engine> engine_;
  MemoryRegion local_device_;
  MemoryRegion local_host_;
  PeerId peer_id_ = 0;
};

TEST_P(DeviceTransferTest, TheConnectionNamesItsDevicePathAndThePeersRegionKinds) {
  auto info = engine_->GetPeerInfo(peer_id_);
  ASSERT_TRUE(info.ok());
  EXPECT_TRUE(info->device_memory);
  EXPECT_EQ(info->transport, GetParam());
  EXPECT_EQ(info->device_path, GetParam() == "shm" ? "CUDA IPC"
                                                   : "staged through pinned host memory, 2 x 4 MiB");
  ASSERT_EQ(info->regions.size(), 2u);
  int cuda_regions = 0;
  for (const RemoteRegion& region : info->regions) {
    if (region.kind == MemoryKind::kCuda) {
      ++cuda_regions;
      EXPECT_EQ(region.address, peer_.device_region);
      EXPECT_EQ(region.device, 0);
    }
  }
  EXPECT_EQ(cuda_regions, 1);
}

// D2rD, then rD2H reads it back: each is checked by the other.
TEST_P(DeviceTransferTest, DeviceToRemoteDeviceAndBack) {
  const auto pattern = Pattern(peer_.length, 11);
  ASSERT_TRUE(runtime_->Copy(local_device_.address, pattern.data(), pattern.size()).ok());
  ASSERT_TRUE(Move(OpCode::kWrite, local_device_.address, peer_.device_region).ok());
  std::memset(local_host_.address, 0, peer_.length);
  Status read = Move(OpCode::kRead, local_host_.address, peer_.device_region);
  ASSERT_TRUE(read.ok()) << read.ToString();
  EXPECT_EQ(std::memcmp(local_host_.address, pattern.data(), pattern.size()), 0);
}

// H2rD, then rD2D reads it into our device memory.
TEST_P(DeviceTransferTest, HostToRemoteDeviceAndBackIntoDevice) {
  const auto pattern = Pattern(peer_.length, 29);
  std::memcpy(local_host_.address, pattern.data(), pattern.size());
  ASSERT_TRUE(Move(OpCode::kWrite, local_host_.address, peer_.device_region).ok());
  Status read = Move(OpCode::kRead, local_device_.address, peer_.device_region);
  ASSERT_TRUE(read.ok()) << read.ToString();
  EXPECT_EQ(DeviceBytes(local_device_.address), pattern);
}

// D2rH, then rH2D reads it back into device memory.
TEST_P(DeviceTransferTest, DeviceToRemoteHostAndBack) {
  const auto pattern = Pattern(peer_.length, 53);
  ASSERT_TRUE(runtime_->Copy(local_device_.address, pattern.data(), pattern.size()).ok());
  ASSERT_TRUE(Move(OpCode::kWrite, local_device_.address, peer_.host_region).ok());
  ASSERT_TRUE(runtime_->Copy(local_device_.address, std::vector<uint8_t>(peer_.length).data(),
                             peer_.length)
                  .ok());
  Status read = Move(OpCode::kRead, local_device_.address, peer_.host_region);
  ASSERT_TRUE(read.ok()) << read.ToString();
  EXPECT_EQ(DeviceBytes(local_device_.address), pattern);
}

TEST_P(DeviceTransferTest, ARangeBeyondThePeersDeviceRegionIsRefusedUntouched) {
  const TransferEntry entry{local_device_.address, peer_.device_region + 4096, peer_.length};
  TransferRequest request;
  const Status refused = engine_->Submit(peer_id_, OpCode::kWrite, std::span(&entry, 1), request);
  EXPECT_EQ(refused.code(), StatusCode::kOutOfRange) << refused.ToString();
}

INSTANTIATE_TEST_SUITE_P(Transports, DeviceTransferTest, ::testing::Values("shm", "tcp"),
                         [](const ::testing::TestParamInfo<std::string>& transport) {
                           return transport.param;
                         });

}  // namespace
}  // namespace xfer
