// ibv_reg_dmabuf_mr through RegisterDmaBufRegion, with a real dma-buf: the
// kernel's udmabuf exports a memfd's pages as one, which is the object a
// GPU driver hands out for device memory (GPUDirect RDMA's modern path).
// Soft-RoCE refuses dma-buf registrations, and must be told apart from a
// failure: the engine and the tests fall back to staging on that answer
// alone. A NIC that takes it registers the buffer.
#include <fcntl.h>
#include <linux/udmabuf.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "support/verbs_test_env.h"
#include "verbs/device_context.h"
#include "verbs/memory_resources.h"

namespace xfer::verbs {
namespace {

constexpr size_t kDmaBufBytes = size_t{2} << 20;

// A dma-buf of a fresh memfd's kDmaBufBytes, or -1 with `why` set.
int CreateUdmabuf(std::string& why) {
  const int device = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
  if (device < 0) {
    why = "this kernel has no /dev/udmabuf (CONFIG_UDMABUF)";
    return -1;
  }
  const int memfd = memfd_create("xfer-dmabuf-test", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  int buffer = -1;
  if (memfd >= 0 && ftruncate(memfd, kDmaBufBytes) == 0 &&
      fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK) == 0) {
    udmabuf_create create{};
    create.memfd = static_cast<uint32_t>(memfd);
    create.flags = UDMABUF_FLAGS_CLOEXEC;
    create.offset = 0;
    create.size = kDmaBufBytes;
    buffer = ioctl(device, UDMABUF_CREATE, &create);
  }
  if (buffer < 0) why = "udmabuf refused to export a memfd";
  if (memfd >= 0) close(memfd);
  close(device);
  return buffer;
}

TEST(DmaBufRegistrationTest, ADeviceWithoutDmaBufSupportSaysSoAndOneWithItRegisters) {
  if (!testing::HasVerbsDevice()) GTEST_SKIP() << testing::VerbsSkipReason();
  std::string why;
  const int buffer = CreateUdmabuf(why);
  if (buffer < 0) GTEST_SKIP() << why;
  auto device = DeviceContext::Open(testing::TestVerbsDevices().initiator, 1);
  ASSERT_TRUE(device.ok()) << device.status().ToString();
  const int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
  const uint64_t iova = 0x7f0000000000;
  auto mr = RegisterDmaBufRegion(device->pd(), buffer, 0, kDmaBufBytes, iova, access);
  if (device->name().rfind("rxe", 0) == 0) {
    ASSERT_FALSE(mr.ok()) << "Soft-RoCE took a dma-buf registration";
    EXPECT_EQ(mr.status().code(), StatusCode::kNotSupported) << mr.status().ToString();
    EXPECT_NE(mr.status().message().find("does not take dma-buf memory"), std::string::npos)
        << mr.status().ToString();
  } else if (mr.ok()) {
    EXPECT_EQ((*mr)->length, kDmaBufBytes);
  } else {
    EXPECT_EQ(mr.status().code(), StatusCode::kNotSupported) << mr.status().ToString();
  }
  close(buffer);
}

// Soft-RoCE's provider has no dma-buf registration at all: libibverbs
// refuses before the kernel ever sees the descriptor, so the refusal, and
// the fallback it drives, show on any descriptor (the VM's kernel has no
// udmabuf to make a real one). A device that does take dma-bufs checks the
// descriptor instead, and refuses a memfd as not being one.
TEST(DmaBufRegistrationTest, SoftRoceRefusesDmaBufRegistrationAsACapability) {
  if (!testing::HasVerbsDevice()) GTEST_SKIP() << testing::VerbsSkipReason();
  auto device = DeviceContext::Open(testing::TestVerbsDevices().initiator, 1);
  ASSERT_TRUE(device.ok()) << device.status().ToString();
  const int memfd = memfd_create("xfer-not-a-dmabuf", MFD_CLOEXEC);
  ASSERT_GE(memfd, 0);
  ASSERT_EQ(ftruncate(memfd, 4096), 0);
  auto mr = RegisterDmaBufRegion(device->pd(), memfd, 0, 4096, 0x10000, IBV_ACCESS_LOCAL_WRITE);
  close(memfd);
  ASSERT_FALSE(mr.ok()) << "a memfd registered as a dma-buf";
  if (device->name().rfind("rxe", 0) == 0) {
    EXPECT_EQ(mr.status().code(), StatusCode::kNotSupported) << mr.status().ToString();
    EXPECT_NE(mr.status().message().find("does not take dma-buf memory"), std::string::npos)
        << mr.status().ToString();
  } else {
    EXPECT_NE(mr.status().code(), StatusCode::kOk);
  }
}

TEST(DmaBufRegistrationTest, NoDescriptorIsRefusedBeforeTheDevice) {
  auto mr = RegisterDmaBufRegion(nullptr, -1, 0, 4096, 0, IBV_ACCESS_LOCAL_WRITE);
  EXPECT_EQ(mr.status().code(), StatusCode::kInvalidArgument) << mr.status().ToString();
}

}  // namespace
}  // namespace xfer::verbs
