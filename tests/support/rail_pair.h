// Two connected endpoints over several rails: `rails` endpoint pairs of one
// transport, each side's wrapped in a StripedEndpoint, as the engine
// connects two engines over several rails.
#ifndef XFER_TESTS_SUPPORT_RAIL_PAIR_H_
#define XFER_TESTS_SUPPORT_RAIL_PAIR_H_

#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/striped_endpoint.h"
#include "support/endpoint_pair.h"

namespace xfer::testing {

// A conformance case: a transport, over one rail or several. Named
// "tcp" or "tcp_2rails" (gtest's parameter names).
struct RailCase {
  std::string transport;
  uint32_t rails = 1;

  static RailCase Parse(const std::string& name) {
    const size_t underscore = name.find('_');
    if (underscore == std::string::npos) return {name, 1};
    return {name.substr(0, underscore),
            static_cast<uint32_t>(std::stoul(name.substr(underscore + 1)))};
  }
};

inline std::unique_ptr<transport::Endpoint> Striped(
    std::vector<std::unique_ptr<transport::Endpoint>> endpoints, uint32_t streams,
    core::StripedEndpoint::Options options = {}) {
  std::vector<core::StripedEndpoint::Rail> rails;
  for (auto& endpoint : endpoints) rails.push_back({std::move(endpoint), 0});
  return std::make_unique<core::StripedEndpoint>(std::move(rails), streams, options);
}

// ConnectPair over `rails` rails: pair.initiator and pair.target are then
// StripedEndpoints over them (the plain endpoints for one rail).
inline Status ConnectRailPair(transport::Transport& initiator_transport,
                              transport::Transport& target_transport, EndpointPair& pair,
                              uint32_t rails, uint32_t streams,
                              std::chrono::milliseconds io_timeout) {
  XFER_RETURN_IF_ERROR(
      ConnectPair(initiator_transport, target_transport, pair, streams, io_timeout, rails));
  if (rails > 1) {
    pair.initiator = Striped(std::move(pair.initiator_rails), streams);
    pair.target = Striped(std::move(pair.target_rails), streams);
  }
  return Status::Ok();
}

}  // namespace xfer::testing

#endif  // XFER_TESTS_SUPPORT_RAIL_PAIR_H_
