#include "cuda/device_choice.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "xfer/device.h"

namespace xfer::cuda {
namespace {

std::string Lower(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower;
}

}  // namespace

bool SameBusId(std::string_view bus_id, std::string_view typed) {
  const std::string full = Lower(bus_id);
  const std::string want = Lower(typed);
  return full == want || (full.size() > want.size() && full.ends_with(":" + want) &&
                          std::count(want.begin(), want.end(), ':') == 1);
}

Result<int> ChooseDevice(std::optional<int> ordinal, std::string_view bus_id,
                         std::string_view flag) {
  auto devices = ListCudaDevices();
  if (!devices.ok()) return devices.status().WithContext(std::string(flag));
  for (const CudaDevice& device : *devices) {
    if (ordinal ? device.ordinal == *ordinal : SameBusId(device.pci_bus_id, bus_id)) {
      return device.ordinal;
    }
  }
  std::vector<std::string> seen;
  for (const CudaDevice& device : *devices) {
    seen.push_back(fmt::format("{} {} ({})", device.ordinal, device.name, device.pci_bus_id));
  }
  return InvalidArgument(fmt::format("{} {}: no such CUDA device; this process sees {}", flag,
                                     ordinal ? std::to_string(*ordinal) : std::string(bus_id),
                                     seen.empty() ? std::string("none") : fmt::format("{}", fmt::join(seen, ", "))));
}

}  // namespace xfer::cuda
