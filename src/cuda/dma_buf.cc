#include <unistd.h>

#include "cuda/device_runtime.h"

namespace xfer::cuda {

DmaBuf& DmaBuf::operator=(DmaBuf&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = other.fd_;
    offset_ = other.offset_;
    other.fd_ = -1;
  }
  return *this;
}

DmaBuf::~DmaBuf() {
  if (fd_ >= 0) close(fd_);
}

}  // namespace xfer::cuda
