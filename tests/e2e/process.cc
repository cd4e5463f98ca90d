#include "e2e/process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <thread>

namespace xfer::testing {
namespace {

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string TempPath(const char* tag) {
  std::string path = std::string("/tmp/xfer-e2e-") + tag + "-XXXXXX";
  int fd = mkstemp(path.data());
  if (fd < 0) throw std::runtime_error("mkstemp");
  close(fd);
  return path;
}

}  // namespace

Process::Process(const std::vector<std::string>& args) : Process(XFER_BINARY, args) {}

Process::Process(const std::string& program, const std::vector<std::string>& args)
    : out_path_(TempPath("out")), err_path_(TempPath("err")) {
  std::vector<std::string> argv_storage = {program};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fork");
  if (pid_ == 0) {
    setpgid(0, 0);
    int out = open(out_path_.c_str(), O_WRONLY | O_TRUNC);
    int err = open(err_path_.c_str(), O_WRONLY | O_TRUNC);
    dup2(out, 1);
    dup2(err, 2);
    int null = open("/dev/null", O_RDONLY);
    dup2(null, 0);
    std::vector<char*> argv;
    for (auto& a : argv_storage) argv.push_back(a.data());
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    _exit(127);
  }
}

Process::~Process() {
  Kill();
  unlink(out_path_.c_str());
  unlink(err_path_.c_str());
}

void Process::Kill() {
  if (pid_ <= 0) return;
  kill(-pid_, SIGKILL);  // the group; fails harmlessly if the child has not made it yet
  kill(pid_, SIGKILL);
  int status;
  waitpid(pid_, &status, 0);
  pid_ = -1;
}

ProcessResult Process::Wait(std::chrono::milliseconds timeout) {
  ProcessResult result;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  while (pid_ > 0) {
    pid_t done = waitpid(pid_, &status, WNOHANG);
    if (done == pid_) {
      pid_ = -1;
      result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      break;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      result.timed_out = true;
      Kill();
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  result.out = Slurp(out_path_);
  result.err = Slurp(err_path_);
  return result;
}

std::string Process::OutputSoFar() const { return Slurp(out_path_); }

ProcessResult RunXfer(const std::vector<std::string>& args, std::chrono::milliseconds timeout) {
  Process process(args);
  return process.Wait(timeout);
}

ProcessResult RunProgram(const std::string& program, const std::vector<std::string>& args,
                         std::chrono::milliseconds timeout) {
  Process process(program, args);
  return process.Wait(timeout);
}

int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

bool HostHasRdmaDevices() {
  std::error_code error;
  for (std::filesystem::directory_iterator it("/dev/infiniband", error), end;
       !error && it != end; it.increment(error)) {
    if (it->path().filename().string().starts_with("uverbs")) return true;
  }
  return false;
}

bool SendStray(int port, const std::string& bytes) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool connected = false;
  for (int i = 0; i < 200 && !connected; ++i) {
    connected = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    if (!connected) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const bool sent =
      connected && ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL) ==
                       static_cast<ssize_t>(bytes.size());
  ::close(fd);
  return sent;
}

}  // namespace xfer::testing
