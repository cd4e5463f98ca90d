#include "support/endpoint_pair.h"

#include <sys/socket.h>
#include <unistd.h>

#include <future>

#include "support/test_devices.h"

namespace xfer::testing {

Status ConnectPair(transport::Transport& initiator_transport,
                   transport::Transport& target_transport, EndpointPair& pair,
                   uint32_t streams, std::chrono::milliseconds io_timeout) {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    return IoError("socketpair failed");
  }
  pair.initiator_control = Socket(UniqueFd(fds[0]));
  pair.target_control = Socket(UniqueFd(fds[1]));

  auto make_setup = [&](bool initiator) {
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
    setup.deadline = Deadline::After(std::chrono::seconds(10));
    setup.devices = &TestDevices();
    setup.notifications = initiator ? &pair.initiator_notes : &pair.target_notes;
    return setup;
  };

  auto target_future = std::async(std::launch::async, [&] {
    auto setup = make_setup(false);
    return target_transport.CreateEndpoint(setup);
  });
  auto initiator_setup = make_setup(true);
  auto initiator = initiator_transport.CreateEndpoint(initiator_setup);
  auto target = target_future.get();
  if (!initiator.ok()) return initiator.status();
  if (!target.ok()) return target.status();
  pair.initiator = std::move(initiator.value());
  pair.target = std::move(target.value());
  return Status::Ok();
}

}  // namespace xfer::testing
