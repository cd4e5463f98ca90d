// An open RDMA device with its protection domain, bound to one port: the
// root every verbs resource of a benchmark or a transport endpoint hangs
// from.
#ifndef XFER_VERBS_DEVICE_CONTEXT_H_
#define XFER_VERBS_DEVICE_CONTEXT_H_

#include <cstdint>
#include <string>

#include "verbs/device_catalog.h"
#include "verbs/ib_handles.h"
#include "xfer/status.h"

namespace xfer::verbs {

// Movable, not copyable. Member order is the teardown contract: the PD is
// released before the device context.
class DeviceContext {
 public:
  // Opens `device_name` ("" = the first device libibverbs lists) and checks
  // that `port` exists and is ACTIVE.
  // Errors, each naming the facts a user needs:
  //   kFailedPrecondition: no RDMA device at all (with ExplainNoDevices());
  //     the port is not ACTIVE ("port 1 of rxe0 is PORT_DOWN (physical
  //     state DISABLED)").
  //   kNotFound: no device of that name (listing the ones there are); the
  //     device has no such port.
  //   kInternal: ibv_open_device / ibv_alloc_pd / a query failed (errno).
  static Result<DeviceContext> Open(const std::string& device_name, uint8_t port);

  ibv_context* context() const { return context_.get(); }
  ibv_pd* pd() const { return pd_.get(); }
  const DeviceInfo& info() const { return info_; }
  // The port chosen at Open(); its facts as they were then.
  const PortInfo& port() const { return *info_.FindPort(port_number_); }
  uint8_t port_number() const { return port_number_; }
  const std::string& name() const { return info_.name; }

 private:
  DeviceContext() = default;

  ContextHandle context_;
  ProtectionDomainHandle pd_;
  DeviceInfo info_;
  uint8_t port_number_ = 1;
};

}  // namespace xfer::verbs

#endif  // XFER_VERBS_DEVICE_CONTEXT_H_
