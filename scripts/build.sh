#!/usr/bin/env bash
# Configures and builds one flavour of xfer.
#   scripts/build.sh release   -> build/release   (the tool you measure with)
#   scripts/build.sh asan      -> build/asan      (ASan + UBSan, for the tests)
#   scripts/build.sh noverbs   -> build/noverbs   (without RDMA verbs, as on a
#                                                  host without rdma-core)
#   scripts/build.sh tsan      -> build/tsan      (ThreadSanitizer: the engine,
#                                                  transport and bench tests)
#   scripts/build.sh demo      -> build/demo      (the xfer binary alone, as
#                                                  released: scripts/demo.sh)
# ccache, where installed, serves the objects the flavours share.
set -euo pipefail
cd "$(dirname "$0")/.."

flavour=${1:-release}
# The sanitizer builds: -O1, as the sanitizers' authors advise, and line
# tables only (-g1), all a report's stack needs; half the compile time of
# -O2 -g, which dominated CI. Their libraries compile eight sources per
# translation unit (CMake's unity build, as the tests always do): the
# instrumented headers are parsed once per eight files, not once each,
# which halves the largest phase of CI. Names at file scope must then be
# unique within a library (an anonymous namespace does not separate two
# files of one unit); the release build compiles file by file.
sanitizer_flags="-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG"
unity=(-DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=8)
case "$flavour" in
  release) extra=(-DCMAKE_BUILD_TYPE=Release) ;;
  asan)    extra=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "$sanitizer_flags" -DXFER_SANITIZE=ON
                  "${unity[@]}") ;;
  noverbs) extra=(-DCMAKE_BUILD_TYPE=Release -DXFER_VERBS=OFF -DXFER_BUILD_BENCHMARKS=OFF) ;;
  # ThreadSanitizer: only what the "tsan" ctest label runs (tests/CMakeLists.txt).
  tsan)    extra=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "$sanitizer_flags" -DXFER_TSAN=ON
                  -DXFER_BUILD_BENCHMARKS=OFF "${unity[@]}")
           targets=(common_tests transport_shm_tests transport_tcp_tests
                    conformance_tests core_tests bench_tests launch_tests bench_matrix_tests
                    xfer_cli) ;;
  # Nothing but the binary: no tests, benchmarks or Python, so that a
  # fresh machine needs only scripts/setup.sh --demo's packages. Its own
  # folder: a configuration that found no MPI or pybind11 must not stick
  # to build/release once scripts/setup.sh installs them.
  demo)    extra=(-DCMAKE_BUILD_TYPE=Release -DXFER_BUILD_BENCHMARKS=OFF -DXFER_PYTHON=OFF)
           tests=OFF
           targets=(xfer_cli) ;;
  *) echo "usage: $0 release|asan|noverbs|tsan|demo" >&2; exit 2 ;;
esac
if command -v ccache >/dev/null; then
  extra+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  # Paths under the tree are hashed relative to the build folder, so that
  # an object compiled alike in two flavours (release and noverbs: the same
  # flags, and only common/build_options.h differs) is compiled once.
  export CCACHE_BASEDIR=$PWD
fi
# The Python bindings are built for Debian's interpreter, the one that has
# python3-pybind11, pytest and numpy, even where another python3 (pyenv)
# comes first on PATH.
if [[ -x /usr/bin/python3 ]]; then
  extra+=(-DPython_EXECUTABLE=/usr/bin/python3)
fi

# Ninja: it starts the next compile as soon as a core is free and keeps a
# log of each object's time (build/<flavour>/.ninja_log) that shows where a
# slow build goes. A folder configured by another generator is reconfigured.
generator=(-G "Unix Makefiles")
if command -v ninja >/dev/null; then
  generator=(-G Ninja)
  if [[ -f build/$flavour/CMakeCache.txt ]] &&
     ! grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' "build/$flavour/CMakeCache.txt"; then
    rm -rf "build/$flavour/CMakeCache.txt" "build/$flavour/CMakeFiles"
  fi
fi

cmake -S . -B "build/$flavour" "${generator[@]}" "${extra[@]}" -DXFER_BUILD_TESTS="${tests:-ON}" >/dev/null
cmake --build "build/$flavour" -j "$(nproc)" ${targets:+--target "${targets[@]}"}
