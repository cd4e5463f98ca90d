#include "core/peer_table.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace xfer::core {
namespace {

using namespace std::chrono_literals;

// An endpoint with no transport behind it: the table only stores, pins and
// closes connections, and this one records the close.
class ClosingEndpoint final : public transport::Endpoint {
 public:
  explicit ClosingEndpoint(std::atomic<int>* closes) : closes_(closes) {}
  Status PostWrite(std::span<const TransferEntry>, TransferRequest&, uint32_t) override {
    return NotSupported("test endpoint");
  }
  Status PostRead(std::span<const TransferEntry>, TransferRequest&, uint32_t) override {
    return NotSupported("test endpoint");
  }
  Status PostSend(const void*, size_t, TransferRequest&, uint32_t) override {
    return NotSupported("test endpoint");
  }
  Status PostRecv(void*, size_t, TransferRequest&) override { return NotSupported("test endpoint"); }
  Status Revoke(const transport::LocalRegionView&, Deadline) override { return Status::Ok(); }
  void Close() override {
    if (!closed_.exchange(true)) closes_->fetch_add(1);
  }

 private:
  std::atomic<int>* closes_;
  std::atomic<bool> closed_{false};
};

// What every connection's memory view stands on; outlives every
// connection of every test (the driver is never loaded: nothing stages).
struct EngineMemory {
  std::unique_ptr<cuda::DeviceRuntime> devices = cuda::DeviceRuntime::Create();
  MemoryRegistry registry{*devices};
  NotificationInbox inbox;
};
EngineMemory& SharedEngineMemory() {
  static EngineMemory memory;
  return memory;
}

std::shared_ptr<PeerConnection> Connection(const std::string& name, std::atomic<int>* closes) {
  PeerInfo info;
  info.name = name;
  EngineMemory& engine = SharedEngineMemory();
  return std::make_shared<PeerConnection>(
      info, transport::Capabilities{}, Socket(), transport::RemoteMemory(),
      std::make_unique<ConnectionMemory>(engine.registry, *engine.devices),
      engine.inbox.NewSink(name), std::make_unique<ClosingEndpoint>(closes), nullptr,
      *engine.devices, DevicePath::kAuto, 1000ms);
}

TEST(PeerTableTest, FindsWhatWasAddedAndNothingElse) {
  std::atomic<int> closes{0};
  PeerTable table;
  auto a = table.Add(Connection("a", &closes));
  auto b = table.Add(Connection("b", &closes));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*a, 1u);  // the first ids are small, as they were before slots
  EXPECT_EQ(*b, 2u);
  EXPECT_EQ(table.Find(*a)->info().name, "a");
  EXPECT_EQ(table.Find(*b)->info().name, "b");
  EXPECT_FALSE(table.Find(0));
  EXPECT_FALSE(table.Find(3));
  EXPECT_FALSE(table.Find(12345));
  EXPECT_FALSE(table.Find(UINT64_MAX));
  EXPECT_FALSE(table.Find((uint64_t{7} << 32) | 1));  // slot 0, a generation never issued
  EXPECT_EQ(table.Ids().size(), 2u);
  EXPECT_EQ(table.Connections().size(), 2u);
}

TEST(PeerTableTest, RemoveClosesAndAStaleIdNeverFindsTheSlotsNextPeer) {
  std::atomic<int> closes{0};
  PeerTable table;
  const PeerId first = *table.Add(Connection("first", &closes));
  auto removed = table.Remove(first);
  ASSERT_NE(removed, nullptr);
  EXPECT_EQ(closes.load(), 1);
  EXPECT_FALSE(table.Find(first));
  EXPECT_EQ(table.Remove(first), nullptr);
  const PeerId second = *table.Add(Connection("second", &closes));
  EXPECT_NE(second, first);
  EXPECT_EQ(second & 0xffffffffu, first & 0xffffffffu);  // the slot is reused
  EXPECT_FALSE(table.Find(first));
  EXPECT_EQ(table.Find(second)->info().name, "second");
  EXPECT_TRUE(table.Ids() == std::vector<PeerId>{second});
}

TEST(PeerTableTest, RemoveWaitsForEveryPinToDrop) {
  std::atomic<int> closes{0};
  PeerTable table;
  const PeerId id = *table.Add(Connection("pinned", &closes));
  auto pin = table.Find(id);
  ASSERT_TRUE(pin);
  std::atomic<bool> removed{false};
  std::thread remover([&] {
    table.Remove(id);
    removed.store(true);
  });
  // Closed at once, so a post on the pinned connection fails fast...
  for (int i = 0; i < 2000 && closes.load() == 0; ++i) std::this_thread::sleep_for(1ms);
  EXPECT_EQ(closes.load(), 1);
  // ...but not freed while pinned.
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(removed.load());
  EXPECT_EQ(pin->info().name, "pinned");
  { auto dropped = std::move(pin); }
  remover.join();
  EXPECT_TRUE(removed.load());
  EXPECT_FALSE(table.Find(id));
}

TEST(PeerTableTest, ConcurrentFindsDuringChurnSeeOnlyLiveConnections) {
  std::atomic<int> closes{0};
  PeerTable table;
  const PeerId stable = *table.Add(Connection("stable", &closes));
  std::atomic<PeerId> churning{*table.Add(Connection("churn", &closes))};
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> wrong{0};
  std::thread reader([&] {
    while (!stop.load(std::memory_order_relaxed)) {
      auto pin = table.Find(stable);
      if (!pin || pin->info().name != "stable") wrong.fetch_add(1);
      if (auto other = table.Find(churning.load()); other && other->info().name != "churn") {
        wrong.fetch_add(1);
      }
    }
  });
  for (int i = 0; i < 2000; ++i) {
    const PeerId old = churning.load();
    churning.store(*table.Add(Connection("churn", &closes)));
    table.Remove(old);
  }
  stop.store(true);
  reader.join();
  EXPECT_EQ(wrong.load(), 0u);
  EXPECT_EQ(closes.load(), 2000);
}

TEST(PeerTableTest, ManyPeersSpanChunks) {
  std::atomic<int> closes{0};
  PeerTable table;
  std::vector<PeerId> ids;
  for (int i = 0; i < 300; ++i) ids.push_back(*table.Add(Connection(std::to_string(i), &closes)));
  for (size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(table.Find(ids[i])->info().name, std::to_string(i));
  for (PeerId id : ids) table.Remove(id);
  EXPECT_EQ(closes.load(), 300);
  EXPECT_TRUE(table.Ids().empty());
}

}  // namespace
}  // namespace xfer::core
