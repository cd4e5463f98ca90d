#!/usr/bin/env bash
# libxfer as its users get it: installs BUILD_DIR into a fresh prefix, checks
# what lands there, then builds the examples against that prefix alone and
# runs them between two processes over shm and tcp:
#   1. CMake, find_package(xfer)                   -> xfer::xfer (libxfer.so)
#   2. CMake, find_package(xfer COMPONENTS static) -> xfer::xfer_static (libxfer.a)
#   3. pkg-config, as a Makefile would use it      -> -lxfer
# Usage: consumer_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
# Pipelines below end in `grep PATTERN >/dev/null`, never `grep -q`: -q stops
# reading at the first match, the writer then dies of SIGPIPE, and pipefail
# fails the step (seen under a loaded CI).
build=$(realpath "$1")
source_dir=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "--- $*"; }

step "cmake --install $build --prefix <fresh prefix>"
cmake --install "$build" --prefix "$prefix" >"$work/install.log"
for file in bin/xfer include/xfer/engine.h include/xfer/export.h \
            lib/libxfer.so lib/libxfer.so.0.2 lib/libxfer.a \
            lib/cmake/xfer/xferConfig.cmake lib/cmake/xfer/xferConfigVersion.cmake \
            lib/cmake/xfer/xferSharedTargets.cmake lib/cmake/xfer/xferStaticTargets.cmake \
            lib/pkgconfig/xfer.pc; do
  [[ -e $prefix/$file ]] || fail "the install has no $file"
done
# Only the public headers are installed: none of src/ leaks out.
extra=$(cd "$prefix/include/xfer" && ls | grep -v -x -f <(cd "$source_dir/include/xfer" && ls) || true)
[[ -z $extra ]] || fail "headers installed beyond include/xfer/: $extra"
soname=$(objdump -p "$prefix/lib/libxfer.so" | awk '/SONAME/ {print $2}')
[[ $soname == libxfer.so.0.2 ]] || fail "SONAME is '$soname', expected libxfer.so.0.2"
transports=$("$prefix/bin/xfer" -V | sed -n 's/^transports: //p')
[[ $transports == "shm, tcp"* ]] || fail "the installed xfer -V names the transports '$transports'"
# A build without verbs needs no rdma-core at run time either.
if [[ $transports != *verbs* ]] && objdump -p "$prefix/lib/libxfer.so" | grep 'NEEDED.*libibverbs' >/dev/null; then
  fail "libxfer.so of a build without verbs needs libibverbs"
fi
if [[ -d $build/python/xfer ]]; then
  site=$(ls -d "$prefix"/lib/python3*/site-packages)
  PYTHONPATH=$site python3 -c 'import xfer, sys; sys.exit(0 if "tcp" in xfer.builtin_transports() else 1)' ||
    fail "the installed Python package does not import from $site"
fi

run_examples() {  # DIR: the two examples, the second over shm and over tcp
  "$1/one_sided_copy" | grep 'first byte 0xab' >/dev/null || fail "$1/one_sided_copy"
  for transport in shm tcp; do
    out=$("$1/copy_between_processes" "$transport") || fail "$1/copy_between_processes $transport: $out"
    echo "    $out"
    grep -q "transport $transport: .* the target checked 1048576 bytes" <<<"$out" ||
      fail "$1/copy_between_processes $transport printed: $out"
  done
}

step "find_package(xfer): libxfer.so"
cmake -S "$source_dir/examples" -B "$work/shared" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE=Release >"$work/shared.log" || { cat "$work/shared.log"; fail "configure"; }
cmake --build "$work/shared" -j 2 >>"$work/shared.log" || { cat "$work/shared.log"; fail "build"; }
ldd "$work/shared/copy_between_processes" | grep "libxfer.so.0.2 => $prefix/lib/libxfer.so.0.2" >/dev/null ||
  fail "the shared example does not load $prefix/lib/libxfer.so.0.2"
run_examples "$work/shared"

step "find_package(xfer COMPONENTS static): libxfer.a"
cmake -S "$source_dir/examples" -B "$work/static" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE=Release -DXFER_EXAMPLES_STATIC=ON >"$work/static.log" ||
  { cat "$work/static.log"; fail "configure"; }
cmake --build "$work/static" -j 2 >>"$work/static.log" || { cat "$work/static.log"; fail "build"; }
! ldd "$work/static/copy_between_processes" | grep libxfer >/dev/null || fail "the static example loads libxfer.so"
run_examples "$work/static"

step "pkg-config xfer"
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
[[ $(pkg-config --modversion xfer) == "$(sed -n 's/^project(xfer VERSION \([0-9.]*\).*/\1/p' "$source_dir/CMakeLists.txt")" ]] ||
  fail "pkg-config --modversion xfer: $(pkg-config --modversion xfer)"
mkdir -p "$work/pc"
for example in one_sided_copy copy_between_processes; do
  # shellcheck disable=SC2046  # word splitting of the flags is the point
  c++ -std=c++20 -O2 -Wall -Wextra -Werror $(pkg-config --cflags xfer) \
    "$source_dir/examples/$example.cc" -o "$work/pc/$example" \
    $(pkg-config --libs xfer) -Wl,-rpath,"$(pkg-config --variable=libdir xfer)"
done
run_examples "$work/pc"
echo "PASS: installed package used through find_package (shared, static) and pkg-config"
