// --secret-file end to end: a loopback run whose sides share the secret
// measures; a client with another secret fails, naming the refusal, and the
// server's log names the refused peer, while the server waits on for a
// client with its secret; a secret file others may read is refused before
// anything starts.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "e2e/process.h"

namespace xfer::testing {
namespace {

using namespace std::chrono_literals;

// A file under the test's temporary directory holding `contents`, `mode`.
std::string SecretFile(const std::string& name, const std::string& contents, mode_t mode) {
  const char* tmp = std::getenv("TMPDIR");
  const std::string path = std::string(tmp ? tmp : "/tmp") + "/xfer-secret-" +
                           std::to_string(::getpid()) + "-" + name;
  std::ofstream(path, std::ios::trunc) << contents;
  ::chmod(path.c_str(), mode);
  return path;
}

TEST(SecretE2e, ALoopbackRunWithASharedSecretMeasures) {
  const std::string secret = SecretFile("shared", "0123456789abcdef0123456789abcdef\n", 0600);
  for (const char* transport : {"tcp", "shm"}) {
    ProcessResult run = RunXfer({"write_bw", "--loopback", "--transport", transport,
                                 "--secret-file", secret, "-s", "65536", "-n", "200"},
                                60s);
    EXPECT_EQ(run.exit_code, 0) << transport << ": " << run.err;
    EXPECT_NE(run.out.find("65536"), std::string::npos) << run.out;
  }
  ::unlink(secret.c_str());
}

TEST(SecretE2e, DifferentSecretsFailBothSidesAndTheServerNamesTheRefusal) {
  const std::string ours = SecretFile("ours", "0123456789abcdef0123456789abcdef", 0600);
  const std::string theirs = SecretFile("theirs", "fedcba9876543210fedcba9876543210", 0400);
  const std::string port = std::to_string(FreePort());
  Process server({"write_bw", "-p", port, "--transport", "tcp", "--secret-file", ours,
                  "--timeout", "3", "--accept_timeout", "6"});
  ProcessResult client = RunXfer({"write_bw", "-p", port, "--transport", "tcp", "--secret-file",
                                  theirs, "--timeout", "3", "127.0.0.1"},
                                 20s);
  ProcessResult served = server.Wait(20s);
  EXPECT_EQ(client.exit_code, 1) << client.err;
  EXPECT_NE(client.err.find("failed authentication"), std::string::npos) << client.err;
  EXPECT_NE(served.exit_code, 0);
  EXPECT_NE(served.err.find("refused a connection from 127.0.0.1"), std::string::npos)
      << served.err;
  ::unlink(ours.c_str());
  ::unlink(theirs.c_str());
}

// Issue 27, defect 3: a server with a secret turns away a client with
// another secret, one with none and one that asks for another run, each
// with a line, and then serves the client that has its secret.
TEST(SecretE2e, RefusedClientsDoNotEndTheServerAndTheRightOneIsServed) {
  const std::string ours = SecretFile("ours3", "0123456789abcdef0123456789abcdef", 0600);
  const std::string theirs = SecretFile("theirs3", "fedcba9876543210fedcba9876543210", 0400);
  const std::string port = std::to_string(FreePort());
  const std::vector<std::string> run = {"write_bw", "-p", port, "--transport", "tcp", "-n", "200",
                                        "--timeout", "3"};
  Process server(With(run, {"--secret-file", ours, "--accept_timeout", "30"}));
  ProcessResult wrong = RunXfer(With(run, {"--secret-file", theirs, "127.0.0.1"}), 20s);
  ProcessResult none = RunXfer(With(run, {"127.0.0.1"}), 20s);
  ProcessResult other_run =
      RunXfer(With(run, {"--secret-file", ours, "-s", "1024", "127.0.0.1"}), 20s);
  ProcessResult right = RunXfer(With(run, {"--secret-file", ours, "127.0.0.1"}), 30s);
  ProcessResult served = server.Wait(30s);
  EXPECT_NE(wrong.exit_code, 0) << wrong.err;
  EXPECT_NE(none.exit_code, 0) << none.err;
  EXPECT_NE(other_run.exit_code, 0) << other_run.err;
  EXPECT_EQ(right.exit_code, 0) << right.err;
  EXPECT_EQ(served.exit_code, 0) << served.err;
  size_t turned_away = 0;
  for (size_t at = served.err.find("turned away the client"); at != std::string::npos;
       at = served.err.find("turned away the client", at + 1)) {
    ++turned_away;
  }
  EXPECT_EQ(turned_away, 3u) << served.err;
  EXPECT_NE(served.err.find("-s/--size"), std::string::npos) << served.err;
  EXPECT_NE(served.out.find("200"), std::string::npos) << served.out;  // the measured row
  ::unlink(ours.c_str());
  ::unlink(theirs.c_str());
}

TEST(SecretE2e, ASecretFileOthersMayReadIsRefusedBeforeTheRun) {
  const std::string loose = SecretFile("loose", "0123456789abcdef0123456789abcdef", 0644);
  ProcessResult run =
      RunXfer({"write_bw", "--loopback", "--transport", "tcp", "--secret-file", loose}, 20s);
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_NE(run.err.find("chmod 600"), std::string::npos) << run.err;
  EXPECT_EQ(run.out.find("BW average"), std::string::npos) << run.out;

  ProcessResult matrix = RunXfer({"matrix", "--loopback", "--secret-file", loose}, 20s);
  EXPECT_EQ(matrix.exit_code, 2) << matrix.err;
  EXPECT_NE(matrix.err.find("mode 0644"), std::string::npos) << matrix.err;
  ::unlink(loose.c_str());
}

TEST(SecretE2e, AMatrixWithASharedSecretRuns) {
  const std::string secret = SecretFile("matrix", "0123456789abcdef0123456789abcdef", 0600);
  ProcessResult run = RunXfer({"matrix", "--loopback", "--transports", "tcp", "--directions",
                               "H2rH", "--block_sizes", "64K", "--transfer_size", "1M",
                               "--loops", "2", "--secret-file", secret},
                              60s);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("64K"), std::string::npos) << run.out;
  ::unlink(secret.c_str());
}

// Issue 27, defect 3, for the matrix: a target with a secret turns away an
// initiator with another secret and then serves one with its own.
TEST(SecretE2e, AMatrixTargetTurnsAWrongInitiatorAwayAndServesTheRightOne) {
  const std::string ours = SecretFile("matrix-ours", "0123456789abcdef0123456789abcdef", 0600);
  const std::string theirs = SecretFile("matrix-theirs", "fedcba9876543210fedcba9876543210", 0600);
  const std::string port = std::to_string(FreePort());
  const std::vector<std::string> matrix = {"matrix", "-p", port, "--transports", "tcp",
                                           "--directions", "H2rH", "--block_sizes", "64K",
                                           "--transfer_size", "1M", "--loops", "2",
                                           "--timeout", "3", "--quiet"};
  Process target(With(matrix, {"--secret-file", ours, "--accept_timeout", "30"}));
  ProcessResult wrong = RunXfer(With(matrix, {"--secret-file", theirs, "127.0.0.1"}), 30s);
  ProcessResult right = RunXfer(With(matrix, {"--secret-file", ours, "127.0.0.1"}), 30s);
  ProcessResult served = target.Wait(30s);
  EXPECT_NE(wrong.exit_code, 0) << wrong.err;
  EXPECT_EQ(right.exit_code, 0) << right.err;
  EXPECT_EQ(served.exit_code, 0) << served.err;
  EXPECT_NE(served.err.find("turned away the initiator from 127.0.0.1"), std::string::npos)
      << served.err;
  ::unlink(ours.c_str());
  ::unlink(theirs.c_str());
}

}  // namespace
}  // namespace xfer::testing
