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
  options.device_path = config.device_path;
  // Only what the flags set, by the transports' own tables (the CLI's
  // derivation): a build without a transport has no row for it.
  options.transport_options = config.transport_options;
  return Engine::Create(options);
}

}  // namespace xfer::matrix
