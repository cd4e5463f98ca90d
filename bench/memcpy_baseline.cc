// Single-core memcpy at the sizes the shm transport is judged at: the
// ceiling a one-sided copy between two processes can reach on this host.
// Source and destination stay fixed, as they do in `xfer write_bw` for
// messages above half a page, so both runs see the same cache behaviour.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <cstring>
#include <memory>

namespace {

void BM_Memcpy(benchmark::State& state) {
  const auto size = static_cast<size_t>(state.range(0));
  auto* src = static_cast<char*>(std::aligned_alloc(4096, size));
  auto* dst = static_cast<char*>(std::aligned_alloc(4096, size));
  std::memset(src, 0x5a, size);
  std::memset(dst, 0, size);
  for (auto _ : state) {
    std::memcpy(dst, src, size);
    benchmark::DoNotOptimize(dst);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
  std::free(src);
  std::free(dst);
}

BENCHMARK(BM_Memcpy)->Arg(64 << 10)->Arg(1 << 20);

// What one `xfer matrix` sample does on shm, minus the engine: copy a
// buffer of range(1) bytes into another in range(0)-byte blocks, block j to
// offset j. The buffers are the matrix's (128 MiB by default), far larger
// than the caches, so this is the memory-bandwidth ceiling of a cell.
void BM_MemcpyBlocks(benchmark::State& state) {
  const auto block = static_cast<size_t>(state.range(0));
  const auto total = static_cast<size_t>(state.range(1));
  auto* src = static_cast<char*>(std::aligned_alloc(4096, total));
  auto* dst = static_cast<char*>(std::aligned_alloc(4096, total));
  std::memset(src, 0x5a, total);
  std::memset(dst, 0, total);
  for (auto _ : state) {
    for (size_t offset = 0; offset < total; offset += block) {
      std::memcpy(dst + offset, src + offset, block);
    }
    benchmark::DoNotOptimize(dst);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(1));
  std::free(src);
  std::free(dst);
}

BENCHMARK(BM_MemcpyBlocks)
    ->Args({16 << 10, 128 << 20})
    ->Args({2 << 20, 128 << 20})
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
