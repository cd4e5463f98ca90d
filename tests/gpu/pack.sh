#!/usr/bin/env bash
# Packs what tests/gpu/run.sh needs from a build tree into one small folder
# that travels to a GPU machine without this project's Debian packages:
# the binaries, and every shared library they load apart from the C
# library's own (libc, libm, the dynamic loader), which the GPU machine has.
#   tests/gpu/pack.sh BUILD_DIR OUT_DIR
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR OUT_DIR}
out=${2:?usage: $0 BUILD_DIR OUT_DIR}
rm -rf "$out"
mkdir -p "$out/bin" "$out/lib"
binaries=("$build/src/cli/xfer" "$build/tests/cuda_tests" "$build/tests/cuda_device_peer")
for binary in "${binaries[@]}"; do
  [[ -x $binary ]] || { echo "pack.sh: $binary is not built" >&2; exit 1; }
  cp "$binary" "$out/bin/"
done
for binary in "${binaries[@]}"; do
  ldd "$binary" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }'
done | sort -u | while read -r library; do
  case $(basename "$library") in
    libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|librt.so.*|ld-linux*) continue ;;
  esac
  cp -L "$library" "$out/lib/"
done
cp "$(dirname "$0")/run.sh" "$(dirname "$0")/ratios.py" "$out/"
du -sh "$out"
