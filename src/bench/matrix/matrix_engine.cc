#include "bench/matrix/matrix_engine.h"

#include <string>
#include <utility>

namespace xfer::matrix {

Result<std::unique_ptr<Engine>> CreateMatrixEngine(const MatrixConfig& config, std::string name,
                                                   std::string listen_address) {
  EngineOptions options;
  options.name = std::move(name);
  options.listen_address = std::move(listen_address);
  options.connect_timeout = config.timeout;
  options.io_timeout = config.timeout;
  options.secret = config.secret;
  // Only what the flags changed: a build without verbs then takes the
  // defaults, and refuses a verbs flag by name.
  TransportOptions verbs;
  if (!config.verbs.device.empty()) verbs["device"] = config.verbs.device;
  if (config.verbs.port != 1) verbs["port"] = std::to_string(config.verbs.port);
  if (config.verbs.gid_index) verbs["gid_index"] = std::to_string(*config.verbs.gid_index);
  if (!verbs.empty()) options.transport_options["verbs"] = std::move(verbs);
  return Engine::Create(options);
}

}  // namespace xfer::matrix
