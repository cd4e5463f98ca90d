#include <string>

#include "xfer/engine.h"

namespace xfer {

const char* DevicePathName(DevicePath path) {
  switch (path) {
    case DevicePath::kAuto:
      return "auto";
    case DevicePath::kDirect:
      return "direct";
    case DevicePath::kStaged:
      return "staged";
  }
  return "unknown";
}

Result<DevicePath> ParseDevicePath(std::string_view text) {
  for (DevicePath path : {DevicePath::kAuto, DevicePath::kDirect, DevicePath::kStaged}) {
    if (text == DevicePathName(path)) return path;
  }
  return InvalidArgument("device path must be auto, direct or staged, got '" + std::string(text) +
                         "'");
}

}  // namespace xfer
