#!/usr/bin/env bash
# `pip install .` as the README gives it: into a fresh virtual environment
# that sees Debian's packages (pybind11, setuptools, wheel, numpy), without
# build isolation, so nothing is fetched. Then the package is imported from
# elsewhere and moves data between two engines.
# Usage: tests/package/pip_install_test.sh   (from anywhere)
set -euo pipefail
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# setup.py's CMake build honours these: all cores, and ccache where there
# is one (it then reuses the release build's objects).
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}
if command -v ccache >/dev/null; then
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache
  # As scripts/build.sh builds: Ninja, and paths hashed relative to the
  # build folder, so that setup.py's build/pip compiles what
  # build/release already did as cache hits, not again.
  export CCACHE_BASEDIR=$source_dir
  if command -v ninja >/dev/null && [[ ! -f $source_dir/build/pip/Makefile ]]; then
    export CMAKE_GENERATOR=Ninja
  fi
fi
# The README's own command (README.md, "Python: import xfer"), as written
# and with this machine's PATH: where another python3 comes first (pyenv),
# it must still name Debian's interpreter, the one with python3-pybind11,
# setuptools' bdist_wheel and numpy.
venv_line=$(grep -m1 -E '^[^#]* -m venv --system-site-packages \.venv$' "$source_dir/README.md") ||
  fail "README.md has no 'python3 -m venv --system-site-packages .venv' line"
(cd "$work" && eval "$venv_line") || fail "the README's '$venv_line'"
"$work/.venv/bin/pip" install --no-build-isolation --no-index --quiet "$source_dir" ||
  fail "pip install --no-build-isolation $source_dir"
cd "$work"
"$work/.venv/bin/python" - <<'PY' || fail "the installed package does not work"
import xfer, sys
print("xfer", xfer.__version__, "from", xfer.__file__, "transports:", xfer.builtin_transports())
assert "tcp" in xfer.builtin_transports()
PY
"$work/.venv/bin/python" "$source_dir/examples/one_sided_copy.py" | tee "$work/example.out"
grep -q 'first byte 0xab' "$work/example.out" || fail "examples/one_sided_copy.py"
echo "PASS: pip install . (offline, no build isolation) gives an importable, working xfer"
