#include "bench/matrix/matrix_agreement.h"

#include <fmt/format.h>

#include "bench/matrix/block_size.h"

namespace xfer::matrix {
namespace {

std::string Joined(const std::vector<std::string>& names, const char* empty) {
  return names.empty() ? std::string(empty) : fmt::format("{}", fmt::join(names, ","));
}

std::string Blocks(const std::vector<uint64_t>& sizes) {
  std::vector<std::string> labels;
  for (uint64_t size : sizes) labels.push_back(BlockLabel(size));
  return Joined(labels, "(none)");
}

std::string Differ(const char* flag, const std::string& target, const std::string& initiator) {
  return fmt::format("{}: target {}, initiator {} (both sides must ask for the same matrix)", flag,
                     target, initiator);
}

}  // namespace

MatrixAgreement AgreementOf(const MatrixConfig& config) {
  MatrixAgreement a;
  for (const Direction& direction : config.directions) a.directions.push_back(direction.Name());
  a.transports = config.transports;
  a.block_sizes = config.block_sizes;
  a.transfer_size = config.transfer_size;
  a.batch = config.batch;
  a.loops = config.loops;
  a.warmup = config.warmup;
  a.streams = config.streams;
  a.memory = config.memory;
  a.remote_memory = config.remote_memory;
  a.verify = config.verify;
  return a;
}

std::string CompareAgreements(const MatrixAgreement& t, const MatrixAgreement& i) {
  if (t.directions != i.directions) {
    return Differ("--directions", Joined(t.directions, "(none)"), Joined(i.directions, "(none)"));
  }
  if (t.transports != i.transports) {
    return Differ("--transports", Joined(t.transports, "(default)"),
                  Joined(i.transports, "(default)"));
  }
  if (t.block_sizes != i.block_sizes) {
    return Differ("--block_sizes", Blocks(t.block_sizes), Blocks(i.block_sizes));
  }
  auto number = [](uint64_t v) { return std::to_string(v); };
  if (t.transfer_size != i.transfer_size) {
    return Differ("--transfer_size", number(t.transfer_size), number(i.transfer_size));
  }
  if (t.batch != i.batch) return Differ("--batch", number(t.batch), number(i.batch));
  if (t.loops != i.loops) return Differ("--loops", number(t.loops), number(i.loops));
  if (t.warmup != i.warmup) return Differ("--warmup", number(t.warmup), number(i.warmup));
  if (t.streams != i.streams) return Differ("--streams", number(t.streams), number(i.streams));
  if (t.memory != i.memory) return Differ("--memory", t.memory, i.memory);
  if (t.remote_memory != i.remote_memory) {
    return Differ("--remote_memory", t.remote_memory, i.remote_memory);
  }
  if (t.verify != i.verify) {
    return Differ("--verify", t.verify ? "on" : "off", i.verify ? "on" : "off");
  }
  return "";
}

}  // namespace xfer::matrix
