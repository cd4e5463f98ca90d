// What the verbs tests need to know about this host's RDMA devices: whether
// there is one (every verbs test skips, naming why, when there is not), and
// which device each side of a connection uses.
//
// XFER_TEST_VERBS_DEVICES="rxe0,rxe1" puts the initiator on rxe0 and the
// target on rxe1 (the Soft-RoCE VM of scripts/softroce-vm has both); one
// name puts both sides on it; unset, both use the first device.
// Header-only, so that any test binary linking the verbs transport can use
// it.
#ifndef XFER_TESTS_SUPPORT_VERBS_TEST_ENV_H_
#define XFER_TESTS_SUPPORT_VERBS_TEST_ENV_H_

#include <cstdlib>
#include <string>
#include <string_view>

#include "common/build_options.h"
#include "xfer/engine.h"

#if XFER_WITH_VERBS
#include "verbs/device_catalog.h"
#endif

namespace xfer::testing {

// "" when verbs tests can run here; otherwise why not, for GTEST_SKIP().
inline std::string VerbsSkipReason() {
#if !XFER_WITH_VERBS
  return "this build has no RDMA verbs (configured with XFER_VERBS=OFF, or without rdma-core)";
#else
  auto devices = ::xfer::verbs::ListDevices();
  if (!devices.ok()) return "cannot list RDMA devices: " + devices.status().ToString();
  if (devices->empty()) {
    return "no RDMA device on this host (the verbs tests run in the Soft-RoCE VM: "
           "scripts/softroce-vm -- <test binary>): " +
           ::xfer::verbs::ExplainNoDevices();
  }
  return "";
#endif
}

inline bool HasVerbsDevice() { return VerbsSkipReason().empty(); }

// Whether this build has the verbs transport at all (XFER_VERBS).
inline constexpr bool kBuiltWithVerbs = XFER_WITH_VERBS != 0;

struct VerbsTestDevices {
  std::string initiator;  // "" = the first device
  std::string target;
};

inline VerbsTestDevices TestVerbsDevices() {
  const char* env = std::getenv("XFER_TEST_VERBS_DEVICES");
  if (env == nullptr || *env == '\0') return {};
  const std::string text(env);
  const size_t comma = text.find(',');
  if (comma == std::string::npos) return {text, text};
  return {text.substr(0, comma), text.substr(comma + 1)};
}

// The verbs transport's settings that pick `device`; none for "" (the
// first device), so that a build without verbs is handed no verbs settings.
inline TransportOptions VerbsDeviceOptions(const std::string& device) {
  if (device.empty()) return {};
  return {{"device", device}};
}

// The settings a transport test gives transport `name` on the initiator's
// or the target's side: for verbs, the devices XFER_TEST_VERBS_DEVICES
// names; none for the others. The one place tests map a transport's name
// to its test environment.
inline TransportOptions TestTransportOptions(std::string_view name, bool initiator) {
  if (name != "verbs") return {};
  const VerbsTestDevices devices = TestVerbsDevices();
  return VerbsDeviceOptions(initiator ? devices.initiator : devices.target);
}

// Adds VerbsDeviceOptions(device) to `options`, when there are any.
inline void UseVerbsDevice(EngineOptions& options, const std::string& device) {
  if (!device.empty()) options.transport_options["verbs"] = VerbsDeviceOptions(device);
}

}  // namespace xfer::testing

#endif  // XFER_TESTS_SUPPORT_VERBS_TEST_ENV_H_
