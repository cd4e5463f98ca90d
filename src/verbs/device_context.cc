#include "verbs/device_context.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace xfer::verbs {
namespace {

std::string Errno(int error) { return std::strerror(error); }

// The device called `name` (or the first) from libibverbs' list; the list
// must stay alive while the pointer is used.
Result<ibv_device*> FindDevice(ibv_device** list, int count, const std::string& name) {
  if (count == 0) {
    return Status(StatusCode::kFailedPrecondition,
                  "no RDMA device: " + ExplainNoDevices());
  }
  if (name.empty()) return list[0];
  std::vector<std::string> names;
  for (int i = 0; i < count; ++i) {
    const char* candidate = ibv_get_device_name(list[i]);
    if (candidate != nullptr && name == candidate) return list[i];
    names.emplace_back(candidate != nullptr ? candidate : "?");
  }
  return Status(StatusCode::kNotFound,
                fmt::format("-d/--ib-dev {}: no such RDMA device (have: {})", name,
                            fmt::join(names, ", ")));
}

Status CheckPort(const DeviceInfo& info, uint8_t port) {
  const PortInfo* found = info.FindPort(port);
  if (found == nullptr) {
    return Status(StatusCode::kNotFound,
                  fmt::format("-i/--ib-port {}: {} has {} port(s)", port, info.name,
                              info.ports.size()));
  }
  if (found->state != IBV_PORT_ACTIVE) {
    return Status(StatusCode::kFailedPrecondition,
                  fmt::format("port {} of {} is {} (physical state {}); it must be "
                              "PORT_ACTIVE to carry traffic",
                              port, info.name, found->StateName(), found->PhysStateName()));
  }
  return Status::Ok();
}

}  // namespace

Result<DeviceContext> DeviceContext::Open(const std::string& device_name, uint8_t port) {
  int count = 0;
  DeviceListHandle list(ibv_get_device_list(&count));
  if (!list) {
    const int error = errno;
    if (error == ENOSYS) {
      return Status(StatusCode::kFailedPrecondition,
                    "no RDMA device: " + ExplainNoDevices());
    }
    return Status(StatusCode::kInternal, "ibv_get_device_list: " + Errno(error));
  }
  auto device = FindDevice(list.get(), count, device_name);
  if (!device.ok()) return device.status();

  DeviceContext opened;
  opened.context_.reset(ibv_open_device(*device));
  if (!opened.context_) {
    return Status(StatusCode::kInternal,
                  fmt::format("ibv_open_device({}): {}", ibv_get_device_name(*device),
                              Errno(errno)));
  }
  auto info = QueryDevice(opened.context_.get());
  if (!info.ok()) return info.status();
  opened.info_ = std::move(*info);
  XFER_RETURN_IF_ERROR(CheckPort(opened.info_, port));
  opened.port_number_ = port;
  opened.pd_.reset(ibv_alloc_pd(opened.context_.get()));
  if (!opened.pd_) {
    return Status(StatusCode::kInternal,
                  fmt::format("ibv_alloc_pd({}): {}", opened.info_.name, Errno(errno)));
  }
  return opened;
}

}  // namespace xfer::verbs
