#!/usr/bin/env bash
# `xfer doctor` on a real kernel's sysfs. Runs INSIDE the Soft-RoCE VM booted
# with two virtio-net NICs (see scripts/softroce-vm --nic):
#   scripts/softroce-vm --mtu 9000 --nic 25000 --nic 25000:5x4 -- \
#       bash tests/softroce/doctor.sh build/release
# nic0/rxe2 sits on the root complex at 25 Gb/s (no PCIe link); nic1/rxe3
# sits behind a pcie-root-port capable of 5 GT/s x4 whose link trained at
# 2.5 GT/s x1 (QEMU 7.2's endpoints are all 2.5 GT/s x1); rxe0 sits on veth.
# Every figure checked below is what the kernel reports, turned into a
# ceiling by doctor.md §2. Exit status: the number of failures.
set -uo pipefail

build=${1:?usage: doctor.sh BUILD_DIR}
xfer="$build/src/cli/xfer"
failures=0
log=$(mktemp -d)

fail() { printf 'FAIL: %s\n' "$*"; failures=$((failures + 1)); }
pass() { printf 'ok:   %s\n' "$*"; }

# check NAME FILE PATTERN...: FILE holds every (fixed-string) PATTERN.
check() {
  local name=$1 file=$2 pattern missing=()
  shift 2
  for pattern in "$@"; do
    grep -qF -- "$pattern" "$file" || missing+=("$pattern")
  done
  if ((${#missing[@]})); then
    fail "$name: missing '${missing[0]}'"
    sed 's/^/      | /' "$file" | head -40
    return
  fi
  pass "$name"
}

# json_value FILE EXPR: a Python expression over the document `d`.
json_value() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# Case (a): a 25 Gb/s link taken down to 10 Gb/s from inside the guest.
"$xfer" doctor -d rxe2 >"$log/a25.txt" 2>&1 || fail "doctor -d rxe2 exited $?"
check "25 Gb/s port: 24.51 Gb/s at MTU 4096, port-bound, capability unknown" "$log/a25.txt" \
  "speed      25000 Mb/s" "active MTU   4096 B" \
  "expected     3.064 GB/s = 24.51 Gb/s" "bound by port rate 25 Gb/s" \
  "capability unknown" "no PCIe link on this path (0000:00:01.0 sits on the root complex"
ethtool -s nic0 speed 10000 duplex full
"$xfer" doctor -d rxe2 >"$log/a10.txt" 2>&1 || fail "doctor -d rxe2 (10G) exited $?"
check "after ethtool -s 10000: 9.804 Gb/s, port-bound" "$log/a10.txt" \
  "rate         10 Gb/sec" "speed      10000 Mb/s" \
  "expected     1.225 GB/s = 9.804 Gb/s = 1168.70 MiB/s" "bound by port rate 10 Gb/s"
"$xfer" doctor -d rxe2 --json "$log/a10.json" >/dev/null 2>&1
bytes=$(json_value "$log/a10.json" "round(d['ports'][0]['ceiling']['bytes_per_sec'])")
[[ $bytes == 1225466730 ]] && pass "--json ceiling 1225466730 B/s" ||
  fail "--json ceiling: $bytes B/s, wanted 1225466730 (10 Gb/s x 4096/4178)"

# A slot that limits the NIC: the bridge walk names the trained-down link.
"$xfer" doctor -d rxe3 >"$log/b.txt" 2>&1 || fail "doctor -d rxe3 exited $?"
check "root port 5 GT/s x4 trained at 2.5 GT/s x1: PCIe-bound, virtual" "$log/b.txt" \
  "current 2.5 GT/s x1  max 5 GT/s x4  (virtual: QEMU PCIe root port)" \
  "bound by PCIe 1.0 x1 link" "(virtual: emulated links carry no physical limit)" \
  "runs at 2.5 GT/s x1, below its capability 5 GT/s x4"

# veth: a netdev with no device under it.
"$xfer" doctor -d rxe0 >"$log/v.txt" 2>&1 || fail "doctor -d rxe0 exited $?"
check "rxe on veth: no PCIe link invented" "$log/v.txt" \
  "no PCIe link on this path (rxe0 is software RDMA on vethA" "bound by port rate 10 Gb/s"

# A verdict on a measured run: write_bw over rxe3 to itself. TCG moves a
# few hundred Mb/s, a small part of both ceilings.
"$xfer" write_bw -d rxe3 -x 1 -n 200 --timeout 60 >"$log/server.txt" 2>&1 &
server=$!
timeout 120 "$xfer" write_bw -d rxe3 -x 1 -n 200 --timeout 60 --json "$log/run.json" \
  169.254.78.2 >"$log/client.txt" 2>&1 || fail "write_bw on rxe3 exited $?"
wait "$server" || fail "write_bw server on rxe3 exited $?"
if [[ -s $log/run.json ]]; then
  # The run recorded the same ceiling the doctor derives for its port.
  "$xfer" doctor -d rxe3 --json "$log/b.json" >/dev/null 2>&1
  want=$(json_value "$log/b.json" "round(d['ports'][0]['ceiling']['bytes_per_sec'])")
  got=$(json_value "$log/run.json" "round(d['results'][0]['ceiling']['bytes_per_sec'])")
  [[ -n $want && $got == "$want" ]] && pass "write_bw --json records the doctor's ceiling ($got B/s)" ||
    fail "write_bw --json ceiling $got B/s, the doctor says $want"
  "$xfer" doctor -d rxe3 --run "$log/run.json" >"$log/verdict.txt" 2>&1 ||
    fail "doctor --run exited $?"
  check "a measured run is neither link- nor PCIe-bound" "$log/verdict.txt" \
    "RDMA_Write_BW_Test at 65536 B: expected 214.91 MiB/s" "not link-bound: CPU, per-QP engine or emulation"
else
  fail "write_bw wrote no JSON"; tail -5 "$log/client.txt"
fi

printf 'doctor in the VM: %d failure(s)\n' "$failures"
rm -rf "$log"
exit $((failures > 100 ? 100 : failures))
