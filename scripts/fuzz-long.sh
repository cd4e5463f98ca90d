#!/usr/bin/env bash
# The long fuzzing campaign, outside CI: every libFuzzer target for longer,
# with as many parallel jobs as cores:
#   scripts/fuzz-long.sh [SECONDS_PER_TARGET]   (default 600)
# Grows the same corpora as scripts/fuzz.sh (build/fuzz/corpus/<target>) and
# prints the executions per target, their total, and whether the campaign met
# its goal: at least 10^7 executions in all and no finding.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-600}
[[ $seconds =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [SECONDS_PER_TARGET > 0]" >&2; exit 2; }
goal=10000000
jobs=$(nproc)

source scripts/fuzz_targets.sh
fuzz_build

total=0 findings=0
for entry in "${fuzz_targets[@]}"; do
  read -r name binary seeds <<<"$entry"
  [[ -x build/fuzz/$binary ]] || continue
  corpus=build/fuzz/corpus/$name out=build/fuzz/long/$name
  rm -rf "$out" && mkdir -p "$corpus" "$out"
  status=ok
  # -jobs/-workers: $jobs independent fuzzers sharing the corpus, each until
  # the time is up (fuzz-<n>.log in the working directory).
  (cd "$out" && "$OLDPWD/build/fuzz/$binary" -max_total_time="$seconds" -timeout=10 \
     -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 -jobs="$jobs" -workers="$jobs" \
     -artifact_prefix="$PWD/" "$OLDPWD/$corpus" $(for s in $seeds; do echo "$OLDPWD/$s"; done) \
     >"$PWD/driver.log" 2>&1) || status=FAILED
  if compgen -G "$out/crash-*" >/dev/null || compgen -G "$out/leak-*" >/dev/null ||
     compgen -G "$out/timeout-*" >/dev/null; then
    status=FAILED
  fi
  execs=$(fuzz_execs "$out"/fuzz-*.log)
  total=$((total + execs))
  [[ $status == ok ]] || findings=$((findings + 1))
  printf 'fuzz-long: %-22s %12s execs in %ss x %s jobs  %s\n' "$name" "$execs" "$seconds" "$jobs" "$status"
done
echo "fuzz-long: $total executions in all, $findings target(s) with findings"
if ((total >= goal && findings == 0)); then
  echo "fuzz-long: goal met (>= $goal executions, no finding)"
else
  echo "fuzz-long: goal NOT met (>= $goal executions and no finding needed)"
  exit 1
fi
