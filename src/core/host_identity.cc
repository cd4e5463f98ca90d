#include "core/host_identity.h"

#include <sys/stat.h>

#include <fstream>

namespace xfer::core {

HostIdentity LocalHostIdentity() {
  HostIdentity id;
  std::ifstream boot("/proc/sys/kernel/random/boot_id");
  std::getline(boot, id.boot_id);
  struct stat st {};
  if (stat("/proc/self/ns/net", &st) == 0) id.net_namespace = st.st_ino;
  return id;
}

}  // namespace xfer::core
