// Builds two connected endpoints of one transport inside one test process,
// the way two engines would after their handshake.
#ifndef XFER_TESTS_SUPPORT_ENDPOINT_PAIR_H_
#define XFER_TESTS_SUPPORT_ENDPOINT_PAIR_H_

#include <memory>

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
};

// Both memories must be filled before the call (the peers exchange their
// tables first). `setup_a`/`setup_b` customise streams and timeouts. Runs
// the target's CreateEndpoint on a thread; returns the first error.
Status ConnectPair(transport::Transport& initiator_transport,
                   transport::Transport& target_transport, EndpointPair& pair,
                   uint32_t streams = 1,
                   std::chrono::milliseconds io_timeout = std::chrono::milliseconds(5000));

}  // namespace xfer::testing

#endif  // XFER_TESTS_SUPPORT_ENDPOINT_PAIR_H_
