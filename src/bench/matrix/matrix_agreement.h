// The part of a matrix run both sides must ask for identically, as the
// perftest-style tests check their flags: the target compares the
// initiator's with its own and refuses a mismatch, naming the flag.
#ifndef XFER_BENCH_MATRIX_MATRIX_AGREEMENT_H_
#define XFER_BENCH_MATRIX_MATRIX_AGREEMENT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "bench/matrix/matrix_config.h"

namespace xfer::matrix {

// Every field is in the form its flag takes, so a mismatch message quotes
// what each side typed (or defaulted to).
struct MatrixAgreement {
  std::vector<std::string> directions;   // names
  std::vector<std::string> transports;   // as asked; empty = the default set
  std::vector<uint64_t> block_sizes;
  uint64_t transfer_size = 0;
  uint32_t batch = 0;
  uint32_t loops = 0;
  uint32_t warmup = 0;
  uint32_t streams = 0;
  std::string memory;
  std::string remote_memory;
  bool verify = false;

  bool operator==(const MatrixAgreement&) const = default;
};

MatrixAgreement AgreementOf(const MatrixConfig& config);

// "" when both describe the same matrix; otherwise the first flag that
// differs: "--block_sizes: target 16K,32K, initiator 64K (both sides must
// ask for the same matrix)".
std::string CompareAgreements(const MatrixAgreement& target, const MatrixAgreement& initiator);

}  // namespace xfer::matrix

#endif  // XFER_BENCH_MATRIX_MATRIX_AGREEMENT_H_
