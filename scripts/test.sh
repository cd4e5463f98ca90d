#!/usr/bin/env bash
# README command (b): set up, build, and run every test. .ci/run calls it.
#
#   scripts/test.sh           everything CI checks: the release build, the
#                             build without RDMA verbs and the ASan + UBSan
#                             build, each under ctest (the release build's
#                             includes installing itself and building the
#                             examples against the installed package), the
#                             fault trials, the ThreadSanitizer build of the
#                             engine, transport and bench tests, `pip install
#                             .` into a virtual environment, the fuzz targets
#                             for a bounded time, then the verbs suite and
#                             `xfer doctor` against real Soft-RoCE devices
#                             inside VMs (this host has no RDMA).
#   scripts/test.sh --quick   before every commit (DEVELOPERS.md): the release
#                             build, incrementally, and its unit, conformance
#                             and host end-to-end tests; no sanitizers, no
#                             fuzzing, no VM.
#
# Every step is a timed phase (scripts/phases.sh): the log ends with a table
# of each phase's wall time, on success and on failure.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=full
case "${1:-}" in
  "") ;;
  --quick) mode=quick ;;
  *) echo "usage: $0 [--quick]" >&2; exit 2 ;;
esac

source scripts/phases.sh

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# ThreadSanitizer's suppressions, each with its reason: tests/tsan.supp.
# intercept_send=0: TSan records the memory that sendmsg reads as read after
# the call returns, later than the peer may already have received it and
# acted on it (a tcp READ's payload, reused by the test once the read
# completed); src/common/kernel_channel.h orders what happens before a send.
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1:intercept_send=0:suppressions=$PWD/tests/tsan.supp}

# ctest over one build folder with JOBS tests at once; extra arguments
# select (-L, -LE) or bound. The plain builds' suites run two tests per core:
# most of their time is spent waiting (timeouts that must expire, peers
# that must start, Chromium), and they pass so on a loaded host. The
# sanitizer builds' tests are CPU-bound: one per core.
#
# On a failure it repeats, last, what each failed test printed at its
# assertions: ctest's own output puts it above hundreds of lines of
# summary, where a log kept only by its tail loses it.
run_ctest() {
  local flavour=$1 jobs=$2
  shift 2
  local rc=0
  ctest --test-dir "build/$flavour" --output-on-failure -j "$jobs" --timeout 300 "$@" || rc=$?
  if ((rc != 0)); then
    summarize_failures "build/$flavour/Testing/Temporary"
  fi
  return "$rc"
}

summarize_failures() {
  local dir=$1
  [[ -f $dir/LastTestsFailed.log ]] || return 0
  echo "=== failed tests, and what they printed at their failures"
  sed 's/^/  /' "$dir/LastTestsFailed.log"
  grep -E -A8 ': Failure$|^\[  FAILED  \]|Timeout|SEGV|Sanitizer' "$dir/LastTest.log" | head -120 || true
}
cores=$(nproc)

phase "setup: packages" scripts/setup.sh

if [[ $mode == quick ]]; then
  phase "release: build" scripts/build.sh release
  # Every GoogleTest binary (label unit, unit_tsan): the units, the
  # transports' conformance suite and the end-to-end tests of real xfer
  # processes on this host. Not the installed-package tests (label
  # package), which CI runs.
  phase "release: unit, conformance, end-to-end" run_ctest release $((2 * cores)) -L unit
  exit 0
fi

phase "release: build" scripts/build.sh release
phase "release: test" run_ctest release $((2 * cores))
# Faults against real processes (tests/faults): SIGKILL/SIGSTOP/RST of the
# target, SIGKILL of the initiator, and a verified soak, over shm and tcp.
# The two transports' trials run side by side: each spends half its time
# waiting for a killed peer to be noticed (110 s one after the other on 2
# cores, 56 s together).
fault_trials() {
  local transport pids=() rc=0
  for transport in shm tcp; do
    bash tests/faults/run_fault_trials.sh build/release --trials 100 --soak 20000 \
      --transports "$transport" > "build/faults-$transport.log" 2>&1 &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || rc=1; done
  cat build/faults-shm.log build/faults-tcp.log
  return "$rc"
}
phase "faults: fault trials and soak" fault_trials

# Without verbs: what a host without rdma-core builds (shm and tcp only).
phase "noverbs: build" scripts/build.sh noverbs
phase "noverbs: test" run_ctest noverbs $((2 * cores))

phase "asan: build" scripts/build.sh asan
phase "asan: test" run_ctest asan "$cores"

# ThreadSanitizer over the engine, the transports and the benchmark, whose
# accept, responder, completer and poller threads meet on every connection
# (tests/CMakeLists.txt: XFER_TSAN_FOLDERS).
phase "tsan: build" scripts/build.sh tsan
phase "tsan: test" run_ctest tsan "$cores" -L tsan --timeout 600

# The Python package as a user installs it: pip, offline, from this tree.
phase "python: pip install . into a virtual environment" bash tests/package/pip_install_test.sh

# What `xfer report` and `xfer compare` read and what a peer sends come from
# anywhere: fuzz every parser for a bounded time per target (scripts/fuzz.sh;
# XFER_FUZZ_SECONDS runs them longer).
fuzz_build_only() { source scripts/fuzz_targets.sh; fuzz_build; }
phase "fuzz: build" fuzz_build_only
phase "fuzz: run files and peer messages" scripts/fuzz.sh "${XFER_FUZZ_SECONDS:-20}"

# The verbs path needs RDMA devices: boot the Soft-RoCE VM and run the
# release build's verbs suite there (tests/softroce/run.sh).
phase "verbs: Soft-RoCE VM" \
  scripts/softroce-vm --timeout 1800 -- bash tests/softroce/run.sh build/release

# `xfer doctor` on what a real kernel reports: a second VM with two
# virtio-net NICs, one at 25 Gb/s on the root complex (brought to 10 Gb/s
# inside), one behind a root port that trained below its capability
# (tests/softroce/doctor.sh).
phase "doctor: Soft-RoCE VM with virtio-net NICs" \
  scripts/softroce-vm --timeout 600 --mtu 9000 --nic 25000 --nic 25000:5x4 -- \
  bash tests/softroce/doctor.sh build/release
