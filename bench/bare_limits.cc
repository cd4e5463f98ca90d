// The physical limits of small-message work on this host, measured without
// xfer: what bench/run_baselines.sh holds xfer's 8-byte figures against.
//
//   bare_limits ring N         two processes; one stores 8 bytes and a
//                              sequence number into a ring slot in shared
//                              memory, the other consumes it. Prints the
//                              rate in messages/s.
//   bare_limits pingpong N     two processes bounce a counter over one
//                              shared cache line. Prints the median one-way
//                              latency in ns (round trip / 2).
//   bare_limits tcp-pingpong N two processes bounce one 8-byte message over
//                              loopback TCP (TCP_NODELAY, receives
//                              busy-polled). Prints the median one-way
//                              latency in ns.
//
// Each child is a fork of this process; both sides spin, so the two need
// two cores. Exit status 1 and a message on stderr on any failure.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void Die(const char* what) {
  std::fprintf(stderr, "bare_limits: %s: %s\n", what, std::strerror(errno));
  std::exit(1);
}

void CpuRelax() {
#if defined(__x86_64__)
  __builtin_ia32_pause();
#endif
}

template <typename T>
T* MapShared() {
  void* memory = mmap(nullptr, sizeof(T), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) Die("mmap");
  return new (memory) T();
}

// Runs `child` in a forked process, `parent` here, and reaps the child.
template <typename Child, typename Parent>
void RunPair(Child child, Parent parent) {
  const pid_t pid = fork();
  if (pid < 0) Die("fork");
  if (pid == 0) {
    child();
    _exit(0);
  }
  parent();
  int status = 0;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "bare_limits: the child process failed\n");
    std::exit(1);
  }
}

uint64_t Median(std::vector<uint64_t> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

// --- ring: store 8 bytes + sequence, consume on the other core -------------

constexpr size_t kRingSlots = 4096;  // a power of two
struct Slot {
  std::atomic<uint64_t> sequence{0};  // 1-based; the slot is full when it matches
  uint64_t payload = 0;
};
struct Ring {
  alignas(64) Slot slots[kRingSlots];
  alignas(64) std::atomic<uint64_t> consumed{0};  // published by the consumer
  alignas(64) std::atomic<uint64_t> checksum{0};
};

double RingRate(uint64_t count) {
  Ring* ring = MapShared<Ring>();
  Clock::time_point start;
  Clock::time_point end;
  RunPair(
      [&] {  // consumer
        uint64_t sum = 0;
        for (uint64_t seq = 1; seq <= count; ++seq) {
          Slot& slot = ring->slots[(seq - 1) & (kRingSlots - 1)];
          while (slot.sequence.load(std::memory_order_acquire) != seq) CpuRelax();
          sum += slot.payload;
          // Published every quarter ring, as a real receiver batches
          // its credit.
          if ((seq & (kRingSlots / 4 - 1)) == 0) ring->consumed.store(seq, std::memory_order_release);
        }
        ring->consumed.store(count, std::memory_order_release);
        ring->checksum.store(sum, std::memory_order_release);
      },
      [&] {  // producer
        start = Clock::now();
        uint64_t credit = kRingSlots;
        for (uint64_t seq = 1; seq <= count; ++seq) {
          while (seq > credit) {
            credit = ring->consumed.load(std::memory_order_acquire) + kRingSlots;
            if (seq > credit) CpuRelax();
          }
          Slot& slot = ring->slots[(seq - 1) & (kRingSlots - 1)];
          slot.payload = seq;
          slot.sequence.store(seq, std::memory_order_release);
        }
        while (ring->consumed.load(std::memory_order_acquire) != count) CpuRelax();
        end = Clock::now();
      });
  if (ring->checksum.load() != count * (count + 1) / 2) {
    std::fprintf(stderr, "bare_limits: the ring lost or corrupted messages\n");
    std::exit(1);
  }
  munmap(ring, sizeof(Ring));
  return static_cast<double>(count) / std::chrono::duration<double>(end - start).count();
}

// --- pingpong over one shared cache line -----------------------------------

struct Line {
  alignas(64) std::atomic<uint64_t> value{0};
};

uint64_t CacheLinePingPong(uint64_t count) {
  Line* line = MapShared<Line>();
  std::vector<uint64_t> round_trips;
  round_trips.reserve(count);
  RunPair(
      [&] {  // even -> odd
        for (uint64_t i = 0; i < count; ++i) {
          while (line->value.load(std::memory_order_acquire) != 2 * i + 1) CpuRelax();
          line->value.store(2 * i + 2, std::memory_order_release);
        }
      },
      [&] {
        for (uint64_t i = 0; i < count; ++i) {
          const auto start = Clock::now();
          line->value.store(2 * i + 1, std::memory_order_release);
          while (line->value.load(std::memory_order_acquire) != 2 * i + 2) CpuRelax();
          round_trips.push_back(static_cast<uint64_t>(
              std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count()));
        }
      });
  munmap(line, sizeof(Line));
  return Median(round_trips) / 2;
}

// --- pingpong over loopback TCP --------------------------------------------

void SetNoDelay(int fd) {
  int one = 1;
  if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) != 0) Die("TCP_NODELAY");
}

void SendAll(int fd, const char* data, size_t length) {
  while (length > 0) {
    const ssize_t n = send(fd, data, length, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) Die("send");
    data += n;
    length -= static_cast<size_t>(n);
  }
}

// Busy-polls: the receiver never sleeps in the kernel.
void ReceiveAll(int fd, char* data, size_t length) {
  while (length > 0) {
    const ssize_t n = recv(fd, data, length, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (n <= 0) Die("recv");
    data += n;
    length -= static_cast<size_t>(n);
  }
}

uint64_t TcpPingPong(uint64_t count) {
  const int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listener < 0) Die("socket");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t address_length = sizeof(address);
  if (bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) Die("bind");
  if (listen(listener, 1) != 0) Die("listen");
  if (getsockname(listener, reinterpret_cast<sockaddr*>(&address), &address_length) != 0) {
    Die("getsockname");
  }
  std::vector<uint64_t> round_trips;
  round_trips.reserve(count);
  RunPair(
      [&] {  // echo
        const int fd = accept(listener, nullptr, nullptr);
        if (fd < 0) Die("accept");
        SetNoDelay(fd);
        char message[8];
        for (uint64_t i = 0; i < count; ++i) {
          ReceiveAll(fd, message, sizeof(message));
          SendAll(fd, message, sizeof(message));
        }
        close(fd);
      },
      [&] {
        const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0) Die("socket");
        if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) Die("connect");
        SetNoDelay(fd);
        char message[8];
        for (uint64_t i = 0; i < count; ++i) {
          std::memcpy(message, &i, sizeof(i));
          const auto start = Clock::now();
          SendAll(fd, message, sizeof(message));
          ReceiveAll(fd, message, sizeof(message));
          round_trips.push_back(static_cast<uint64_t>(
              std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count()));
          uint64_t echoed = 0;
          std::memcpy(&echoed, message, sizeof(echoed));
          if (echoed != i) {
            std::fprintf(stderr, "bare_limits: the echo returned %llu, not %llu\n",
                         static_cast<unsigned long long>(echoed), static_cast<unsigned long long>(i));
            std::exit(1);
          }
        }
        close(fd);
      });
  close(listener);
  return Median(round_trips) / 2;
}

int Usage() {
  std::fprintf(stderr, "usage: bare_limits ring|pingpong|tcp-pingpong COUNT\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) return Usage();
  char* end = nullptr;
  errno = 0;
  const unsigned long long count = std::strtoull(argv[2], &end, 10);
  if (errno != 0 || end == argv[2] || *end != '\0' || count == 0 || count > (1ull << 40)) {
    std::fprintf(stderr, "bare_limits: COUNT must be a positive integer, not '%s'\n", argv[2]);
    return 2;
  }
  const std::string test = argv[1];
  if (test == "ring") {
    std::printf("%.0f\n", RingRate(count));
  } else if (test == "pingpong") {
    std::printf("%llu\n", static_cast<unsigned long long>(CacheLinePingPong(count)));
  } else if (test == "tcp-pingpong") {
    std::printf("%llu\n", static_cast<unsigned long long>(TcpPingPong(count)));
  } else {
    return Usage();
  }
  return 0;
}
