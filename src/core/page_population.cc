#include "core/page_population.h"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <system_error>
#include <thread>
#include <vector>

#include <fmt/format.h>

namespace xfer::core {
namespace {

constexpr size_t kBytesPerThread = size_t{64} << 20;
constexpr unsigned kMaxThreads = 8;

// One thread's share. 0 on success, else the errno.
int Populate(uint8_t* start, size_t length, size_t page_size) {
  if (madvise(start, length, MADV_POPULATE_WRITE) == 0) return 0;
  // EINVAL: a kernel before 5.14. Touch each page instead: the first write
  // faults it in writable, as MADV_POPULATE_WRITE does.
  if (errno != EINVAL) return errno;
  for (size_t offset = 0; offset < length; offset += page_size) {
    // volatile: the store of the byte already there must happen.
    volatile uint8_t* page = start + offset;
    *page = *page;
  }
  return 0;
}

}  // namespace

unsigned PopulationThreads(size_t length) {
  const unsigned cpus = std::max(1u, std::thread::hardware_concurrency());
  const size_t by_size = length / kBytesPerThread;
  return static_cast<unsigned>(std::min<size_t>({by_size, cpus, kMaxThreads, size_t{1} << 16}));
}

Status PopulateInParallel(void* address, size_t length, size_t page_size, unsigned threads) {
  threads = std::max(1u, threads);
  const size_t pages = (length + page_size - 1) / page_size;
  const size_t share = (pages + threads - 1) / threads * page_size;
  auto* base = static_cast<uint8_t*>(address);
  std::vector<int> errors(threads, 0);
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < threads; ++t) {
    const size_t begin = t * share;
    if (begin >= length) break;
    const size_t bytes = std::min(share, length - begin);
    auto run = [&errors, t, base, begin, bytes, page_size] {
      errors[t] = Populate(base + begin, bytes, page_size);
    };
    // The last share on this thread; a thread that cannot start runs here.
    if (t + 1 == threads) {
      run();
      continue;
    }
    try {
      workers.emplace_back(run);
    } catch (const std::system_error&) {
      run();
    }
  }
  for (auto& worker : workers) worker.join();
  for (unsigned t = 0; t < threads; ++t) {
    if (errors[t] != 0) {
      return ResourceExhausted(fmt::format(
          "cannot fault in bytes [{}, +{}) of a {}-byte region: {}", t * share,
          std::min(share, length - std::min(length, t * share)), length,
          std::strerror(errors[t])));
    }
  }
  return Status::Ok();
}

}  // namespace xfer::core
