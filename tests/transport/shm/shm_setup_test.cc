// Connection setup against peers that misbehave: every malformed or
// mismatched announcement, table or descriptor is a kProtocolError, every
// silent or vanished peer a bounded failure, and nothing crashes.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <vector>

#include "common/wire.h"
#include "shm_test_util.h"

namespace xfer::testing {
namespace {

using std::chrono::milliseconds;
using transport::LocalRegionView;
using transport::shm::SendRegionTable;

constexpr auto kDeadline = std::chrono::seconds(3);

// A memfd of `file_bytes`, mapped, presented as a region of `length` bytes.
struct FakeRegion {
  FakeRegion(size_t file_bytes, size_t length, uint64_t id) {
    fd = UniqueFd(memfd_create("fake", MFD_CLOEXEC));
    EXPECT_EQ(ftruncate(fd.get(), static_cast<off_t>(file_bytes)), 0);
    base = mmap(nullptr, file_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd.get(), 0);
    mapped = file_bytes;
    view = {id, base, length, Access::kRemoteReadWrite, fd.get()};
  }
  ~FakeRegion() { munmap(base, mapped); }
  UniqueFd fd;
  void* base = nullptr;
  size_t mapped = 0;
  LocalRegionView view;
};

void ExpectSetupFails(HalfPair& half, StatusCode code) {
  auto real = half.real.get();
  ASSERT_FALSE(real.ok());
  EXPECT_EQ(real.status().code(), code) << real.status().ToString();
}

TEST(ShmSetupTest, TableRowThatDoesNotMatchTheHandshakeIsRejected) {
  HalfPair half;
  half.memory.Add(4096, Access::kRemoteReadWrite);
  FakeRegion region(8192, 8192, 7);
  std::vector<RemoteRegion> announced = {{7, Addr(region.base), 4096, Access::kRemoteReadWrite}};
  StartRealSide(half, true, announced);
  auto socket = FakeTargetMeet(half);
  ASSERT_TRUE(socket.ok()) << socket.status().ToString();
  // The table claims 8192 bytes where the handshake said 4096.
  FakeLocalMemory table({region.view});
  ASSERT_TRUE(SendRegionTable(*socket, table.Snapshot(), Deadline::After(kDeadline)).ok());
  ExpectSetupFails(half, StatusCode::kProtocolError);
}

TEST(ShmSetupTest, MoreRowsThanAnnouncedAreRejected) {
  HalfPair half;
  FakeRegion r1(4096, 4096, 1), r2(4096, 4096, 2);
  StartRealSide(half, true, {{1, Addr(r1.base), 4096, Access::kRemoteReadWrite}});
  auto socket = FakeTargetMeet(half);
  ASSERT_TRUE(socket.ok()) << socket.status().ToString();
  FakeLocalMemory table({r1.view, r2.view});
  (void)SendRegionTable(*socket, table.Snapshot(), Deadline::After(kDeadline));
  ExpectSetupFails(half, StatusCode::kProtocolError);
}

TEST(ShmSetupTest, GarbageTableIsRejected) {
  HalfPair half;
  StartRealSide(half, true, {});
  auto socket = FakeTargetMeet(half);
  ASSERT_TRUE(socket.ok()) << socket.status().ToString();
  const uint8_t garbage[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  ASSERT_TRUE(socket->SendMessage(garbage, Deadline::After(kDeadline)).ok());
  ExpectSetupFails(half, StatusCode::kProtocolError);
}

TEST(ShmSetupTest, DescriptorThatIsNotAFileIsRejected) {
  HalfPair half;
  int pipe_fds[2];
  ASSERT_EQ(pipe2(pipe_fds, O_CLOEXEC), 0);
  UniqueFd read_end(pipe_fds[0]), write_end(pipe_fds[1]);
  std::vector<uint8_t> memory(4096);
  LocalRegionView view{3, memory.data(), memory.size(), Access::kRemoteReadWrite, read_end.get()};
  StartRealSide(half, true, {{3, Addr(memory.data()), 4096, Access::kRemoteReadWrite}});
  auto socket = FakeTargetMeet(half);
  ASSERT_TRUE(socket.ok()) << socket.status().ToString();
  ASSERT_TRUE(SendFakeTables(*socket, FakeLocalMemory({view}).Snapshot()).ok());
  ExpectSetupFails(half, StatusCode::kProtocolError);
}

TEST(ShmSetupTest, MemfdShorterThanItsRegionIsRejected) {
  HalfPair half;
  FakeRegion region(4096, size_t{1} << 20, 4);  // claims 1 MiB, backs 4 KiB
  StartRealSide(half, true, {{4, Addr(region.base), size_t{1} << 20, Access::kRemoteReadWrite}});
  auto socket = FakeTargetMeet(half);
  ASSERT_TRUE(socket.ok()) << socket.status().ToString();
  ASSERT_TRUE(SendFakeTables(*socket, FakeLocalMemory({region.view}).Snapshot()).ok());
  ExpectSetupFails(half, StatusCode::kProtocolError);
}

TEST(ShmSetupTest, RevocationTableNotMatchingTheHandshakeIsRejected) {
  HalfPair half;
  FakeRegion region(4096, 4096, 5);
  StartRealSide(half, true, {{5, Addr(region.base), 4096, Access::kRemoteReadWrite}});
  auto socket = FakeTargetMeet(half);
  ASSERT_TRUE(socket.ok()) << socket.status().ToString();
  ASSERT_TRUE(SendRegionTable(*socket, FakeLocalMemory({region.view}).Snapshot(),
                              Deadline::After(kDeadline))
                  .ok());
  // Its one slot names region 6, where the handshake announced region 5.
  LocalRegionView other = region.view;
  other.id = 6;
  auto revocations = transport::shm::RevocationTable::Create(std::vector{other});
  ASSERT_TRUE(revocations.ok());
  ASSERT_TRUE(
      transport::shm::SendRevocationTable(*socket, *revocations, Deadline::After(kDeadline)).ok());
  ExpectSetupFails(half, StatusCode::kProtocolError);
}

TEST(ShmSetupTest, WrongTokenIsRejected) {
  HalfPair half;
  StartRealSide(half, true, {});
  auto body = half.fake_control.RecvMessage(1024, Deadline::After(kDeadline));
  ASSERT_TRUE(body.ok());
  WireReader r(*body);
  uint64_t hi = 0, lo = 0;
  std::string name;
  ASSERT_TRUE(r.U64(hi).ok());
  ASSERT_TRUE(r.U64(lo).ok());
  ASSERT_TRUE(r.String(name, 200).ok());
  auto socket = ConnectUnixAbstract(name, Deadline::After(kDeadline));
  ASSERT_TRUE(socket.ok());
  WireWriter w;
  w.U64(hi);
  w.U64(lo + 1);
  ASSERT_TRUE(socket->SendMessage(w.bytes(), Deadline::After(kDeadline)).ok());
  ExpectSetupFails(half, StatusCode::kProtocolError);
}

TEST(ShmSetupTest, MalformedAnnouncementIsRejectedByTheTarget) {
  HalfPair half;
  StartRealSide(half, false, {});
  WireWriter w;
  w.U64(1);
  w.U64(2);
  w.String("../../etc/passwd");
  ASSERT_TRUE(half.fake_control.SendMessage(w.bytes(), Deadline::After(kDeadline)).ok());
  ExpectSetupFails(half, StatusCode::kProtocolError);
}

TEST(ShmSetupTest, OversizedAnnouncementIsRejectedBeforeReading) {
  HalfPair half;
  StartRealSide(half, false, {});
  const uint8_t header[] = {0xff, 0xff, 0xff, 0x7f};  // a 2 GiB message
  ASSERT_TRUE(half.fake_control.SendAll(header, sizeof(header), Deadline::After(kDeadline)).ok());
  ExpectSetupFails(half, StatusCode::kProtocolError);
}

TEST(ShmSetupTest, SilentPeerTimesOutAtTheDeadline) {
  HalfPair half;
  StartRealSide(half, true, {}, milliseconds(200));
  ExpectSetupFails(half, StatusCode::kTimeout);
}

TEST(ShmSetupTest, PeerThatHangsUpMidSetupIsConnectionLost) {
  HalfPair half;
  StartRealSide(half, false, {}, milliseconds(3000));
  half.fake_control.Close();
  ExpectSetupFails(half, StatusCode::kConnectionLost);
}

// A peer that dies during the rendezvous shows only on the control
// connection; each side must notice it there, not wait out its deadline
// (the deadline here is 3 s).
void ExpectConnectionLostAtOnce(HalfPair& half, std::chrono::steady_clock::time_point since) {
  ExpectSetupFails(half, StatusCode::kConnectionLost);
  EXPECT_LT(std::chrono::steady_clock::now() - since, milliseconds(1500));
}

TEST(ShmSetupTest, InitiatorWhosePeerDiesBeforeConnectingIsConnectionLostAtOnce) {
  HalfPair half;
  StartRealSide(half, true, {});
  ASSERT_TRUE(half.fake_control.RecvMessage(1024, Deadline::After(kDeadline)).ok());
  const auto closed_at = std::chrono::steady_clock::now();
  half.fake_control.Close();
  ExpectConnectionLostAtOnce(half, closed_at);
}

TEST(ShmSetupTest, TargetWhosePeerDiesAfterItsAnnouncementIsConnectionLostAtOnce) {
  HalfPair half;
  StartRealSide(half, false, {});
  WireWriter w;
  w.U64(1);
  w.U64(2);
  w.String("xfer-shm-1-00000000deadbeef");  // well formed; nobody listens there
  ASSERT_TRUE(half.fake_control.SendMessage(w.bytes(), Deadline::After(kDeadline)).ok());
  const auto closed_at = std::chrono::steady_clock::now();
  half.fake_control.Close();
  ExpectConnectionLostAtOnce(half, closed_at);
}

}  // namespace
}  // namespace xfer::testing
