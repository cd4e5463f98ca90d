// Connects the two halves of an shm endpoint with a private Unix stream
// socket, bootstrapped over the engines' control channel.
#ifndef XFER_TRANSPORT_SHM_RENDEZVOUS_H_
#define XFER_TRANSPORT_SHM_RENDEZVOUS_H_

#include "common/socket.h"
#include "transport/transport.h"
#include "xfer/status.h"

namespace xfer::transport::shm {

// Runs on both sides of a connection at the same time; `setup.initiator`
// picks the role. The initiator listens on a fresh random abstract Unix name
// and announces the name plus a random token on `setup.control`; the target
// connects and echoes the token as its first message. The abstract namespace
// has no permissions, so the token is what keeps a third process that
// guesses the name from being handed this process's memory descriptors.
//
// Returns the connected socket, owned by the caller. The control socket is
// left open and idle. Every wait is bounded by `setup.deadline`.
// Errors: kTimeout, kConnectionLost, kProtocolError (malformed announcement,
// wrong token), kIoError.
Result<Socket> Rendezvous(const EndpointSetup& setup);

}  // namespace xfer::transport::shm

#endif  // XFER_TRANSPORT_SHM_RENDEZVOUS_H_
