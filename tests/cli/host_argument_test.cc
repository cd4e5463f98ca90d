// The <host> positional (issue 27, defect 15): a port typed into it is named
// as such, with the command that was meant; IPv6 addresses pass.
#include "cli/host_argument.h"

#include <gtest/gtest.h>

namespace xfer::cli {
namespace {

TEST(HostArgument, HostsAndAddressesPass) {
  for (const char* host : {"127.0.0.1", "node-7", "node-7.cluster.example", "fe80::1",
                           "::1", "2001:db8::42"}) {
    EXPECT_TRUE(CheckHostArgument(host).ok()) << host;
  }
}

TEST(HostArgument, APortInTheHostSaysWhereThePortGoes) {
  const Status status = CheckHostArgument("127.0.0.1:19999");
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "<host>: '127.0.0.1:19999' has a port in it; the port goes in -p/--port: "
            "-p 19999 127.0.0.1");
}

TEST(HostArgument, OptionsAndOddWordsAreNotHosts) {
  EXPECT_EQ(CheckHostArgument("").message(), "<host>: '' is not a host name");
  EXPECT_EQ(CheckHostArgument("-x").message(), "<host>: '-x' is not a host name");
  EXPECT_EQ(CheckHostArgument("host:").message(), "<host>: 'host:' is not a host name");
  EXPECT_EQ(CheckHostArgument("host:http").message(), "<host>: 'host:http' is not a host name");
}

}  // namespace
}  // namespace xfer::cli

namespace xfer::cli {
namespace {

// Issue 43, item 26: "[::1]" is a host as "::1" is.
TEST(HostArgument, AnIpv6AddressInBracketsIsTheAddress) {
  EXPECT_EQ(HostWithoutBrackets("[::1]"), "::1");
  EXPECT_EQ(HostWithoutBrackets("[fe80::1%eth0]"), "fe80::1%eth0");
  EXPECT_EQ(HostWithoutBrackets("::1"), "::1");
  EXPECT_EQ(HostWithoutBrackets("[node]"), "[node]") << "no colon: not an IPv6 address";
  EXPECT_EQ(HostWithoutBrackets("[]"), "[]");
  EXPECT_TRUE(CheckHostArgument(HostWithoutBrackets("[::1]")).ok());
}

}  // namespace
}  // namespace xfer::cli
