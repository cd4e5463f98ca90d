#!/usr/bin/env bash
# Fuzzes what `xfer report` and `xfer compare` read (malformed, truncated or
# foreign run files) with libFuzzer under ASan + UBSan, for a bounded time.
#   scripts/fuzz.sh [SECONDS]    (default 60; XFER_FUZZ_SECONDS also sets it)
# Starts from the recorded runs in tests/report/testdata; the corpus it grows
# stays in build/fuzz/corpus. A finding leaves its input in build/fuzz/ and
# fails the script.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-${XFER_FUZZ_SECONDS:-60}}
[[ $seconds =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [SECONDS > 0]" >&2; exit 2; }

CC=clang CXX=clang++ cmake -S . -B build/fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DXFER_FUZZ=ON -DXFER_BUILD_TESTS=OFF -DXFER_BUILD_BENCHMARKS=OFF -DXFER_CUDA=OFF >/dev/null
cmake --build build/fuzz -j "$(nproc)" --target run_document_fuzzer

mkdir -p build/fuzz/corpus
cp tests/report/testdata/*.json build/fuzz/corpus/
cd build/fuzz
./tests/report/fuzz/run_document_fuzzer -max_total_time="$seconds" -timeout=10 \
  -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 corpus
