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
  TransportOptions& verbs = options.transport_options["verbs"];
  if (!config.verbs.device.empty()) verbs["device"] = config.verbs.device;
  verbs["port"] = std::to_string(config.verbs.port);
  if (config.verbs.gid_index) verbs["gid_index"] = std::to_string(*config.verbs.gid_index);
  return Engine::Create(options);
}

}  // namespace xfer::matrix
