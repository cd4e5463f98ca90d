// Builds two connected endpoints of one transport inside one test process,
// the way two engines would after their handshake.
#ifndef XFER_TESTS_SUPPORT_ENDPOINT_PAIR_H_
#define XFER_TESTS_SUPPORT_ENDPOINT_PAIR_H_

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "support/recording_sink.h"
#include "support/test_memory.h"
#include "transport/transport.h"

namespace xfer::testing {

struct EndpointPair {
  TestMemory initiator_memory;  // must outlive the endpoints: declared first
  TestMemory target_memory;
  // What each side received of the other's notifications; outlive the
  // endpoints too.
  RecordingSink initiator_notes;
  RecordingSink target_notes;
  Socket initiator_control;
  Socket target_control;
  std::unique_ptr<transport::Endpoint> initiator;
  std::unique_ptr<transport::Endpoint> target;
  // With several rails: each side's endpoints, rail by rail (initiator and
  // target above stay empty until something wraps them: support/rail_pair.h).
  std::vector<std::unique_ptr<transport::Endpoint>> initiator_rails;
  std::vector<std::unique_ptr<transport::Endpoint>> target_rails;
};

// Both sides' transports of one kind, as two engines would have them.
struct TransportPair {
  std::unique_ptr<transport::Transport> initiator;
  std::unique_ptr<transport::Transport> target;
};

// The built-in transport `name` for each side, with the test environment's
// settings (TestTransportOptions). Errors: kNotFound when this build lacks
// it; what creating it met.
Result<TransportPair> CreateTransportPair(const std::string& name);

// One side's setup of an endpoint over `pair`'s control connection, as
// ConnectPair makes it: its memory announced, the peer's as remote.
transport::EndpointSetup PairSetup(EndpointPair& pair, bool initiator, uint32_t streams,
                                   std::chrono::milliseconds io_timeout, Deadline deadline);

// Both memories must be filled before the call (the peers exchange their
// tables first). `streams` and `io_timeout` are every endpoint's. Runs the
// target's CreateEndpoint on a thread; returns the first error. With
// `rails` > 1, sets up that many endpoints per side, one after another over
// the one control connection (as the engine does), into initiator_rails
// and target_rails.
Status ConnectPair(transport::Transport& initiator_transport,
                   transport::Transport& target_transport, EndpointPair& pair,
                   uint32_t streams = 1,
                   std::chrono::milliseconds io_timeout = std::chrono::milliseconds(5000),
                   uint32_t rails = 1);

}  // namespace xfer::testing

#endif  // XFER_TESTS_SUPPORT_ENDPOINT_PAIR_H_
