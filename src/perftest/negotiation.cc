#include "perftest/negotiation.h"

#include <fmt/format.h>

#include <cstring>
#include <vector>

namespace xfer::perftest {
namespace {

// Offsets of the x86_64 struct perftest_parameters_negotiate (natural
// alignment; 4 bytes of padding after report_fmt).
constexpr size_t kTestMethod = 0, kConnectionType = 4, kVerb = 8, kTst = 12,
                 kAtomicType = 16, kTestType = 20, kReportFmt = 24, kSize = 32, kIters = 40,
                 kAesXts = 48, kNumOfQps = 52, kDuration = 56, kUseRdmaCm = 60,
                 kWriteWithImm = 64, kNoEnhancedReorder = 68, kSigOffload = 72,
                 kDataValidation = 76, kAttr = 80, kMlx5dvMask = 312;
static_assert(sizeof(ibv_device_attr) == kMlx5dvMask - kAttr,
              "ibv_device_attr must be perftest's 232 bytes");

void PutBig(std::span<uint8_t> out, size_t offset, uint64_t value, size_t width) {
  for (size_t i = 0; i < width; ++i) {
    out[offset + width - 1 - i] = static_cast<uint8_t>(value >> (8 * i));
  }
}

uint64_t GetBig(std::span<const uint8_t> in, size_t offset, size_t width) {
  uint64_t value = 0;
  for (size_t i = 0; i < width; ++i) value = (value << 8) | in[offset + i];
  return value;
}

void PutInt(std::span<uint8_t> out, size_t offset, int32_t value) {
  PutBig(out, offset, static_cast<uint32_t>(value), 4);
}

int32_t GetInt(std::span<const uint8_t> in, size_t offset) {
  return static_cast<int32_t>(static_cast<uint32_t>(GetBig(in, offset, 4)));
}

}  // namespace

std::array<uint8_t, kNegotiationSize> EncodeNegotiation(const NegotiatedParams& params) {
  std::array<uint8_t, kNegotiationSize> out{};
  PutInt(out, kTestMethod, params.test_method);
  PutInt(out, kConnectionType, params.connection_type);
  PutInt(out, kVerb, params.verb);
  PutInt(out, kTst, params.tst);
  PutInt(out, kAtomicType, params.atomic_type);
  PutInt(out, kTestType, params.test_type);
  PutInt(out, kReportFmt, params.report_fmt);
  PutBig(out, kSize, params.size, 8);
  PutBig(out, kIters, params.iters, 8);
  PutInt(out, kAesXts, 0);
  PutInt(out, kNumOfQps, params.num_of_qps);
  PutInt(out, kDuration, params.duration);
  PutInt(out, kUseRdmaCm, params.use_rdma_cm);
  PutInt(out, kWriteWithImm, 0);
  PutInt(out, kNoEnhancedReorder, 0);
  PutInt(out, kSigOffload, 0);
  PutInt(out, kDataValidation, 0);
  std::memcpy(out.data() + kAttr, &params.device_attr, sizeof(params.device_attr));
  PutBig(out, kMlx5dvMask, 0, 8);  // only filled on Mellanox devices
  return out;
}

Result<NegotiatedParams> DecodeNegotiation(std::span<const uint8_t> bytes) {
  if (bytes.size() != kNegotiationSize) {
    return ProtocolError(fmt::format("perftest negotiation message: {} bytes, expected {}",
                                     bytes.size(), kNegotiationSize));
  }
  NegotiatedParams params;
  params.test_method = GetInt(bytes, kTestMethod);
  params.connection_type = GetInt(bytes, kConnectionType);
  params.verb = GetInt(bytes, kVerb);
  params.tst = GetInt(bytes, kTst);
  params.atomic_type = GetInt(bytes, kAtomicType);
  params.test_type = GetInt(bytes, kTestType);
  params.report_fmt = GetInt(bytes, kReportFmt);
  params.size = GetBig(bytes, kSize, 8);
  params.iters = GetBig(bytes, kIters, 8);
  params.num_of_qps = GetInt(bytes, kNumOfQps);
  params.duration = GetInt(bytes, kDuration);
  params.use_rdma_cm = GetInt(bytes, kUseRdmaCm);
  std::memcpy(&params.device_attr, bytes.data() + kAttr, sizeof(params.device_attr));
  return params;
}

Status CompareNegotiation(const NegotiatedParams& local, const NegotiatedParams& remote) {
  std::vector<std::string> mismatches;
  auto check = [&mismatches](std::string_view name, std::string_view flag, uint64_t mine,
                             uint64_t theirs) {
    if (mine != theirs) {
      mismatches.push_back(
          fmt::format("{} mismatch ({}): local={}, remote={}", name, flag, mine, theirs));
    }
  };
  auto as_u = [](int32_t v) { return static_cast<uint64_t>(static_cast<uint32_t>(v)); };
  check("test_method", "-a", as_u(local.test_method), as_u(remote.test_method));
  check("connection_type", "-c", as_u(local.connection_type), as_u(remote.connection_type));
  check("verb", "the test", as_u(local.verb), as_u(remote.verb));
  check("tst", "bw vs lat test", as_u(local.tst), as_u(remote.tst));
  check("atomicType", "-A", as_u(local.atomic_type), as_u(remote.atomic_type));
  check("test_type", "-D", as_u(local.test_type), as_u(remote.test_type));
  check("report_fmt", "--report_gbits", as_u(local.report_fmt), as_u(remote.report_fmt));
  check("size", "-s", local.size, remote.size);
  check("iters", "-n", local.iters, remote.iters);
  check("num_of_qps", "-q", as_u(local.num_of_qps), as_u(remote.num_of_qps));
  check("duration", "-D", as_u(local.duration), as_u(remote.duration));
  check("use_rdma_cm", "-R/-z", as_u(local.use_rdma_cm), as_u(remote.use_rdma_cm));
  if (mismatches.empty()) return Status::Ok();
  return InvalidArgument(fmt::format("the peer runs a different test: {}",
                                     fmt::join(mismatches, "; ")));
}

}  // namespace xfer::perftest
