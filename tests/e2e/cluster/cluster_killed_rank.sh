#!/usr/bin/env bash
# A rank killed mid-run (SIGKILL, as a crash or an OOM kill ends it), or
# stalled (SIGSTOP: a hung host, a debugger), ends the cluster matrix within
# its bounds: mpirun exits non-zero, rank 0's JSON says why and names the
# rank, and every cell finished before it stays in the file.
#   cluster_killed_rank.sh XFER_BINARY [KILL|STOP]
set -euo pipefail
xfer=$1
signal=${2:-KILL}
source "$(dirname "$0")/mpirun_common.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"; [[ -n ${run:-} ]] && kill "$run" 2>/dev/null || true' EXIT

# Long enough to be mid-run when the kill comes: pairwise, 6 rounds.
timeout 120 mpirun -np 4 "$xfer" matrix --scheme pairwise --transports tcp \
  --block_sizes 16K,256K,1M --transfer_size 64M --loops 20 --timeout 5 --quiet \
  --json "$work/run.json" > "$work/run.out" 2> "$work/run.err" &
run=$!

# Wait for the first finished cells in rank 0's file.
ok_cells() {
  /usr/bin/python3 - "$work/run.json" <<'PY' 2>/dev/null || echo 0
import json, sys
print(sum(c["status"] == "ok" for c in json.load(open(sys.argv[1]))["cells"]))
PY
}
for _ in $(seq 600); do
  [[ $(ok_cells) -gt 0 ]] && break
  sleep 0.1
done
[[ $(ok_cells) -gt 0 ]] || fail "no cell finished within 60 s"

# Rank 2 of this run (its --json path is this test's own), found by the
# rank Open MPI gave it.
victim=""
for pid in $(pgrep -f -- "--json $work/run.json"); do
  if tr '\0' '\n' < "/proc/$pid/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=2"; then
    victim=$pid
  fi
done
[[ -n $victim ]] || fail "rank 2's process not found (the run ended before the kill?)"
killed_at=$SECONDS
kill -"$signal" "$victim"

set +e
wait "$run"
rc=$?
set -e
run=""
elapsed=$((SECONDS - killed_at))
[[ $rc -ne 0 ]] || fail "the run succeeded although rank 2 got SIG$signal"
# --timeout 5 bounds every wait (a silent rank: 5 s + 1 s of grace);
# mpirun's own teardown adds a little.
[[ $elapsed -le 20 ]] || fail "the run took ${elapsed}s to end after SIG$signal"
# Rank 0 finds the dead or silent rank itself ("failed", naming it), or
# mpirun, which saw a death first, stops the other ranks with SIGTERM
# ("interrupted"), and mpirun's own notice names the rank: either way the
# user is told which rank, and the finished cells stay.
check_json "$work/run.json" '
assert doc["run"]["outcome"] in ("failed", "interrupted"), doc["run"]
assert len(ok) >= 1, "the finished cells were lost"
assert len(ok) < len(cells), "every cell finished: the signal came too late"
'
outcome=$(/usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["run"]["outcome"])' \
  "$work/run.json")
if [[ $outcome == failed ]]; then
  check_json "$work/run.json" 'assert "rank 2" in doc["run"]["error"], doc["run"]["error"]'
else
  grep -q "rank 2" "$work/run.err" || { cat "$work/run.err"; fail "nobody named rank 2"; }
fi
# Issue 43, item 10: rank 0 says on stderr why the run ended, in one line
# of its own, and the tables it printed end with their line.
grep -q "^xfer: matrix: the run \(failed\|was interrupted\): " "$work/run.err" ||
  { cat "$work/run.err"; fail "rank 0 did not say why the run ended"; }
if [[ -s $work/run.out ]]; then
  [[ $(tail -c 1 "$work/run.out" | od -An -c | tr -d ' ') == '\n' ]] ||
    { tail -c 200 "$work/run.out"; fail "rank 0's tables end mid-line"; }
fi
echo "cluster_killed_rank: ok (ended ${elapsed}s after SIG$signal to rank 2)"
