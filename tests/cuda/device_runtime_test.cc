// The CUDA loader's answers on the host it runs on, and what it makes of
// pointers. The refusals are checked where they happen (this CPU machine
// has no driver, and the toolkit's real stub library); the device cases
// run where a GPU is and skip elsewhere.
#include "cuda/device_runtime.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include "gpu_host.h"

namespace xfer::cuda {
namespace {

bool DriverLoads() {
  void* handle = ::dlopen(kDriverLibrary, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return false;
  ::dlclose(handle);
  return true;
}

TEST(DeviceRuntimeTest, AHostWithoutADriverSaysSoAndNamesTheLibrary) {
  if (DriverLoads()) GTEST_SKIP() << kDriverLibrary << " loads on this host";
  auto runtime = DeviceRuntime::Create();
  const Status status = runtime->Available();
#ifdef XFER_WITH_CUDA
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition) << status.ToString();
  EXPECT_NE(status.message().find("no NVIDIA driver"), std::string::npos) << status.ToString();
  EXPECT_NE(status.message().find("libcuda.so.1"), std::string::npos) << status.ToString();
#else
  EXPECT_EQ(status.code(), StatusCode::kNotSupported) << status.ToString();
#endif
  // The answer is kept, and every device call gives it.
  EXPECT_EQ(runtime->Available().ToString(), status.ToString());
  EXPECT_EQ(runtime->Allocate(0, 4096).status().ToString(), status.ToString());
  EXPECT_EQ(runtime->Devices().status().ToString(), status.ToString());
}

TEST(DeviceRuntimeTest, AMissingLibraryFileIsNoDriver) {
  auto runtime = DeviceRuntime::Create("/nonexistent/libcuda.so.1");
#ifdef XFER_WITH_CUDA
  EXPECT_EQ(runtime->Available().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(runtime->Available().message().find("no NVIDIA driver"), std::string::npos);
#else
  EXPECT_EQ(runtime->Available().code(), StatusCode::kNotSupported);
#endif
}

#ifdef XFER_WITH_CUDA
// The toolkit's stub answers every call with CUDA_ERROR_STUB_LIBRARY: a
// user whose library path has lib64/stubs on it must be told that, not
// "no device".
TEST(DeviceRuntimeTest, TheToolkitsStubLibraryIsRefusedAsAStub) {
  if (!std::filesystem::exists(XFER_CUDA_STUB_LIBRARY)) {
    GTEST_SKIP() << "needs the CUDA toolkit's files: no stub at " << XFER_CUDA_STUB_LIBRARY;
  }
  auto runtime = DeviceRuntime::Create(XFER_CUDA_STUB_LIBRARY);
  const Status status = runtime->Available();
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition) << status.ToString();
  EXPECT_NE(status.message().find("stub"), std::string::npos) << status.ToString();
}
#endif

TEST(DeviceRuntimeTest, HostMemoryIsHostWithOrWithoutADriver) {
  auto runtime = DeviceRuntime::Create();
  std::vector<uint8_t> pageable(1 << 16);
  auto info = runtime->Classify(pageable.data(), pageable.size());
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_FALSE(info->device);
  EXPECT_EQ(info->ordinal, -1);
}

TEST(DeviceRuntimeTest, DeviceMemoryIsFoundWithItsDeviceAndAllocation) {
  auto runtime = DeviceRuntime::Create();
  XFER_SKIP_WITHOUT_GPU(*runtime);
  constexpr size_t kLength = size_t{4} << 20;
  auto address = runtime->Allocate(0, kLength);
  ASSERT_TRUE(address.ok()) << address.status().ToString();
  auto* base = reinterpret_cast<uint8_t*>(*address);

  auto inside = runtime->Classify(base + 4096, 8192);
  ASSERT_TRUE(inside.ok()) << inside.status().ToString();
  EXPECT_TRUE(inside->device);
  EXPECT_EQ(inside->ordinal, 0);
  EXPECT_EQ(inside->base, *address);
  EXPECT_GE(inside->size, kLength);
  EXPECT_FALSE(inside->vmm);  // cuMemAlloc memory, shared by IPC handle

  auto leaving = runtime->Classify(base + 4096, inside->size);
  EXPECT_EQ(leaving.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(runtime->Free(*address).ok());
}

TEST(DeviceRuntimeTest, AllocationsAreZeroedAndCopiesRoundTripByteForByte) {
  auto runtime = DeviceRuntime::Create();
  XFER_SKIP_WITHOUT_GPU(*runtime);
  constexpr size_t kLength = (size_t{1} << 20) + 13;
  auto address = runtime->Allocate(0, kLength);
  ASSERT_TRUE(address.ok()) << address.status().ToString();
  void* device = reinterpret_cast<void*>(*address);

  std::vector<uint8_t> back(kLength, 0xAB);
  ASSERT_TRUE(runtime->Copy(back.data(), device, kLength).ok());
  EXPECT_EQ(std::count(back.begin(), back.end(), 0), static_cast<long>(kLength));

  std::vector<uint8_t> pattern(kLength);
  for (size_t i = 0; i < kLength; ++i) pattern[i] = static_cast<uint8_t>(i * 131 + 7);
  ASSERT_TRUE(runtime->Copy(device, pattern.data(), kLength).ok());
  ASSERT_TRUE(runtime->Copy(back.data(), device, kLength).ok());
  EXPECT_EQ(back, pattern);
  EXPECT_TRUE(runtime->Free(*address).ok());
}

TEST(DeviceRuntimeTest, AnOrdinalThisProcessCannotSeeIsRefused) {
  auto runtime = DeviceRuntime::Create();
  XFER_SKIP_WITHOUT_GPU(*runtime);
  auto devices = runtime->Devices();
  ASSERT_TRUE(devices.ok()) << devices.status().ToString();
  ASSERT_FALSE(devices->empty());
  EXPECT_FALSE(devices->front().name.empty());
  EXPECT_GT(devices->front().memory_bytes, 0u);
  const int beyond = static_cast<int>(devices->size());
  auto refused = runtime->Allocate(beyond, 4096);
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument) << refused.status().ToString();
}

}  // namespace
}  // namespace xfer::cuda
