#include "bench/matrix/matrix_agreement.h"

#include <gtest/gtest.h>

namespace xfer::matrix {
namespace {

MatrixConfig Config() {
  MatrixConfig c;
  c.directions = AllDirections();
  c.block_sizes = {16384, 32768};
  return c;
}

TEST(AgreementTest, SameMatrixAgreesWhateverThePerSideFlags) {
  MatrixConfig target = Config();
  MatrixConfig initiator = Config();
  target.verbs.device = "rxe0";
  initiator.verbs.device = "rxe1";
  initiator.timeout = std::chrono::seconds(99);
  initiator.json_path = "x.json";
  EXPECT_EQ(CompareAgreements(AgreementOf(target), AgreementOf(initiator)), "");
}

TEST(AgreementTest, MismatchNamesTheFlagAndBothValues) {
  MatrixConfig target = Config();
  MatrixConfig initiator = Config();
  initiator.block_sizes = {65536};
  EXPECT_EQ(CompareAgreements(AgreementOf(target), AgreementOf(initiator)),
            "--block_sizes: target 16K,32K, initiator 64K (both sides must ask for the same "
            "matrix)");
  initiator = Config();
  initiator.loops = 3;
  EXPECT_NE(CompareAgreements(AgreementOf(target), AgreementOf(initiator)).find("--loops: target 5, "
                                                                                "initiator 3"),
            std::string::npos);
  initiator = Config();
  initiator.transports = {"tcp"};
  EXPECT_NE(CompareAgreements(AgreementOf(target), AgreementOf(initiator))
                .find("--transports: target (default), initiator tcp"),
            std::string::npos);
  initiator = Config();
  initiator.verify = true;
  EXPECT_NE(CompareAgreements(AgreementOf(target), AgreementOf(initiator)).find("--verify"),
            std::string::npos);
  initiator = Config();
  initiator.remote_memory = "hugepage";
  EXPECT_NE(CompareAgreements(AgreementOf(target), AgreementOf(initiator)).find("--remote_memory"),
            std::string::npos);
}

}  // namespace
}  // namespace xfer::matrix
