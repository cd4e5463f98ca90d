// Which addresses tcp offers as rail ends, from a list of interfaces.
#include "transport/tcp/rail_addresses.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace xfer::transport::tcp {
namespace {

double TenGbit(const std::string& interface) { return interface == "lo" ? 0 : 1.25e9; }

const std::vector<InterfaceAddress> kHost = {
    {"lo", "127.0.0.1", "127.0.0.0/8", true},
    {"eth0", "192.168.1.5", "192.168.1.0/24", false},
    {"ib0", "10.0.1.1", "10.0.1.0/24", false},
    {"ib1", "10.0.2.1", "10.0.2.0/24", false},
};

std::vector<std::string> Names(const std::vector<RailCandidate>& ends) {
  std::vector<std::string> names;
  for (const RailCandidate& end : ends) names.push_back(end.name);
  return names;
}

TEST(RailEnds, TheControlAddressComesFirstAndLoopbackStaysOut) {
  const std::vector<RailCandidate> ends = RailEnds(kHost, "10.0.2.1", &TenGbit);
  EXPECT_EQ(Names(ends), (std::vector<std::string>{"10.0.2.1", "192.168.1.5", "10.0.1.1"}));
  EXPECT_EQ(ends[0].network, "10.0.2.0/24");
  EXPECT_EQ(ends[0].bytes_per_sec, 1.25e9);
}

TEST(RailEnds, ALoopbackControlOffersLoopbackOnly) {
  EXPECT_EQ(Names(RailEnds(kHost, "127.0.0.1", &TenGbit)),
            (std::vector<std::string>{"127.0.0.1"}));
}

TEST(RailEnds, AControlOnNoListedAddressOffersNone) {
  EXPECT_TRUE(RailEnds(kHost, "::1", &TenGbit).empty());
  EXPECT_TRUE(RailEnds(kHost, "203.0.113.9", &TenGbit).empty());
}

TEST(ListInterfaceAddresses, FindsThisHostsLoopback) {
  bool loopback = false;
  for (const InterfaceAddress& a : ListInterfaceAddresses()) {
    if (a.address == "127.0.0.1") {
      loopback = a.loopback;
      EXPECT_EQ(a.network, "127.0.0.0/8");
    }
  }
  EXPECT_TRUE(loopback);
}

}  // namespace
}  // namespace xfer::transport::tcp
