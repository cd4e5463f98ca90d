#include "transport/tcp/tcp_transport.h"

#include <gtest/gtest.h>

#include "support/endpoint_pair.h"
#include "tcp_test_util.h"

namespace xfer::transport::tcp::testing {
namespace {

TEST(TcpTransportTest, RegistersItselfAsTcp) {
  TransportRegistry registry;
  RegisterTcpTransport(registry);
  const TransportEntry* entry = registry.Find("tcp");
  ASSERT_NE(entry, nullptr);
  EXPECT_FALSE(entry->description.empty());
  auto transport = entry->create({});
  ASSERT_TRUE(transport.ok()) << transport.status().ToString();
  EXPECT_EQ((*transport)->name(), "tcp");
  EXPECT_EQ(entry->create({{"port", "1"}}).status().message(),
            "the tcp transport takes no options (got 'port')");
}

TEST(TcpTransportTest, AdvertisesItsCapabilities) {
  Capabilities caps = TcpTransport().capabilities();
  EXPECT_TRUE(caps.one_sided);
  EXPECT_TRUE(caps.two_sided);
  EXPECT_FALSE(caps.same_host_only);
  EXPECT_EQ(caps.max_streams, 64u);
  EXPECT_EQ(caps.preference, 10);
}

// Every stream the engine may ask for works, up to max_streams.
TEST(TcpTransportTest, ConnectsWithMaxStreams) {
  TcpTransport transport;
  xfer::testing::EndpointPair pair;
  auto a = pair.initiator_memory.Add(64 * 4096, Access::kRemoteReadWrite);
  auto b = pair.target_memory.Add(64 * 4096, Access::kRemoteReadWrite);
  ASSERT_TRUE(xfer::testing::ConnectPair(transport, transport, pair, 64).ok());
  FillPattern(a.address, a.length, 9);
  std::vector<TransferRequest> requests(64);
  for (uint32_t s = 0; s < 64; ++s) {
    TransferEntry entry{Bytes(a) + s * 4096, Addr(Bytes(b) + s * 4096), 4096};
    ASSERT_TRUE(pair.initiator->PostWrite({&entry, 1}, requests[s], s).ok());
  }
  for (auto& r : requests) ASSERT_TRUE(r.Wait(kWait).ok()) << r.Test().ToString();
  EXPECT_EQ(FirstPatternMismatch(b.address, b.length, 9), b.length);
}

}  // namespace
}  // namespace xfer::transport::tcp::testing
