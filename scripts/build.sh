#!/usr/bin/env bash
# Configures and builds one flavour of xfer.
#   scripts/build.sh release   -> build/release   (the tool you measure with)
#   scripts/build.sh asan      -> build/asan      (ASan + UBSan, for the tests)
set -euo pipefail
cd "$(dirname "$0")/.."

flavour=${1:-release}
case "$flavour" in
  release) extra=(-DCMAKE_BUILD_TYPE=Release) ;;
  asan)    extra=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DXFER_SANITIZE=ON) ;;
  *) echo "usage: $0 release|asan" >&2; exit 2 ;;
esac

cmake -S . -B "build/$flavour" "${extra[@]}" -DXFER_BUILD_TESTS=ON >/dev/null
cmake --build "build/$flavour" -j "$(nproc)"
