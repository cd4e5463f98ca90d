// An engine for engine-level tests: one transport, the test environment's
// RDMA device (support/verbs_test_env.h), short timeouts.
#ifndef XFER_TESTS_SUPPORT_TEST_ENGINE_H_
#define XFER_TESTS_SUPPORT_TEST_ENGINE_H_

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

#include "support/verbs_test_env.h"
#include "xfer/engine.h"

namespace xfer::testing {

// The options of a test engine: `listen` "" accepts no peers; `device` is
// the RDMA device for verbs.
inline EngineOptions TestEngineOptions(
    const std::string& transport, const std::string& name, const std::string& listen,
    const std::string& device, DevicePath path = DevicePath::kAuto,
    std::chrono::milliseconds io_timeout = std::chrono::milliseconds(2000)) {
  EngineOptions options;
  options.name = name;
  options.listen_address = listen;
  options.transports = {transport};
  options.connect_timeout = std::chrono::milliseconds(3000);
  options.io_timeout = io_timeout;
  options.device_path = path;
  UseVerbsDevice(options, device);
  return options;
}

// Fails the test (and returns null) when the engine cannot be created.
inline std::unique_ptr<Engine> MakeTestEngine(const EngineOptions& options) {
  auto engine = Engine::Create(options);
  EXPECT_TRUE(engine.ok()) << engine.status().ToString();
  return engine.ok() ? std::move(engine.value()) : nullptr;
}

inline std::unique_ptr<Engine> MakeTestEngine(
    const std::string& transport, const std::string& name, const std::string& listen,
    const std::string& device, DevicePath path = DevicePath::kAuto,
    std::chrono::milliseconds io_timeout = std::chrono::milliseconds(2000)) {
  return MakeTestEngine(TestEngineOptions(transport, name, listen, device, path, io_timeout));
}

}  // namespace xfer::testing

#endif  // XFER_TESTS_SUPPORT_TEST_ENGINE_H_
