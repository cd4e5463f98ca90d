// The engine each side of a matrix runs, configured alike from the matrix
// config: --timeout bounds connecting and every transport step, and -d/-i/-x
// choose the verbs device.
#ifndef XFER_BENCH_MATRIX_MATRIX_ENGINE_H_
#define XFER_BENCH_MATRIX_MATRIX_ENGINE_H_

#include <memory>
#include <string>

#include "bench/matrix/matrix_config.h"
#include "xfer/engine.h"

namespace xfer::matrix {

// Engine::Create with every enabled transport. `listen_address` "" accepts
// no peers (the initiator). Errors: Engine::Create's.
Result<std::unique_ptr<Engine>> CreateMatrixEngine(const MatrixConfig& config, std::string name,
                                                   std::string listen_address);

}  // namespace xfer::matrix

#endif  // XFER_BENCH_MATRIX_MATRIX_ENGINE_H_
