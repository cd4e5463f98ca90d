#!/usr/bin/env bash
# Fuzzes every parser of bytes from a file or a peer with libFuzzer under
# ASan + UBSan, each target for a bounded time:
#   scripts/fuzz.sh [SECONDS_PER_TARGET]   (default 30; XFER_FUZZ_SECONDS also sets it)
# Each target starts from its seed corpus in the source tree (tests/*/fuzz/
# corpus, recorded by tests/fuzz_seeds; the run files of tests/report/testdata
# for run_document_fuzzer) and grows build/fuzz/corpus/<target>. Prints one
# line per target with its executions, running as many targets at once as
# there are cores (XFER_FUZZ_JOBS); a finding leaves crash-* in
# build/fuzz/findings/<target>/ and fails the script (after every target ran).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-${XFER_FUZZ_SECONDS:-30}}
[[ $seconds =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [SECONDS_PER_TARGET > 0]" >&2; exit 2; }

source scripts/fuzz_targets.sh
fuzz_build

# One target per core at a time (XFER_FUZZ_JOBS): each libFuzzer process is
# single-threaded, so every target still gets its full time on a core.
jobs=${XFER_FUZZ_JOBS:-$(nproc)}
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "fuzz: XFER_FUZZ_JOBS must be a positive integer" >&2; exit 2; }

# Runs one target; its line and, on a finding, the log's tail, when it ends.
fuzz_one() {
  local name=$1 binary=$2 seeds=$3
  local corpus=build/fuzz/corpus/$name findings=build/fuzz/findings/$name
  mkdir -p "$corpus" "$findings"
  local log=build/fuzz/findings/$name.log status=ok
  # shellcheck disable=SC2086  # seeds: one or more directories
  "build/fuzz/$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -max_len=65536 -print_final_stats=1 -artifact_prefix="$findings/" "$corpus" $seeds \
    >"$log" 2>&1 || status=FAILED
  printf 'fuzz: %-22s %12s execs in %ss  %s\n' "$name" "$(fuzz_execs "$log")" "$seconds" "$status"
  if [[ $status != ok ]]; then
    tail -n 30 "$log" >&2
    return 1
  fi
}

declare -A running=()  # pid -> target name
failed=()
reap_one() {
  local pid rc=0
  wait -n -p pid || rc=$?
  ((rc == 0)) || failed+=("${running[$pid]}")
  unset "running[$pid]"
}
for entry in "${fuzz_targets[@]}"; do
  read -r name binary seeds <<<"$entry"
  [[ -x build/fuzz/$binary ]] || continue  # verbs targets: only where rdma-core is
  while ((${#running[@]} >= jobs)); do reap_one; done
  fuzz_one "$name" "$binary" "$seeds" &
  running[$!]=$name
done
while ((${#running[@]} > 0)); do reap_one; done
if ((${#failed[@]})); then
  echo "fuzz: findings in ${failed[*]} (inputs under build/fuzz/findings/)" >&2
  exit 1
fi
