// Helpers shared by the shm transport tests: endpoint pairs, and a
// hand-driven peer that speaks as much of the shm protocol as a test wants
// and then misbehaves.
#ifndef XFER_TESTS_TRANSPORT_SHM_SHM_TEST_UTIL_H_
#define XFER_TESTS_TRANSPORT_SHM_SHM_TEST_UTIL_H_

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <future>
#include <memory>
#include <vector>

#include "support/endpoint_pair.h"
#include "support/test_devices.h"
#include "support/test_memory.h"
#include "transport/shm/device_table.h"
#include "transport/shm/notification_ring.h"
#include "transport/shm/region_table.h"
#include "transport/shm/rendezvous.h"
#include "transport/shm/revocation_table.h"
#include "transport/shm/shm_transport.h"

namespace xfer::testing {

using std::chrono::milliseconds;

// How long the shm tests wait for a request or a message.
inline constexpr auto kWait = std::chrono::seconds(5);

// Fills [p, p+n) with bytes that depend on `seed` and the position.
inline void FillPattern(void* p, size_t n, uint8_t seed) {
  auto* b = static_cast<uint8_t*>(p);
  for (size_t i = 0; i < n; ++i) b[i] = static_cast<uint8_t>(seed + i * 7 + (i >> 8));
}

inline bool AllBytesAre(const void* p, size_t n, uint8_t value) {
  const auto* b = static_cast<const uint8_t*>(p);
  for (size_t i = 0; i < n; ++i) {
    if (b[i] != value) return false;
  }
  return true;
}

inline uint64_t Addr(const void* p) { return reinterpret_cast<uint64_t>(p); }
inline uint8_t* Ptr(const transport::LocalRegionView& v) {
  return static_cast<uint8_t*>(v.address);
}

// A LocalMemory whose table the test writes by hand, descriptors included,
// to make a peer announce things a real engine would not.
class FakeLocalMemory : public transport::LocalMemory {
 public:
  explicit FakeLocalMemory(std::vector<transport::LocalRegionView> views)
      : views_(std::move(views)) {}
  Result<MemoryKind> Locate(uint64_t, uint64_t, Access) const override {
    return MemoryKind::kHost;
  }
  std::vector<transport::LocalRegionView> Snapshot() const override { return views_; }

 private:
  std::vector<transport::LocalRegionView> views_;
};

// A real shm endpoint on one side, the test's own code on the other.
struct HalfPair {
  TestMemory memory;  // the real side's memory
  Socket real_control;
  Socket fake_control;
  std::future<Result<std::unique_ptr<transport::Endpoint>>> real;  // CreateEndpoint's outcome
};

// Starts CreateEndpoint for the real side (initiator or not) on a thread,
// told that the peer registered `peer_regions`.
inline void StartRealSide(HalfPair& half, bool initiator, std::vector<RemoteRegion> peer_regions,
                          milliseconds deadline = milliseconds(3000),
                          milliseconds io_timeout = milliseconds(2000)) {
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
  half.real_control = Socket(UniqueFd(fds[0]));
  half.fake_control = Socket(UniqueFd(fds[1]));
  half.real =
      std::async(std::launch::async, [&half, initiator, peer_regions, deadline, io_timeout]() {
        transport::EndpointSetup setup;
        setup.initiator = initiator;
        setup.control = &half.real_control;
        setup.peer_host = "127.0.0.1";
        setup.peer_pid = getpid();
        setup.local = &half.memory;
        setup.announced = half.memory.Snapshot();
        setup.remote = transport::RemoteMemory(peer_regions);
        setup.io_timeout = io_timeout;
        setup.deadline = Deadline::After(deadline);
        setup.devices = &TestDevices();
        setup.notifications = &xfer::testing::UnusedSink();
        transport::shm::ShmTransport transport;
        return transport.CreateEndpoint(setup);
      });
}

// Sends `views` as a target's tables: the region table, a fresh
// revocation table for the same regions, the device table, and a fresh
// notification ring.
inline Status SendFakeTables(Socket& socket, const std::vector<transport::LocalRegionView>& views) {
  const Deadline deadline = Deadline::After(std::chrono::seconds(3));
  XFER_RETURN_IF_ERROR(transport::shm::SendRegionTable(socket, views, deadline));
  auto revocations = transport::shm::RevocationTable::Create(views);
  if (!revocations.ok()) return revocations.status();
  XFER_RETURN_IF_ERROR(transport::shm::SendRevocationTable(socket, *revocations, deadline));
  XFER_RETURN_IF_ERROR(transport::shm::SendDeviceTable(socket, views, TestDevices(), deadline));
  auto ring = transport::shm::RingMapping::Create();
  if (!ring.ok()) return ring.status();
  const transport::shm::InboundRing inbound(std::move(*ring), xfer::testing::UnusedSink());
  return transport::shm::SendNotificationRing(socket, inbound, deadline);
}

// Plays an honest shm target up to the table exchange: meets the real
// initiator and reads its tables. Returns the private socket.
inline Result<Socket> FakeTargetMeet(HalfPair& half) {
  transport::EndpointSetup setup;
  setup.initiator = false;
  setup.control = &half.fake_control;
  setup.deadline = Deadline::After(std::chrono::seconds(3));
  auto socket = transport::shm::Rendezvous(setup);
  if (!socket.ok()) return socket;
  auto table = transport::shm::ReceiveRegionTable(
      *socket, transport::RemoteMemory(half.memory.AsRemote()), setup.deadline);
  if (!table.ok()) return table.status();
  auto revocations = transport::shm::ReceiveRevocationTable(
      *socket, transport::RemoteMemory(half.memory.AsRemote()), setup.deadline);
  if (!revocations.ok()) return revocations.status();
  auto devices = transport::shm::ReceiveDeviceTable(
      *socket, transport::RemoteMemory(half.memory.AsRemote()), setup.deadline);
  if (!devices.ok()) return devices.status();
  auto ring = transport::shm::ReceiveNotificationRing(*socket, setup.deadline);
  if (!ring.ok()) return ring.status();
  return socket;
}

// Connects a real initiator to a fake target that sends `fake_table` as
// its region table; returns the real side's endpoint (or error) and leaves
// the fake side's socket in `fake_socket`.
inline Result<std::unique_ptr<transport::Endpoint>> ConnectToFakeTarget(
    HalfPair& half, const transport::LocalMemory& fake_table, Socket& fake_socket,
    milliseconds io_timeout = milliseconds(2000)) {
  std::vector<RemoteRegion> announced;
  for (const auto& v : fake_table.Snapshot()) {
    announced.push_back({v.id, Addr(v.address), v.length, v.access});
  }
  StartRealSide(half, true, announced, milliseconds(3000), io_timeout);
  auto socket = FakeTargetMeet(half);
  if (!socket.ok()) return socket.status();
  XFER_RETURN_IF_ERROR(SendFakeTables(*socket, fake_table.Snapshot()));
  fake_socket = std::move(*socket);
  return half.real.get();
}

}  // namespace xfer::testing

#endif  // XFER_TESTS_TRANSPORT_SHM_SHM_TEST_UTIL_H_
