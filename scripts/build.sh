#!/usr/bin/env bash
# Configures and builds one flavour of xfer.
#   scripts/build.sh release   -> build/release   (the tool you measure with)
#   scripts/build.sh asan      -> build/asan      (ASan + UBSan, for the tests)
#   scripts/build.sh noverbs   -> build/noverbs   (without RDMA verbs, as on a
#                                                  host without rdma-core)
#   scripts/build.sh tsan      -> build/tsan      (ThreadSanitizer: the engine,
#                                                  transport and bench tests)
# ccache, where installed, serves the objects the flavours share.
set -euo pipefail
cd "$(dirname "$0")/.."

flavour=${1:-release}
# The sanitizer builds: -O1, as the sanitizers' authors advise, and line
# tables only (-g1), all a report's stack needs; half the compile time of
# -O2 -g, which dominated CI.
sanitizer_flags="-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG"
case "$flavour" in
  release) extra=(-DCMAKE_BUILD_TYPE=Release) ;;
  asan)    extra=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "$sanitizer_flags" -DXFER_SANITIZE=ON) ;;
  # Without verbs, only the tests of what changes without it: the engine's
  # registry, the CLI, the stack choice, the benchmark, the reports and the
  # end-to-end runs (the transports' own suites are the release build's).
  noverbs) extra=(-DCMAKE_BUILD_TYPE=Release -DXFER_VERBS=OFF -DXFER_BUILD_BENCHMARKS=OFF
                  "-DXFER_TEST_FOLDERS=transport;conformance;core;bench;launch;report;cli;e2e") ;;
  # ThreadSanitizer: only what the "tsan" ctest label runs (tests/CMakeLists.txt).
  tsan)    extra=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "$sanitizer_flags" -DXFER_TSAN=ON
                  -DXFER_BUILD_BENCHMARKS=OFF)
           targets=(transport_shm_tests transport_tcp_tests
                    conformance_tests core_tests bench_tests launch_tests bench_matrix_tests
                    xfer_cli) ;;
  *) echo "usage: $0 release|asan|noverbs|tsan" >&2; exit 2 ;;
esac
if command -v ccache >/dev/null; then
  extra+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
# The Python bindings are built for Debian's interpreter, the one that has
# python3-pybind11, pytest and numpy, even where another python3 (pyenv)
# comes first on PATH.
if [[ -x /usr/bin/python3 ]]; then
  extra+=(-DPython_EXECUTABLE=/usr/bin/python3)
fi

cmake -S . -B "build/$flavour" "${extra[@]}" -DXFER_BUILD_TESTS=ON >/dev/null
cmake --build "build/$flavour" -j "$(nproc)" ${targets:+--target "${targets[@]}"}
