// What a transport promises (transport.h, Capabilities), read from the
// transport itself, so that tests that differ by transport differ by
// capability, never by name.
#ifndef XFER_TESTS_SUPPORT_TRANSPORT_CAPABILITIES_H_
#define XFER_TESTS_SUPPORT_TRANSPORT_CAPABILITIES_H_

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/verbs_test_env.h"
#include "transport/transport_registry.h"

namespace xfer::testing {

// The capabilities of the built-in transport `name`, created with the test
// environment's settings. Fails the test (and returns the defaults) when
// the build has no such transport.
inline transport::Capabilities CapabilitiesOf(const std::string& name) {
  transport::TransportRegistry registry;
  transport::RegisterBuiltinTransports(registry);
  const transport::TransportEntry* entry = registry.Find(name);
  EXPECT_NE(entry, nullptr) << name << " is not built in";
  if (entry == nullptr) return {};
  auto created = entry->create(TestTransportOptions(name, true));
  EXPECT_TRUE(created.ok()) << created.status().ToString();
  return created.ok() ? (*created)->capabilities() : transport::Capabilities{};
}

// The names of the transports this build has, for suites that run on each.
inline std::vector<std::string> BuiltTransports() {
  transport::TransportRegistry registry;
  transport::RegisterBuiltinTransports(registry);
  return registry.Names();
}

// The conformance suites' cases: every built transport over one rail, and
// those that stripe over several also over two ("tcp_2rails";
// support/rail_pair.h).
inline std::vector<std::string> ConformanceCases() {
  std::vector<std::string> cases = BuiltTransports();
  for (const std::string& name : BuiltTransports()) {
    if (CapabilitiesOf(name).max_rails > 1) cases.push_back(name + "_2rails");
  }
  return cases;
}

}  // namespace xfer::testing

#endif  // XFER_TESTS_SUPPORT_TRANSPORT_CAPABILITIES_H_
