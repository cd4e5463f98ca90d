#!/usr/bin/env bash
# Fuzzes every parser of bytes from a file or a peer with libFuzzer under
# ASan + UBSan, each target for a bounded time:
#   scripts/fuzz.sh [SECONDS_PER_TARGET]   (default 30; XFER_FUZZ_SECONDS also sets it)
# Each target starts from its seed corpus in the source tree (tests/*/fuzz/
# corpus, recorded by tests/fuzz_seeds; the run files of tests/report/testdata
# for run_document_fuzzer) and grows build/fuzz/corpus/<target>. Prints one
# line per target with its executions; a finding leaves crash-* in
# build/fuzz/findings/<target>/ and fails the script (after every target ran).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-${XFER_FUZZ_SECONDS:-30}}
[[ $seconds =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [SECONDS_PER_TARGET > 0]" >&2; exit 2; }

source scripts/fuzz_targets.sh
fuzz_build

failed=()
for entry in "${fuzz_targets[@]}"; do
  read -r name binary seeds <<<"$entry"
  [[ -x build/fuzz/$binary ]] || continue  # verbs targets: only where rdma-core is
  corpus=build/fuzz/corpus/$name findings=build/fuzz/findings/$name
  mkdir -p "$corpus" "$findings"
  log=build/fuzz/findings/$name.log
  status=ok
  "build/fuzz/$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -max_len=65536 -print_final_stats=1 -artifact_prefix="$findings/" "$corpus" $seeds \
    >"$log" 2>&1 || status=FAILED
  execs=$(fuzz_execs "$log")
  printf 'fuzz: %-22s %12s execs in %ss  %s\n' "$name" "$execs" "$seconds" "$status"
  if [[ $status != ok ]]; then
    failed+=("$name")
    tail -n 30 "$log" >&2
  fi
done
if ((${#failed[@]})); then
  echo "fuzz: findings in ${failed[*]} (inputs under build/fuzz/findings/)" >&2
  exit 1
fi
