#include "cli/secret_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>

namespace xfer::cli {
namespace {

class SecretFileTest : public ::testing::Test {
 protected:
  std::string Write(const std::string& contents, mode_t mode) {
    const char* tmp = std::getenv("TMPDIR");
    path_ = std::string(tmp ? tmp : "/tmp") + "/xfer-secret-file-test-" + std::to_string(::getpid());
    std::ofstream(path_, std::ios::trunc | std::ios::binary) << contents;
    ::chmod(path_.c_str(), mode);
    return path_;
  }
  void TearDown() override {
    if (!path_.empty()) ::unlink(path_.c_str());
  }

 private:
  std::string path_;
};

TEST_F(SecretFileTest, ReadsTheBytesLessOneTrailingNewline) {
  auto secret = ReadSecretFile(Write("0123456789abcdef 0123\n", 0600));
  ASSERT_TRUE(secret.ok()) << secret.status().ToString();
  EXPECT_EQ(*secret, "0123456789abcdef 0123");
  auto crlf = ReadSecretFile(Write("0123456789abcdef\r\n", 0400));
  ASSERT_TRUE(crlf.ok()) << crlf.status().ToString();
  EXPECT_EQ(*crlf, "0123456789abcdef");
  auto binary = ReadSecretFile(Write(std::string("\0\1\2\3\4\5\6\7\0\1\2\3\4\5\6\7", 16), 0600));
  ASSERT_TRUE(binary.ok());
  EXPECT_EQ(binary->size(), 16u);
}

TEST_F(SecretFileTest, RefusesAFileOthersMayAccess) {
  for (mode_t mode : {0640u, 0604u, 0660u, 0610u}) {
    auto secret = ReadSecretFile(Write("0123456789abcdef0123", mode));
    ASSERT_FALSE(secret.ok()) << std::oct << mode;
    EXPECT_EQ(secret.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(secret.status().message().find("chmod 600"), std::string::npos)
        << secret.status().ToString();
  }
}

TEST_F(SecretFileTest, RefusesShortEmptyHugeMissingAndNonRegularFiles) {
  EXPECT_NE(ReadSecretFile(Write("short\n", 0600)).status().message().find("at least 16"),
            std::string::npos);
  EXPECT_FALSE(ReadSecretFile(Write("", 0600)).ok());
  EXPECT_NE(ReadSecretFile(Write(std::string(5000, 'x'), 0600)).status().message().find("longer"),
            std::string::npos);
  auto missing = ReadSecretFile("/nonexistent/secret");
  EXPECT_NE(missing.status().message().find("/nonexistent/secret"), std::string::npos);
  EXPECT_NE(ReadSecretFile("/tmp").status().message().find("not a regular file"),
            std::string::npos);
}

}  // namespace
}  // namespace xfer::cli
