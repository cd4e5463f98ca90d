#!/usr/bin/env bash
# README command (b): set up, build, and run every test — the release build,
# the build without RDMA verbs and the ASan + UBSan build, each under ctest
# (the release build's includes installing itself and building the examples
# against the installed package), `pip install .` into a virtual
# environment, then the verbs suite against real Soft-RoCE devices inside a
# VM (this host has no RDMA). .ci/run calls this.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# The no-verbs build shares most of its objects with the release build:
# ccache (scripts/build.sh uses it) serves them the second time.
for flavour in release noverbs asan; do
  echo "=== $flavour: build"
  scripts/build.sh "$flavour"
  echo "=== $flavour: test"
  ctest --test-dir "build/$flavour" --output-on-failure -j "$(nproc)" --timeout 300
done

# The Python package as a user installs it: pip, offline, from this tree.
echo "=== python: pip install . into a virtual environment"
bash tests/package/pip_install_test.sh

# What `xfer report` and `xfer compare` read comes from anywhere: fuzz the
# parser and the renderers for a bounded time (scripts/fuzz.sh).
echo "=== fuzz: run files"
scripts/fuzz.sh "${XFER_FUZZ_SECONDS:-90}"

# The verbs path needs RDMA devices: boot the Soft-RoCE VM and run the
# release build's verbs suite there (tests/softroce/run.sh).
echo "=== verbs: Soft-RoCE VM"
scripts/softroce-vm --timeout 1800 -- bash tests/softroce/run.sh build/release

# `xfer doctor` on what a real kernel reports: a second VM with two
# virtio-net NICs, one at 25 Gb/s on the root complex (brought to 10 Gb/s
# inside), one behind a root port that trained below its capability
# (tests/softroce/doctor.sh).
echo "=== doctor: Soft-RoCE VM with virtio-net NICs"
scripts/softroce-vm --timeout 600 --mtu 9000 --nic 25000 --nic 25000:5x4 -- \
  bash tests/softroce/doctor.sh build/release
