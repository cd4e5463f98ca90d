#!/usr/bin/env bash
# A real link lost under a striped connection: two network namespaces
# joined by two veth pairs (tcp rails), each shaped to RATE so that the
# links bind. failover_peer.py streams verified WRITE+READ steps of SIZE
# bytes: first over rail 0 alone (what one rail carries), then over both
# rails, twice, each time breaking rail 1 mid-stream:
#   - silently: rail 1's frames sent to a MAC address nobody has, so the
#     peer drops every one while the link stays up and nothing announces
#     it; the slice timeout (half of --io-timeout) finds it;
#   - announced: `ip link set <rail 1's veth> down`; the kernel says so over
#     netlink, and the tcp rail fails at once.
# Each fault is then mended (the neighbour entry removed, the link set up)
# while the stream goes on, and the engines set rail 1 up again on their
# own (EngineOptions::rail_rejoin_backoff).
#
# Checked: no step fails, every byte read back is what was written, rail 1
# is down naming the right cause and rail 0 up before the mend, and both up
# after it. Printed against the issue's goals: the recovery (the step in
# flight at the fault, from the fault to its completion; goals: 200 ms
# announced, slice timeout + 200 ms silent), the survivor's rate against
# rail 0 alone before (>= 0.9), and the return: from the mend to the first
# step that moved bytes on rail 1 again (<= 5 s).
#
#   failover_netns.sh PYTHONPATH [--gate] [RATE] [SIZE]
# --gate also fails the run when a goal is missed (bench/failover.sh);
# without it (ctest on a shared CI host) the goals are printed, not judged.
# Needs root, iproute2's netns and the Python module; exits 77 (ctest:
# skipped) without them.
set -uo pipefail
export PYTHONPATH=$1
shift
gate=0
if [[ ${1:-} == --gate ]]; then gate=1; shift; fi
rate=${1:-1gbit}
size=${2:-$((4 << 20))}
python=/usr/bin/python3
here=$(cd "$(dirname "$0")" && pwd)
if ! "$python" -c 'import xfer' 2>/dev/null; then
  echo "SKIP: the xfer Python module is not under $PYTHONPATH"
  exit 77
fi
source "$here/netns_rails.sh"
netns_rails_up 2 "$rate"
rc=$?
((rc == 0)) || exit "$rc"
work=$(mktemp -d)
trap 'kill "$target" 2>/dev/null; netns_rails_down; rm -rf "$work"' EXIT

io_timeout=2.0  # the slice timeout: 1 s
port=$((20000 + RANDOM % 20000))
mkfifo "$work/target_in"
ip netns exec "$rails_b" "$python" "$here/failover_peer.py" target --size "$size" --phases 3 \
  --listen "$rails_server:$port" --io-timeout "$io_timeout" \
  <"$work/target_in" >"$work/target_out" 2>&1 &
target=$!
exec 3>"$work/target_in"  # the target stays until this closes
for _ in $(seq 100); do
  [[ -s $work/target_out ]] && break
  sleep 0.1
done
region=$("$python" -c 'import json,sys; print(json.loads(sys.stdin.readline())["region"])' \
  <"$work/target_out") || { echo "FAIL: the target did not start"; cat "$work/target_out"; exit 1; }

# Silent: rail 1's frames go to a MAC address nobody has, so the peer's
# veth drops them, while the link stays up and nothing is announced (a
# switch that blackholes a port; tc's netem is not in every kernel).
veth="xa${rails_tag}2"
peer_ip="$rails_net.2.2"
faults=$(cat <<JSON
[{"name": "silent",
  "cmd": "ip neigh replace $peer_ip lladdr 02:00:00:00:00:01 dev $veth nud permanent",
  "restore": "ip neigh del $peer_ip dev $veth"},
 {"name": "announced", "cmd": "ip link set $veth down", "restore": "ip link set $veth up"}]
JSON
)
ip netns exec "$rails_a" "$python" "$here/failover_peer.py" initiator --size "$size" \
  --connect "$rails_server:$port" --region "$region" --io-timeout "$io_timeout" \
  --baseline 2 --before 1.5 --after 3 --back 3 --faults "$faults" >"$work/result" 2>"$work/err"
initiator_rc=$?
exec 3>&-
wait "$target"
cat "$work/result"
[[ -s $work/err ]] && cat "$work/err"

"$python" - "$work/result" "$initiator_rc" "$io_timeout" "$gate" <<'EOF'
import json, sys
path, rc, io_timeout, gate = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4] == "1"
try:
    r = json.load(open(path))
except ValueError:
    print("FAIL: the initiator printed no result"); sys.exit(1)
failures = []
if rc != 0 or r["errors"]:
    failures.append(f"the initiator exited {rc}: {r['errors']}")
slice_ms = io_timeout / 2 * 1e3
# What names each fault's cause in rail 1's failure, and the recovery goal.
expected = {"silent": ("silent: slices in flight", slice_ms + 200,
                       f"slice timeout {slice_ms:.0f} + 200"),
            "announced": ("(the kernel announced it)", 200, "an announced loss")}
goals = []
one = r.get("one_rail_gb_per_s", 0)
for f in r["faults"]:
    name = f["name"]
    cause, limit, why = expected[name]
    if f.get("cmd_rc") != 0: failures.append(f"{name}: the command breaking rail 1 failed")
    state = f.get("rail_state", [])
    if len(state) != 2 or not state[0]["up"] or state[1]["up"]:
        failures.append(f"{name}: expected rail 0 up and rail 1 down: {state}")
    elif cause not in state[1]["failure"]:
        failures.append(f"{name}: rail 1 went down for another cause: {state[1]['failure']}")
    if "recovery_ms" not in f:
        failures.append(f"{name}: no step completed after the fault")
        continue
    if f.get("unfenced"): failures.append(f"{name}: WRITEs dealt again unfenced: {f['unfenced']}")
    back = f.get("rail_state_back", [])
    if f.get("restore_rc") != 0: failures.append(f"{name}: the command mending rail 1 failed")
    if len(back) != 2 or not back[0]["up"] or not back[1]["up"]:
        failures.append(f"{name}: expected both rails up after the mend: {back}")
    if "detected_ms" in f:
        goals.append((f"{name}: rail 1 down (engine's record)",
                      f"{f['detected_ms']:.0f} ms after the fault", "(printed)", True))
    goals.append((f"{name}: recovery", f"{f['recovery_ms']:.0f} ms",
                  f"<= {limit:.0f} ms ({why})", f["recovery_ms"] <= limit))
    if one:
        ratio = f["survivor_gb_per_s"] / one
        goals.append((f"{name}: survivor / rail 0 alone",
                      f"{ratio:.2f} ({f['survivor_gb_per_s']:.3f} / {one:.3f} GB/s)",
                      ">= 0.90", ratio >= 0.90))
        goals.append((f"{name}: two rails / one, before",
                      f"{f['two_rails_gb_per_s'] / one:.2f}", "(printed)", True))
    if "returned_ms" in f:
        goals.append((f"{name}: rail 1 up again (engine's record)",
                      f"{f['returned_ms']:.0f} ms after the mend", "(printed)", True))
    if "carrying_ms" not in f:
        failures.append(f"{name}: rail 1 carried nothing within the stream after the mend")
    else:
        goals.append((f"{name}: return, the mend to bytes on rail 1",
                      f"{f['carrying_ms']:.0f} ms", "<= 5000 ms", f["carrying_ms"] <= 5000))
        if one and f.get("back_gb_per_s"):
            goals.append((f"{name}: two rails / one, after the return",
                          f"{f['back_gb_per_s'] / one:.2f}", "(printed)", True))
print(f"{'figure':48} {'measured':32} {'goal':34} met")
for name, value, goal, met in goals:
    print(f"{name:48} {value:32} {goal:34} {'yes' if met else 'NO'}")
    if gate and not met: failures.append(f"{name}: {value}, goal {goal}")
if not r["errors"]:
    steps = sum(f.get("steps", 0) for f in r["faults"])
    print(f"{steps} two-rail steps, each verified byte for byte: none failed")
for f in failures: print("FAIL:", f)
sys.exit(1 if failures else 0)
EOF
