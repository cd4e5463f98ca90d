#include "support/endpoint_pair.h"

#include <sys/socket.h>
#include <unistd.h>

#include <future>
#include <string>
#include <utility>

#include "support/test_devices.h"
#include "support/verbs_test_env.h"
#include "transport/transport_registry.h"

namespace xfer::testing {

Result<TransportPair> CreateTransportPair(const std::string& name) {
  transport::TransportRegistry registry;
  transport::RegisterBuiltinTransports(registry);
  const transport::TransportEntry* entry = registry.Find(name);
  if (entry == nullptr) return NotFound(name + " is not built in");
  auto initiator = entry->create(TestTransportOptions(name, true));
  if (!initiator.ok()) return initiator.status();
  auto target = entry->create(TestTransportOptions(name, false));
  if (!target.ok()) return target.status();
  return TransportPair{std::move(initiator.value()), std::move(target.value())};
}

transport::EndpointSetup PairSetup(EndpointPair& pair, bool initiator, uint32_t streams,
                                   std::chrono::milliseconds io_timeout, Deadline deadline) {
  transport::EndpointSetup setup;
  setup.initiator = initiator;
  setup.streams = streams;
  setup.control = initiator ? &pair.initiator_control : &pair.target_control;
  setup.peer_host = "127.0.0.1";
  setup.peer_pid = getpid();
  setup.local = initiator ? &pair.initiator_memory : &pair.target_memory;
  setup.announced = setup.local->Snapshot();
  setup.remote = transport::RemoteMemory(initiator ? pair.target_memory.AsRemote()
                                                   : pair.initiator_memory.AsRemote());
  setup.io_timeout = io_timeout;
  setup.deadline = deadline;
  setup.devices = &TestDevices();
  setup.notifications = initiator ? &pair.initiator_notes : &pair.target_notes;
  return setup;
}

Status ConnectPair(transport::Transport& initiator_transport,
                   transport::Transport& target_transport, EndpointPair& pair,
                   uint32_t streams, std::chrono::milliseconds io_timeout, uint32_t rails) {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    return IoError("socketpair failed");
  }
  pair.initiator_control = Socket(UniqueFd(fds[0]));
  pair.target_control = Socket(UniqueFd(fds[1]));

  auto make_setup = [&](bool initiator) {
    return PairSetup(pair, initiator, streams, io_timeout,
                     Deadline::After(std::chrono::seconds(10)));
  };

  using Endpoints = std::vector<std::unique_ptr<transport::Endpoint>>;
  auto target_future = std::async(std::launch::async, [&]() -> Result<Endpoints> {
    Endpoints endpoints;
    for (uint32_t i = 0; i < rails; ++i) {
      auto setup = make_setup(false);
      auto endpoint = target_transport.CreateEndpoint(setup);
      if (!endpoint.ok()) return endpoint.status();
      endpoints.push_back(std::move(endpoint.value()));
    }
    return endpoints;
  });
  Endpoints initiators;
  Status initiator_status;
  for (uint32_t i = 0; i < rails && initiator_status.ok(); ++i) {
    auto setup = make_setup(true);
    auto endpoint = initiator_transport.CreateEndpoint(setup);
    if (endpoint.ok()) {
      initiators.push_back(std::move(endpoint.value()));
    } else {
      initiator_status = endpoint.status();
      // The target waits on the control connection for this side's part.
      pair.initiator_control.Shutdown();
    }
  }
  auto targets = target_future.get();
  if (!initiator_status.ok()) return initiator_status;
  if (!targets.ok()) return targets.status();
  if (rails == 1) {
    pair.initiator = std::move(initiators[0]);
    pair.target = std::move(targets.value()[0]);
  } else {
    pair.initiator_rails = std::move(initiators);
    pair.target_rails = std::move(targets.value());
  }
  return Status::Ok();
}

}  // namespace xfer::testing
