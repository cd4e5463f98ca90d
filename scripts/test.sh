#!/usr/bin/env bash
# README command (b): set up, build, and run every test — the release build,
# the build without RDMA verbs and the ASan + UBSan build, each under ctest
# (the release build's includes installing itself and building the examples
# against the installed package), the ThreadSanitizer build of the engine,
# transport and bench tests, `pip install .` into a virtual environment,
# the fuzz targets for a bounded time, then the verbs suite against real
# Soft-RoCE devices inside a VM (this host has no RDMA). .ci/run calls this.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh

# Each step's heading says when it began, so a slow CI shows where.
step() { echo "=== $* [$(date -u +%H:%M:%S), ${SECONDS}s in]"; }

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# The no-verbs build shares most of its objects with the release build:
# ccache (scripts/build.sh uses it) serves them the second time.
for flavour in release noverbs asan; do
  step "$flavour: build"
  scripts/build.sh "$flavour"
  step "$flavour: test"
  ctest --test-dir "build/$flavour" --output-on-failure -j "$(nproc)" --timeout 300
  if [[ $flavour == release ]]; then
    # Faults against real processes (tests/faults): SIGKILL/SIGSTOP/RST of
    # the target, SIGKILL of the initiator, and a verified soak, over shm
    # and tcp; about a minute on 2 cores.
    step "faults: fault trials and soak"
    bash tests/faults/run_fault_trials.sh build/release --trials 40 --soak 20000
  fi
done

# ThreadSanitizer over the engine, the transports and the benchmark, whose
# accept, responder, completer and poller threads meet on every connection
# (tests/CMakeLists.txt: XFER_TSAN_FOLDERS). Suppressions, each with its
# reason: tests/tsan.supp. intercept_send=0: TSan records the memory that
# sendmsg reads as read after the call returns, later than the peer may
# already have received it and acted on it (a tcp READ's payload, reused
# by the test once the read completed); src/common/kernel_channel.h orders
# what happens before a send.
step "tsan: build"
scripts/build.sh tsan
step "tsan: test"
TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1:intercept_send=0:suppressions=$PWD/tests/tsan.supp} \
  ctest --test-dir build/tsan -L tsan --output-on-failure -j "$(nproc)" --timeout 600

# The Python package as a user installs it: pip, offline, from this tree.
step "python: pip install . into a virtual environment"
bash tests/package/pip_install_test.sh

# What `xfer report` and `xfer compare` read and what a peer sends come from
# anywhere: fuzz every parser for a bounded time per target (scripts/fuzz.sh;
# 7 targets x 15 s, after the build; XFER_FUZZ_SECONDS runs them longer).
step "fuzz: run files and peer messages"
scripts/fuzz.sh "${XFER_FUZZ_SECONDS:-15}"

# The verbs path needs RDMA devices: boot the Soft-RoCE VM and run the
# release build's verbs suite there (tests/softroce/run.sh).
step "verbs: Soft-RoCE VM"
scripts/softroce-vm --timeout 1800 -- bash tests/softroce/run.sh build/release

# `xfer doctor` on what a real kernel reports: a second VM with two
# virtio-net NICs, one at 25 Gb/s on the root complex (brought to 10 Gb/s
# inside), one behind a root port that trained below its capability
# (tests/softroce/doctor.sh).
step "doctor: Soft-RoCE VM with virtio-net NICs"
scripts/softroce-vm --timeout 600 --mtu 9000 --nic 25000 --nic 25000:5x4 -- \
  bash tests/softroce/doctor.sh build/release
