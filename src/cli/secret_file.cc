#include "cli/secret_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace xfer::cli {
namespace {

constexpr size_t kMaxSecretFileBytes = 4096;
constexpr size_t kMinSecretBytes = 16;  // as EngineOptions::secret

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

Status Refuse(const std::string& path, std::string_view why) {
  return InvalidArgument(fmt::format("--secret-file {}: {}", path, why));
}

}  // namespace

Result<std::string> ReadSecretFile(const std::string& path) {
  // Checked on the descriptor that is read, so that the file cannot be
  // swapped between the check and the read.
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY));
  if (fd.get() < 0) return Refuse(path, std::strerror(errno));
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return Refuse(path, std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return Refuse(path, "not a regular file");
  if ((st.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
    return Refuse(path, fmt::format("group or others may access it (mode {:04o}); "
                                    "`chmod 600 {}` and keep it to yourself",
                                    st.st_mode & 07777, path));
  }
  if (st.st_uid != ::geteuid() && st.st_uid != 0) {
    return Refuse(path, fmt::format("owned by uid {}, not by this user (uid {}) or root",
                                    st.st_uid, ::geteuid()));
  }
  std::string secret(kMaxSecretFileBytes + 1, '\0');
  size_t length = 0;
  while (length < secret.size()) {
    const ssize_t got = ::read(fd.get(), secret.data() + length, secret.size() - length);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return Refuse(path, std::strerror(errno));
    if (got == 0) break;
    length += static_cast<size_t>(got);
  }
  if (length > kMaxSecretFileBytes) {
    return Refuse(path, fmt::format("longer than {} bytes", kMaxSecretFileBytes));
  }
  secret.resize(length);
  if (secret.ends_with("\r\n")) {
    secret.resize(secret.size() - 2);
  } else if (secret.ends_with('\n')) {
    secret.pop_back();
  }
  if (secret.size() < kMinSecretBytes) {
    return Refuse(path, fmt::format("{} bytes of secret; at least {} are needed "
                                    "(e.g. `openssl rand -hex 32 > FILE`)",
                                    secret.size(), kMinSecretBytes));
  }
  return secret;
}

}  // namespace xfer::cli
