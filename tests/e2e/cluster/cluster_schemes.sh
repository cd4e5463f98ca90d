#!/usr/bin/env bash
# The cluster matrix under a real mpirun, 4 ranks on this host: every
# scheme, over shm and tcp, checked in the JSON rank 0 writes; and the
# refusals of a command line that cannot be a cluster run.
#   cluster_schemes.sh XFER_BINARY
set -euo pipefail
xfer=$1
source "$(dirname "$0")/mpirun_common.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

common=(--block_sizes 16K,256K --transfer_size 1M --loops 3 --warmup 1 --timeout 10 --quiet)

# all-to-all over shm: 4 ranks -> 3 rounds of 2 pairs, each ordered pair
# once, per block.
timeout 120 mpirun -np 4 "$xfer" matrix --scheme all-to-all --transports shm "${common[@]}" \
  --json "$work/a2a.json" --csv "$work/a2a.csv" > "$work/a2a.out" 2> "$work/a2a.err" \
  || { cat "$work/a2a.err"; fail "all-to-all over shm exited $?"; }
grep -q "round 3" "$work/a2a.out" || { cat "$work/a2a.out"; fail "no plan of 3 rounds"; }
check_json "$work/a2a.json" '
assert doc["schema"] == {"name": "xfer.cluster", "version": 1}, doc["schema"]
assert doc["run"]["outcome"] == "complete", doc["run"]
assert doc["config"]["ranks"] == 4 and doc["plan"]["rounds"] == 3
assert len(cells) == 24 and len(ok) == 24, [c["reason"] for c in cells]
assert {(c["source"], c["target"]) for c in cells} == {(a, b) for a in range(4) for b in range(4) if a != b}
assert all(c["transport"] == "shm" and c["median_gbps"] > 0 for c in ok)
for m in doc["heat_maps"]:
    for a in range(4):
        for b in range(4):
            assert (m["gbps"][a][b] is None) == (a == b), (a, b, m["gbps"])
assert all(r["registered_bytes"] == 2 * 2**20 and r["max_rss_bytes"] > 0 for r in doc["ranks"])
assert len({r["engine_address"] for r in doc["ranks"]}) == 4
'
# The CSV: the same 24 cells, a row each, with their flow and figures.
/usr/bin/python3 - "$work/a2a.csv" "$work/a2a.json" <<'PY' || fail "a2a.csv disagrees with a2a.json"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
cells = json.load(open(sys.argv[2]))["cells"]
assert len(rows) == len(cells) == 24, (len(rows), len(cells))
for row, cell in zip(rows, cells):
    assert (int(row["source"]), int(row["target"])) == (cell["source"], cell["target"]), (row, cell)
    assert row["status"] == "ok" and row["path_transport"] == "shm", row
    assert abs(float(row["median_GB_per_s"]) - cell["median_gbps"]) < 1e-5, (row, cell)
PY
# The tables: a heat map row per rank and the slowest pairs.
grep -q "slowest" "$work/a2a.out" || { cat "$work/a2a.out"; fail "no slowest pairs"; }

# Over tcp: pairwise (12 flows), incast into rank 2 (3 flows), ring (4),
# both host directions.
run_tcp() {
  local scheme=$1; shift
  timeout 180 mpirun -np 4 "$xfer" matrix --scheme "$scheme" "$@" --transports tcp \
    --directions H2rH,rH2H "${common[@]}" --json "$work/$scheme.json" \
    > "$work/$scheme.out" 2> "$work/$scheme.err" \
    || { cat "$work/$scheme.err"; fail "$scheme over tcp exited $?"; }
}
run_tcp all-to-all
check_json "$work/all-to-all.json" '
assert doc["run"]["outcome"] == "complete" and doc["plan"]["rounds"] == 3
assert len(cells) == 12 * 2 * 2 == len(ok), [c["reason"] for c in cells]
assert all(c["transport"] == "tcp" for c in ok)
'
run_tcp pairwise
check_json "$work/pairwise.json" '
assert doc["run"]["outcome"] == "complete"
assert doc["plan"]["rounds"] == 6 and len(cells) == 12 * 2 * 2 == len(ok)
assert all(len(s["flows"]) == 1 for s in doc["plan"]["steps"])
assert {c["direction"] for c in cells} == {"H2rH", "rH2H"}
assert {c["op"] for c in cells} == {"write", "read"}, {c["op"] for c in cells}
assert all(c["transport"] == "tcp" for c in ok)
'
run_tcp incast --incast_target 2
check_json "$work/incast.json" '
assert doc["run"]["outcome"] == "complete" and doc["config"]["incast_target"] == 2
assert len(cells) == 3 * 2 * 2 == len(ok)
assert {c["source"] for c in cells} == {0, 1, 3} and {c["target"] for c in cells} == {2}
agg = doc["aggregates"]
assert len(agg) == 4 and all(a["flows"] == 3 and a["measured"] == 3 for a in agg)
for a in agg:
    mine = [c["median_gbps"] for c in ok if c["direction"] == a["direction"] and c["block_size"] == a["block_size"]]
    assert abs(sum(mine) - a["sum_gbps"]) < 1e-6 * a["sum_gbps"], (mine, a)
    assert abs(min(mine) - a["slowest_gbps"]) < 1e-9, (mine, a)
'
# fan-out from rank 1: its three flows at once, one per thread.
run_tcp fan-out --fan_out_source 1
check_json "$work/fan-out.json" '
assert doc["run"]["outcome"] == "complete" and doc["config"]["fan_out_source"] == 1
assert len(cells) == 3 * 2 * 2 == len(ok), [c["reason"] for c in cells]
assert {c["source"] for c in cells} == {1} and {c["target"] for c in cells} == {0, 2, 3}
assert all(a["flows"] == 3 and a["measured"] == 3 for a in doc["aggregates"])
assert all(len(c["sample_seconds"]) == 3 for c in ok)
'
run_tcp ring
check_json "$work/ring.json" '
assert doc["run"]["outcome"] == "complete"
assert sorted((c["source"], c["target"]) for c in cells if c["direction"] == "H2rH" and c["block_size"] == 16384) == [(0, 1), (1, 2), (2, 3), (3, 0)]
assert len(ok) == 16
'

# Refusals, before any rank measures: exit 2 and the problem named.
expect_usage_error() {
  local want=$1; shift
  set +e
  "$xfer" matrix "$@" > "$work/refused.out" 2> "$work/refused.err"
  local rc=$?
  set -e
  [[ $rc -eq 2 ]] || fail "'$*' exited $rc, not 2"
  grep -q -- "$want" "$work/refused.err" || { cat "$work/refused.err"; fail "'$*' did not say '$want'"; }
}
expect_usage_error "no <host>" --scheme ring node-b
expect_usage_error "not a scheme\|all-to-all" --scheme everywhere
expect_usage_error "host memory only" --scheme ring --directions D2rD
expect_usage_error "one transport" --scheme ring --transports shm,tcp
expect_usage_error "only with --scheme incast" --scheme ring --incast_target 1
expect_usage_error "only with --scheme fan-out" --scheme incast --fan_out_source 1
expect_usage_error "only with --scheme" --rank_devices mlx5_0
expect_usage_error "no place for ranks" --scheme ring --markdown x.md
# One rank is no cluster: mpirun -np 1 is refused by the schedule.
set +e
timeout 60 mpirun -np 1 "$xfer" matrix --scheme ring "${common[@]}" > /dev/null 2> "$work/one.err"
rc=$?
set -e
[[ $rc -ne 0 ]] || fail "a one-rank cluster ran"
grep -q "2 ranks\|two ranks\|at least" "$work/one.err" || { cat "$work/one.err"; fail "one rank: no reason"; }
# Issue 43, item 11: a schedule the ranks cannot run is bad usage: exit 2,
# one line from rank 0 only, no MPI_Abort noise; and without mpirun at all.
set +e
timeout 60 mpirun -np 2 "$xfer" matrix --scheme incast --incast_target 5 "${common[@]}" \
  > /dev/null 2> "$work/incast.err"
rc=$?
set -e
[[ $rc -eq 2 ]] || { cat "$work/incast.err"; fail "--incast_target 5 of 2 ranks exited $rc, not 2"; }
[[ $(grep -c "xfer: matrix:" "$work/incast.err") -eq 1 ]] ||
  { cat "$work/incast.err"; fail "--incast_target 5: not one line from rank 0"; }
grep -q "not a rank of this run" "$work/incast.err" || { cat "$work/incast.err"; fail "no reason"; }
! grep -q "MPI_ABORT\|ORTE_ERROR_LOG" "$work/incast.err" ||
  { cat "$work/incast.err"; fail "--incast_target 5: MPI noise"; }
set +e
env -u OMPI_COMM_WORLD_SIZE -u PMIX_RANK -u PMI_RANK -u PMI_SIZE \
  "$xfer" matrix --scheme ring "${common[@]}" > /dev/null 2> "$work/alone.err"
rc=$?
set -e
[[ $rc -eq 2 ]] || { cat "$work/alone.err"; fail "--scheme without mpirun exited $rc, not 2"; }
grep -q "runs as ranks under mpirun" "$work/alone.err" || { cat "$work/alone.err"; fail "no reason"; }
# Issue 43, item 4: a device this host does not have is refused by the rank
# given it, naming it, instead of being printed and ignored.
set +e
timeout 60 mpirun -np 2 "$xfer" matrix --scheme pairwise --transports tcp \
  --rank_devices no_such_dev0 "${common[@]}" > "$work/nodev.out" 2> "$work/nodev.err"
rc=$?
set -e
[[ $rc -ne 0 ]] || fail "--rank_devices no_such_dev0 ran"
grep -q "given RDMA device 'no_such_dev0', which this host does not have" "$work/nodev.err" ||
  { cat "$work/nodev.err"; fail "--rank_devices no_such_dev0: not named"; }
echo "cluster_schemes: ok"
