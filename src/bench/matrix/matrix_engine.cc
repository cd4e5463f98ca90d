#include "bench/matrix/matrix_engine.h"

#include <utility>

namespace xfer::matrix {

Result<std::unique_ptr<Engine>> CreateMatrixEngine(const MatrixConfig& config, std::string name,
                                                   std::string listen_address) {
  EngineOptions options;
  options.name = std::move(name);
  options.listen_address = std::move(listen_address);
  options.connect_timeout = config.timeout;
  options.io_timeout = config.timeout;
  options.verbs.device = config.verbs.device;
  options.verbs.port = config.verbs.port;
  options.verbs.gid_index = config.verbs.gid_index;
  return Engine::Create(options);
}

}  // namespace xfer::matrix
