// Which GPU a user named: by ordinal (--use_cuda 0) or by PCIe address
// (--use_cuda_bus_id 0000:19:00.0), as perftest's flags name them.
#ifndef XFER_CUDA_DEVICE_CHOICE_H_
#define XFER_CUDA_DEVICE_CHOICE_H_

#include <optional>
#include <string_view>

#include "xfer/status.h"

namespace xfer::cuda {

// Whether `typed` names the PCIe address `bus_id` ("0000:19:00.0"), with
// or without its domain, in either case. Pure.
bool SameBusId(std::string_view bus_id, std::string_view typed);

// The ordinal of the device `ordinal` names, or else the one at `bus_id`,
// among those this process sees (xfer::ListCudaDevices). `flag` names the
// option in errors. Errors: ListCudaDevices' (no driver, no device);
// kInvalidArgument for no such device, listing those there are.
Result<int> ChooseDevice(std::optional<int> ordinal, std::string_view bus_id,
                         std::string_view flag);

}  // namespace xfer::cuda

#endif  // XFER_CUDA_DEVICE_CHOICE_H_
