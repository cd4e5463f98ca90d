// The shm device table against peers that lie, and the refusal a peer's
// device region gets when this side cannot reach it. No GPU is needed: the
// rows are bytes, and a region that cannot be opened must be refused by
// name, never copied into as if it were host memory.
#include "transport/shm/device_table.h"

#include <gtest/gtest.h>
#include <sys/socket.h>

#include <chrono>
#include <vector>

#include "common/wire.h"
#include "support/test_devices.h"
#include "transport/shm/peer_mapping.h"

namespace xfer::testing {
namespace {

using transport::LocalRegionView;
using transport::RemoteMemory;
using transport::shm::DeviceRow;
using transport::shm::ReceiveDeviceTable;
using transport::shm::SendDeviceTable;

constexpr uint64_t kDeviceAddress = 0x7f0000200000;

Deadline Soon() { return Deadline::After(std::chrono::seconds(3)); }

struct SocketPair {
  SocketPair() {
    int fds[2];
    EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
    a = Socket(UniqueFd(fds[0]));
    b = Socket(UniqueFd(fds[1]));
  }
  Socket a;
  Socket b;
};

RemoteRegion CudaRegion(uint64_t id, uint64_t address, int device) {
  return {id, address, 1 << 20, Access::kRemoteReadWrite, MemoryKind::kCuda, device};
}

LocalRegionView CudaView(uint64_t id, uint64_t address, int device) {
  LocalRegionView view;
  view.id = id;
  view.address = reinterpret_cast<void*>(address);
  view.length = 1 << 20;
  view.access = Access::kRemoteReadWrite;
  view.kind = MemoryKind::kCuda;
  view.device = device;
  return view;
}

void SendCount(Socket& socket, uint32_t count, uint32_t magic = 0x444d5358) {
  WireWriter w;
  w.U32(magic);
  w.U32(1);
  w.U32(count);
  ASSERT_TRUE(socket.SendMessage(w.bytes(), Soon()).ok());
}

void SendRow(Socket& socket, const RemoteRegion& region, uint64_t base, uint8_t shareable) {
  WireWriter w;
  w.U64(region.id);
  w.U64(region.address);
  w.U64(region.length);
  w.U32(static_cast<uint32_t>(region.access));
  w.U32(static_cast<uint32_t>(region.device));
  w.U64(base);
  w.U8(shareable);
  for (int i = 0; i < 64; ++i) w.U8(static_cast<uint8_t>(i));
  w.String("");
  ASSERT_TRUE(socket.SendMessage(w.bytes(), Soon()).ok());
}

StatusCode Receive(Socket& socket, const std::vector<RemoteRegion>& announced) {
  return ReceiveDeviceTable(socket, RemoteMemory(announced), Soon()).status().code();
}

// Where the exporting side cannot export (here: no driver, so its region
// is not device memory to it), the row still arrives, unshareable, with
// the reason; the importer's mapping keeps the region out of reach.
TEST(ShmDeviceTableTest, AnUnexportableRegionArrivesWithItsReasonAndStaysOutOfReach) {
  if (TestDevices().Available().ok()) GTEST_SKIP() << "this host's driver would export it";
  SocketPair pair;
  const std::vector<LocalRegionView> views = {CudaView(7, kDeviceAddress, 0)};
  ASSERT_TRUE(SendDeviceTable(pair.a, views, TestDevices(), Soon()).ok());
  const std::vector<RemoteRegion> announced = {CudaRegion(7, kDeviceAddress, 0)};
  auto rows = ReceiveDeviceTable(pair.b, RemoteMemory(announced), Soon());
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_FALSE((*rows)[0].shareable);
  EXPECT_FALSE((*rows)[0].why_not.empty());

  // The revocation table covers the peer's regions; this one stands for
  // the peer's, mapped.
  auto peer_table = transport::shm::RevocationTable::Create(views);
  ASSERT_TRUE(peer_table.ok());
  auto mapping = transport::shm::PeerMapping::Create(RemoteMemory(announced), {},
                                                     std::move(*rows), std::move(*peer_table),
                                                     TestDevices());
  ASSERT_TRUE(mapping.ok()) << mapping.status().ToString();
  auto region = mapping->Resolve(kDeviceAddress, 4096, Access::kRemoteWrite);
  ASSERT_TRUE(region.ok());
  EXPECT_EQ((*region)->kind, MemoryKind::kCuda);
  EXPECT_EQ((*region)->device_mapped, nullptr);
  EXPECT_NE((*region)->unreachable.find("could not export"), std::string::npos)
      << (*region)->unreachable;
}

TEST(ShmDeviceTableTest, ARowForARegionTheHandshakeDidNotAnnounceIsRefused) {
  SocketPair pair;
  SendCount(pair.a, 1);
  SendRow(pair.a, CudaRegion(8, kDeviceAddress, 0), kDeviceAddress, 1);
  EXPECT_EQ(Receive(pair.b, {CudaRegion(7, kDeviceAddress, 0)}), StatusCode::kProtocolError);
}

TEST(ShmDeviceTableTest, ARowOnAnotherDeviceOrForHostMemoryIsRefused) {
  {
    SocketPair pair;
    SendCount(pair.a, 1);
    SendRow(pair.a, CudaRegion(7, kDeviceAddress, 1), kDeviceAddress, 1);
    EXPECT_EQ(Receive(pair.b, {CudaRegion(7, kDeviceAddress, 0)}), StatusCode::kProtocolError);
  }
  {
    // The handshake said host memory: a device row for it is a lie.
    SocketPair pair;
    RemoteRegion host = CudaRegion(7, kDeviceAddress, -1);
    host.kind = MemoryKind::kHost;
    SendCount(pair.a, 1);
    SendRow(pair.a, CudaRegion(7, kDeviceAddress, 0), kDeviceAddress, 1);
    EXPECT_EQ(Receive(pair.b, {host}), StatusCode::kProtocolError);
  }
}

TEST(ShmDeviceTableTest, CountsThatDoNotMatchTheHandshakeAreRefused) {
  for (uint32_t count : {0u, 2u, 4096u}) {
    SocketPair pair;
    SendCount(pair.a, count);
    EXPECT_EQ(Receive(pair.b, {CudaRegion(7, kDeviceAddress, 0)}), StatusCode::kProtocolError)
        << count;
  }
}

TEST(ShmDeviceTableTest, AnAllocationThatStartsAfterItsRegionOrABadFlagIsRefused) {
  {
    SocketPair pair;
    SendCount(pair.a, 1);
    SendRow(pair.a, CudaRegion(7, kDeviceAddress, 0), kDeviceAddress + 4096, 1);
    EXPECT_EQ(Receive(pair.b, {CudaRegion(7, kDeviceAddress, 0)}), StatusCode::kProtocolError);
  }
  {
    SocketPair pair;
    SendCount(pair.a, 1);
    SendRow(pair.a, CudaRegion(7, kDeviceAddress, 0), kDeviceAddress, 2);
    EXPECT_EQ(Receive(pair.b, {CudaRegion(7, kDeviceAddress, 0)}), StatusCode::kProtocolError);
  }
}

TEST(ShmDeviceTableTest, ABadMagicAndATruncatedRowAreRefused) {
  {
    SocketPair pair;
    SendCount(pair.a, 1, 0x12345678);
    EXPECT_EQ(Receive(pair.b, {CudaRegion(7, kDeviceAddress, 0)}), StatusCode::kProtocolError);
  }
  {
    SocketPair pair;
    SendCount(pair.a, 1);
    WireWriter w;
    w.U64(7);
    w.U64(kDeviceAddress);
    ASSERT_TRUE(pair.a.SendMessage(w.bytes(), Soon()).ok());
    EXPECT_EQ(Receive(pair.b, {CudaRegion(7, kDeviceAddress, 0)}), StatusCode::kProtocolError);
  }
  {
    SocketPair pair;
    SendCount(pair.a, 1);
    pair.a.Close();
    EXPECT_EQ(Receive(pair.b, {CudaRegion(7, kDeviceAddress, 0)}), StatusCode::kConnectionLost);
  }
}

}  // namespace
}  // namespace xfer::testing
