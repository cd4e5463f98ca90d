#!/usr/bin/env bash
# The verbs test suite. Runs INSIDE the Soft-RoCE VM (rxe0 on vethA and
# rxe1 on vethB, see scripts/softroce-vm):
#   scripts/softroce-vm -- bash tests/softroce/run.sh build/release
# or, for the interop pairs alone against another perftest install (see
# DEVELOPERS.md for building upstream perftest in a session):
#   scripts/softroce-vm -- bash tests/softroce/run.sh build/release \
#       --perftest build/perftest-6.29/bin --only interop
# Every test runs a real server and a real client process, one on each
# device, and checks exit statuses and the printed rows; the engine's verbs
# suites check data byte for byte. Exit status: the number of failures
# (0 = all passed), capped at 100.
set -uo pipefail

usage="usage: run.sh BUILD_DIR [--perftest BIN_DIR] [--only SECTION]"
build=${1:?$usage}
shift
# Stock perftest's binaries: Debian's (on PATH) unless --perftest names a
# folder holding ib_write_bw and its siblings.
perftest_bin=""
# One section of: devices pairs interop errors matrix libxfer failover
# cluster; all
# if empty.
only=""
while (($#)); do
  case $1 in
    --perftest) perftest_bin=${2:?$usage}/; shift 2 ;;
    --only) only=${2:?$usage}; shift 2 ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
want() { [[ -z $only || $only == "$1" ]]; }
xfer="$build/src/cli/xfer"
# Generous: an 8 MiB message of -a crosses the emulated link in seconds on a
# busy machine, and --timeout bounds the wait for each completion.
timeout_s=60
failures=0
passed=0
log=$(mktemp -d)

note() { printf '%s\n' "$*"; }
fail() { note "FAIL: $*"; failures=$((failures + 1)); }
pass() { note "ok:   $* [$((SECONDS - started))s]"; passed=$((passed + 1)); }
started=$SECONDS
begin() { started=$SECONDS; }

# run_pair NAME EXPECTED_ROWS SERVER_ARGS -- CLIENT_ARGS
# Starts `xfer SERVER_ARGS` on rxe0 and `xfer CLIENT_ARGS 127.0.0.1` on
# rxe1; both must exit 0 and the client must print EXPECTED_ROWS result rows.
run_pair() {
  local name=$1 rows=$2; shift 2
  local server=() client=()
  begin
  while [[ $1 != -- ]]; do server+=("$1"); shift; done
  shift
  client=("$@")
  "$xfer" "${server[@]}" -d rxe0 -x 1 --timeout "$timeout_s" >"$log/s.out" 2>&1 &
  local spid=$!
  timeout 300 "$xfer" "${client[@]}" -d rxe1 -x 1 --timeout "$timeout_s" 127.0.0.1 \
    >"$log/c.out" 2>&1
  local crc=$?
  timeout 120 tail --pid="$spid" -f /dev/null
  wait "$spid"; local src=$?
  local got
  got=$(grep -cE '^ [0-9]+ +[0-9]+ ' "$log/c.out")
  if [[ $crc -ne 0 || $src -ne 0 || $got -ne $rows ]]; then
    fail "$name (client rc=$crc, server rc=$src, rows=$got/$rows)"
    sed 's/^/      client| /' "$log/c.out" | tail -8
    sed 's/^/      server| /' "$log/s.out" | tail -8
    return
  fi
  pass "$name"
}

# expect_error NAME PATTERN CMD...: CMD must exit non-zero within 60 s and
# print PATTERN.
expect_error() {
  local name=$1 pattern=$2; shift 2
  begin
  timeout 60 "$@" >"$log/e.out" 2>&1
  local rc=$?
  if [[ $rc -eq 0 || $rc -eq 124 ]] || ! grep -q -- "$pattern" "$log/e.out"; then
    fail "$name (rc=$rc, wanted '$pattern')"
    sed 's/^/      | /' "$log/e.out" | tail -6
    return
  fi
  pass "$name"
}

# --use_hugepages needs reserved 2 MiB pages; the VM starts with none.
echo 16 >/proc/sys/vm/nr_hugepages
# A 1 MiB READ response is 1024 packets, above the default backlog of
# 1000; rxe on Debian's 6.1 kernel then drops packets and errors the QP.
sysctl -qw net.core.netdev_max_backlog=30000
export XFER_TEST_VERBS_DEVICES=rxe0,rxe1

# Stock perftest neither retries its connect nor knows --timeout; the
# client starts once the server listens.
wait_listening() {
  for _ in $(seq 100); do
    ss -ltn | grep ':18515 ' >/dev/null && return 0
    sleep 0.1
  done
  return 1
}

# tool KIND TEST: the command line head of xfer's or stock perftest's TEST;
# $xfer_extra holds flags only xfer gets (stock perftest would refuse them).
xfer_extra=""
tool() {
  if [[ $1 == xfer ]]; then echo "$xfer $2 --timeout $timeout_s $xfer_extra"; else echo "${perftest_bin}ib_$2"; fi
}

# Last result row's "#bytes #iterations" in FILE, or "" when none.
last_row_key() { grep -E '^ [0-9]+ +[0-9]+ ' "$1" | tail -1 | awk '{print $1, $2}'; }

# run_interop SERVER_KIND CLIENT_KIND ROWS TEST ARGS...: one side xfer,
# the other stock perftest. Both must exit 0, the client must print ROWS
# rows, and a server that prints a row must report the same size and
# iteration count as the client.
run_interop() {
  local skind=$1 ckind=$2 rows=$3 test=$4; shift 4
  local name="$test $* ($skind server, $ckind client)"
  begin
  # shellcheck disable=SC2046
  $(tool "$skind" "$test") "$@" -d rxe0 -x 1 >"$log/s.out" 2>&1 &
  local spid=$!
  wait_listening
  # shellcheck disable=SC2046
  timeout 300 $(tool "$ckind" "$test") "$@" -d rxe1 -x 1 127.0.0.1 >"$log/c.out" 2>&1
  local crc=$?
  timeout 120 tail --pid="$spid" -f /dev/null || kill -9 "$spid" 2>/dev/null
  wait "$spid"; local src=$?
  local got server_key client_key
  got=$(grep -cE '^ [0-9]+ +[0-9]+ ' "$log/c.out")
  client_key=$(last_row_key "$log/c.out")
  server_key=$(last_row_key "$log/s.out")
  if [[ $crc -ne 0 || $src -ne 0 || $got -ne $rows ]] ||
     [[ -n $server_key && $server_key != "$client_key" ]]; then
    fail "$name (client rc=$crc, server rc=$src, rows=$got/$rows, server row '$server_key' vs client '$client_key')"
    sed 's/^/      client| /' "$log/c.out" | tail -8
    sed 's/^/      server| /' "$log/s.out" | tail -8
    return
  fi
  pass "$name"
}

if want devices; then
  note "== xfer devices"
  if "$xfer" devices >"$log/dev.out" 2>&1 && grep -q rxe0 "$log/dev.out" &&
     grep -q rxe1 "$log/dev.out" && grep -q PORT_ACTIVE "$log/dev.out"; then
    pass "devices lists rxe0 and rxe1, active"
  else
    fail "devices"; tail -20 "$log/dev.out"
  fi
fi

if want pairs; then
  note "== perftest tests, xfer against xfer (rxe0 <-> rxe1)"
  # Small messages keep the emulated link quick; 4 KiB still spans 4 packets
  # at the veth's 1024-byte RoCE MTU.
  bw=(-s 4096 -n 200)
  for q in 1 4; do
    for c in RC UC; do
      run_pair "write_bw -c $c -q $q" 1 write_bw "${bw[@]}" -c $c -q $q -- write_bw "${bw[@]}" -c $c -q $q
      run_pair "send_bw -c $c -q $q" 1 send_bw "${bw[@]}" -c $c -q $q -- send_bw "${bw[@]}" -c $c -q $q
    done
    run_pair "send_bw -c UD -q $q" 1 send_bw -s 1024 -n 200 -c UD -q $q -- send_bw -s 1024 -n 200 -c UD -q $q
    run_pair "read_bw -q $q" 1 read_bw "${bw[@]}" -q $q -- read_bw "${bw[@]}" -q $q
    run_pair "atomic_bw -q $q" 1 atomic_bw -n 200 -q $q -- atomic_bw -n 200 -q $q
  done
  run_pair "atomic_bw -A CMP_AND_SWAP" 1 atomic_bw -n 200 -A CMP_AND_SWAP -- atomic_bw -n 200 -A CMP_AND_SWAP
  run_pair "write_bw -b" 1 write_bw "${bw[@]}" -b -- write_bw "${bw[@]}" -b
  run_pair "read_bw -b -q 2" 1 read_bw "${bw[@]}" -b -q 2 -- read_bw "${bw[@]}" -b -q 2
  run_pair "send_bw -b -q 2" 1 send_bw "${bw[@]}" -b -q 2 -- send_bw "${bw[@]}" -b -q 2
  run_pair "send_bw -b -c UD" 1 send_bw -s 1024 -n 200 -b -c UD -- send_bw -s 1024 -n 200 -b -c UD
  # -a always climbs to 8 MiB; -n 5 (perftest's minimum) keeps the emulated
  # link's share of the sweep to seconds.
  run_pair "write_bw -a" 23 write_bw -a -n 5 -- write_bw -a -n 5
  run_pair "send_bw -a -c UD" 10 send_bw -a -n 50 -c UD -- send_bw -a -n 50 -c UD
  run_pair "write_bw -D 2" 1 write_bw -s 4096 -D 2 -- write_bw -s 4096 -D 2
  run_pair "read_bw --perform_warm_up -q 2" 1 read_bw "${bw[@]}" --perform_warm_up -q 2 -- \
    read_bw "${bw[@]}" --perform_warm_up -q 2
  run_pair "write_bw -l 4 -Q 2" 1 write_bw "${bw[@]}" -l 4 -Q 2 -- write_bw "${bw[@]}" -l 4 -Q 2
  run_pair "write_bw -I 64 -s 64" 1 write_bw -s 64 -n 500 -I 64 -- write_bw -s 64 -n 500 -I 64
  run_pair "read_bw -o 1" 1 read_bw "${bw[@]}" -o 1 -- read_bw "${bw[@]}" -o 1
  run_pair "write_bw --report_gbits -m 512" 1 write_bw "${bw[@]}" --report_gbits -m 512 -- write_bw "${bw[@]}" --report_gbits -m 512
  run_pair "write_bw --use_hugepages" 1 write_bw "${bw[@]}" --use_hugepages -- write_bw "${bw[@]}" --use_hugepages
  for c in RC UC; do
    run_pair "write_lat -c $c" 1 write_lat -n 200 -c $c -- write_lat -n 200 -c $c
    run_pair "send_lat -c $c" 1 send_lat -n 200 -c $c -- send_lat -n 200 -c $c
  done
  run_pair "send_lat -c UD" 1 send_lat -n 200 -c UD -- send_lat -n 200 -c UD
  run_pair "read_lat" 1 read_lat -n 200 -- read_lat -n 200
  run_pair "atomic_lat" 1 atomic_lat -n 200 -- atomic_lat -n 200
  run_pair "write_lat -a" 23 write_lat -a -n 5 -- write_lat -a -n 5
  for t in send_lat write_lat read_lat; do
    run_pair "$t -D 2" 1 $t -D 2 -- $t -D 2
  done
fi

if want interop; then
  stock_version=$("${perftest_bin}ib_write_bw" --version 2>/dev/null | awk '{print $2}')
  note "== interop with stock perftest $stock_version (both roles)"

  for roles in "stock xfer" "xfer stock"; do
    read -r skind ckind <<<"$roles"
    for q in 1 4; do
      run_interop "$skind" "$ckind" 1 write_bw -s 4096 -n 200 -q $q
      run_interop "$skind" "$ckind" 1 read_bw -s 4096 -n 200 -q $q
      run_interop "$skind" "$ckind" 1 send_bw -s 4096 -n 200 -q $q
      run_interop "$skind" "$ckind" 1 atomic_bw -n 200 -q $q
    done
    for t in write_bw read_bw send_bw; do
      run_interop "$skind" "$ckind" 23 $t -a -n 5
    done
    run_interop "$skind" "$ckind" 1 write_bw -s 4096 -n 200 -b
    run_interop "$skind" "$ckind" 1 read_bw -s 4096 -n 200 -b -q 2
    run_interop "$skind" "$ckind" 1 send_bw -s 4096 -n 200 -b
    run_interop "$skind" "$ckind" 1 send_bw -s 1024 -n 200 -c UD
    run_interop "$skind" "$ckind" 1 send_lat -n 200 -c UD
    run_interop "$skind" "$ckind" 10 send_bw -a -n 50 -c UD
    run_interop "$skind" "$ckind" 1 write_bw -s 4096 -D 2
    # Only the client warms up, so only an xfer client tests xfer's warm-up;
    # a stock 4.5 client's own --perform_warm_up did not finish on rxe in
    # the VM (killed after 300 s, the xfer server merely waiting).
    if [[ $ckind == xfer ]]; then
      run_interop "$skind" "$ckind" 1 write_bw -s 4096 -n 200 --perform_warm_up
    fi
    for t in write_lat read_lat send_lat atomic_lat; do
      run_interop "$skind" "$ckind" 1 $t -n 200
    done
  done
  # The xfer server of write_bw prints the stock client's row and keeps it
  # in --json as the peer's.
  xfer_extra="--json $log/server.json"
  run_interop xfer stock 1 write_bw -s 4096 -n 200
  xfer_extra=""
  begin
  if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d["peer_results"][0]; sys.exit(0 if r["MsgSize"]==4096 and r["n_iterations"]==200 and r["BW_average"]>0 else 1)' "$log/server.json"; then
    pass "--json records the stock client's results on the xfer server"
  else
    fail "--json peer_results"; cat "$log/server.json" 2>/dev/null | head -40
  fi

  # perftest 4.5 cannot tell a mismatched peer (6.28+ names the field);
  # xfer must, within --timeout.
  "${perftest_bin}ib_write_bw" -d rxe0 -x 1 -n 200 >"$log/m.out" 2>&1 &
  mpid=$!
  wait_listening
  expect_error "stock server with -q 1, xfer client with -q 2" \
    "timeout\|closed\|num_of_qps mismatch (-q)" \
    "$xfer" write_bw -d rxe1 -x 1 -n 200 -q 2 --timeout 5 127.0.0.1
  kill -9 "$mpid" 2>/dev/null; wait "$mpid" 2>/dev/null
  # A 6.28+ stock client negotiates: the xfer server names the mismatch.
  if awk -v v="$stock_version" 'BEGIN { exit !(v + 0 >= 6.28) }'; then
    begin
    timeout 60 "$xfer" write_bw -d rxe0 -x 1 -s 4096 -n 200 --timeout 5 >"$log/m.out" 2>&1 &
    mpid=$!
    wait_listening
    timeout 60 "${perftest_bin}ib_write_bw" -d rxe1 -x 1 -s 8192 -n 200 127.0.0.1 >/dev/null 2>&1
    wait "$mpid"; mrc=$?
    if [[ $mrc -ne 0 && $mrc -ne 124 ]] && grep -q "size mismatch (-s): local=4096, remote=8192" "$log/m.out"; then
      pass "xfer server against a stock client with another -s names the flag"
    else
      fail "xfer server, stock client with another -s (rc=$mrc)"; tail -5 "$log/m.out"
    fi
  fi
fi

if want errors; then
  note "== bad input: clear error, non-zero exit, no hang"
  expect_error "unknown device" "no such RDMA device" "$xfer" write_bw -d mlx9 --loopback
  expect_error "GID index out of range" "gid-index" "$xfer" write_bw -d rxe0 -x 9 --loopback
  # perftest's --use_cuda on verbs (issue 29, §4): no GPU in the VM, so the
  # run stops at the driver's absence, saying so, before any QP exists.
  expect_error "--use_cuda without a GPU" "no NVIDIA driver" "$xfer" write_bw -d rxe0 -x 1 \
    --use_cuda 0 --use_cuda_dmabuf --loopback
  expect_error "UD message above the MTU" "must fit the MTU" "$xfer" send_bw -c UD -s 4096 -d rxe0 -x 1 --loopback
  # A mismatched pair: xfer advertises perftest 6.28, so both sides negotiate
  # and name the differing flag.
  "$xfer" write_bw -d rxe0 -x 1 -s 4096 --timeout 5 >"$log/m.out" 2>&1 &
  mpid=$!
  expect_error "peers with different -s" "size mismatch (-s)" "$xfer" write_bw -d rxe1 -x 1 -s 8192 --timeout 5 127.0.0.1
  wait "$mpid"
  "$xfer" write_bw -d rxe0 -x 1 -q 2 --timeout 5 >"$log/m.out" 2>&1 &
  mpid=$!
  expect_error "peers with different -q" "num_of_qps mismatch (-q)" "$xfer" write_bw -d rxe1 -x 1 --timeout 5 127.0.0.1
  wait "$mpid"
  # A stray HTTP request on the port is turned away; the real client runs.
  begin
  "$xfer" write_bw -d rxe0 -x 1 -s 4096 -n 200 --timeout 10 --accept_timeout 30 >"$log/m.out" 2>&1 &
  mpid=$!
  wait_listening
  (exec 3<>/dev/tcp/127.0.0.1/18515 && printf 'GET / HTTP/1.0\r\n\r\n' >&3)
  timeout 60 "${perftest_bin}ib_write_bw" -d rxe1 -x 1 -s 4096 -n 200 127.0.0.1 >"$log/c.out" 2>&1
  crc=$?
  wait "$mpid"; mrc=$?
  if [[ $crc -eq 0 && $mrc -eq 0 ]] && grep -q "not a perftest client (from 127.0.0.1)" "$log/m.out"; then
    pass "a stray HTTP request is turned away and the stock client runs"
  else
    fail "stray connection before the client (client rc=$crc, server rc=$mrc)"; tail -5 "$log/m.out"
  fi
  expect_error "dead server" "connecting to" "$xfer" write_bw -d rxe1 -x 1 --timeout 2 127.0.0.1
  /usr/sbin/ip link set vethB down
  sleep 0.5
  expect_error "port down" "PORT_DOWN" "$xfer" write_bw -d rxe1 -x 1 --loopback
  /usr/sbin/ip link set vethB up
  for _ in $(seq 50); do
    grep -q ACTIVE /sys/class/infiniband/rxe1/ports/1/state && break
    sleep 0.1
  done
fi

if want matrix; then
  note "== xfer matrix on libxfer's verbs transport (target rxe0, initiator rxe1)"
  # run_matrix NAME ARGS...: `xfer matrix ARGS` as the target on rxe0 and the
  # initiator on rxe1. Both must exit 0, and the JSON must hold every cell
  # measured over verbs (the path the engine reported) and verified.
  matrix_port=18600
  run_matrix() {
    local name=$1; shift
    begin
    matrix_port=$((matrix_port + 1))
    "$xfer" matrix "$@" -d rxe0 -x 1 -p "$matrix_port" --timeout "$timeout_s" >"$log/s.out" 2>&1 &
    local spid=$!
    timeout 300 "$xfer" matrix "$@" -d rxe1 -x 1 -p "$matrix_port" --timeout "$timeout_s" \
      --json "$log/m.json" 127.0.0.1 >"$log/c.out" 2>&1
    local crc=$?
    timeout 120 tail --pid="$spid" -f /dev/null || kill -9 "$spid" 2>/dev/null
    wait "$spid"; local src=$?
    if [[ $crc -ne 0 || $src -ne 0 ]] || ! python3 - "$log/m.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
cells = d["cells"]
assert d["run"]["outcome"] == "complete", d["run"]
assert cells, "no cells"
for c in cells:
    assert c["status"] == "ok", c
    assert c["path"]["transport"] == "verbs", c
    assert c["verified"] is True, c
    assert len(c["sample_seconds"]) == d["config"]["loops"], c
    # The ceiling of the initiator's port as the doctor derives it: rxe1 on
    # veth, which reports 10 Gb/s and has no PCIe link, so the port binds.
    ceiling = c["ceiling"]
    assert ceiling["source"].startswith("verbs: rxe1 port 1: port 10 Gb/s"), ceiling
    assert "no PCIe link on this path" in ceiling["source"], ceiling
    assert 1.0e9 < ceiling["bytes_per_sec"] < 1.25e9, ceiling
    fraction = c["median_gbps"] * 1e9 / ceiling["bytes_per_sec"]
    assert c["efficiency"] > 0 and abs(c["efficiency"] - fraction) < 1e-9 * fraction, c
assert any(p["device"] == "rxe1" for p in d["hosts"]["initiator"]["rdma"]), d["hosts"]
# Connecting over verbs registered the initiator's buffers with rxe1.
nic = [n for n in d["nic_registration"] if n["transport"] == "verbs"]
assert len(nic) == 1 and nic[0]["bytes"] > 0 and nic[0]["register_s"] > 0, d["nic_registration"]
PY
    then
      fail "matrix $name (initiator rc=$crc, target rc=$src)"
      sed 's/^/      initiator| /' "$log/c.out" | tail -12
      sed 's/^/      target| /' "$log/s.out" | tail -6
      return
    fi
    pass "matrix $name"
  }
  matrix=(--transports verbs --directions H2rH,rH2H --transfer_size 1M --verify --quiet)
  run_matrix "H2rH,rH2H 16K..1M --verify" "${matrix[@]}" --loops 2 --block_sizes 16K,64K,1M
  run_matrix "--streams 4 --batch 4 (striped)" "${matrix[@]}" --loops 2 --block_sizes 16K,256K \
    --streams 4 --batch 4
  run_matrix "hugepages on both sides" "${matrix[@]}" --loops 2 --block_sizes 64K --memory hugepage \
    --remote_memory hugepage
  # The target turns the refused initiator away and waits on for another,
  # until --accept_timeout.
  "$xfer" matrix "${matrix[@]}" --block_sizes 64K --loops 3 -d rxe0 -x 1 -p 18650 --timeout 10 \
    --accept_timeout 5 >"$log/m.out" 2>&1 &
  mpid=$!
  expect_error "matrix: peers with different --loops" "\-\-loops: target 3, initiator 2" \
    "$xfer" matrix "${matrix[@]}" --loops 2 --block_sizes 64K -d rxe1 -x 1 -p 18650 --timeout 10 127.0.0.1
  wait "$mpid"
  begin
  if grep -q "turned away the initiator from 127.0.0.1" "$log/m.out"; then
    pass "matrix: the target turns the refused initiator away and waits on"
  else
    fail "matrix: the target's log"; tail -5 "$log/m.out"
  fi
  # --wire xfer on verbs: xfer's protocol over libxfer's verbs transport,
  # the stack a --secret-file run gets (issue 28: the wire is its own flag).
  begin
  # Its JSON records the NIC's registration of the test buffer, made when
  # the connection was set up.
  if timeout 120 "$xfer" write_bw --loopback --wire xfer --transport verbs -d rxe0 -x 1 -n 200 \
       --json "$log/w.json" --timeout "$timeout_s" >"$log/w.out" 2>&1 &&
     grep -q 'Transport       : verbs' "$log/w.out" && [[ -n $(last_row_key "$log/w.out") ]] &&
     python3 - "$log/w.json" <<'PY'
import json, sys
nic = json.load(open(sys.argv[1]))["test_info"]["registration"]["nic"]
assert nic["bytes"] > 0 and nic["memory_registrations"] >= 1, nic
assert nic["register_s"] > 0 and nic["register_s_per_GiB"] > 0, nic
PY
  then
    pass "write_bw --wire xfer --transport verbs runs the engine's verbs transport"
  else
    fail "write_bw --wire xfer --transport verbs"; tail -20 "$log/w.out"
  fi
  # --device_path staged (issue 29, §3): the client's buffers bounce
  # through its engine's pinned staging memory, the NIC reads them there.
  begin
  if timeout 120 "$xfer" write_bw --loopback --transport verbs -d rxe0 -x 1 -s 3M -n 20 \
       --device_path staged --timeout "$timeout_s" >"$log/w.out" 2>&1 &&
     grep -q 'Local buffers   : staged through pinned host memory' "$log/w.out" &&
     [[ -n $(last_row_key "$log/w.out") ]]; then
    pass "write_bw --device_path staged runs over verbs through the engine's staging"
  else
    fail "write_bw --device_path staged over verbs"; tail -20 "$log/w.out"
  fi
  begin
  if timeout 300 "$xfer" matrix --loopback --transports verbs -d rxe0 -x 1 --transfer_size 8M \
       --block_sizes 64K,4M --loops 2 --verify --device_path staged --quiet \
       --json "$log/staged.json" --timeout "$timeout_s" >"$log/l.out" 2>&1 &&
     grep -q '"staged": *true' "$log/staged.json"; then
    pass "matrix --device_path staged: every verbs cell verified through staging"
  else
    fail "matrix --device_path staged over verbs"; tail -20 "$log/l.out"
  fi
  begin
  if timeout 300 "$xfer" matrix --loopback -d rxe0 -x 1 --transfer_size 1M --block_sizes 64K \
       --loops 2 --quiet --timeout "$timeout_s" >"$log/l.out" 2>&1 &&
     grep -q -- '--- verbs (path: verbs' "$log/l.out" && grep -q -- '--- tcp ' "$log/l.out"; then
    pass "matrix --loopback lists verbs among the default transports"
  else
    fail "matrix --loopback on rxe0"; tail -20 "$log/l.out"
  fi
fi

if want libxfer; then
  note "== libxfer's verbs transport (data verified byte for byte)"
  # run_gtest SUITE FILTER: the tests of SUITE matching FILTER must pass.
  run_gtest() {
    local suite=$1 filter=$2
    begin
    if [[ ! -x $suite ]]; then fail "$(basename "$suite") not built"; return; fi
    if timeout 600 "$suite" --gtest_filter="$filter" >"$log/g.out" 2>&1; then
      pass "$(basename "$suite") $filter ($(grep -o '[0-9]* tests\? from .* ran' "$log/g.out" | tail -1))"
    else
      fail "$(basename "$suite") $filter"; tail -30 "$log/g.out"
    fi
  }
  run_gtest "$build/tests/conformance_tests" '*/verbs:*/verbs_2rails'
  run_gtest "$build/tests/transport_verbs_tests" '*'
  run_gtest "$build/tests/core_tests" '*verbs*:*Verbs*'
  # GPUDirect's registration path, refused by Soft-RoCE in so many words.
  run_gtest "$build/tests/verbs_tests" 'DmaBufRegistrationTest.*'
  # The host run skips this one (no device); here it must list rxe0/rxe1.
  run_gtest "$build/tests/e2e_tests" 'DevicesE2e.ListsDevicesWhereThereAreSome'
  # Two verbs rails through the engine (64 MiB, every byte verified, the
  # split within 40-60 %), on its own and last: a verbs test that followed
  # it in one process has seen an 8 MiB READ's notification not arrive.
  run_gtest "$build/tests/core_tests" 'RailsTest.TwoRdmaRails*'
fi

if want failover; then
  note "== failover on verbs rails: the link under rail 1 taken down mid-run, then up again"
  # A second device for rail 1, rxe4 on vethC (rxe5 on its peer vethD),
  # so that taking vethC down leaves rail 0 (rxe0) whole.
  # The same sysctls as the harness's pair: rxe's packets arrive on the
  # peer veth with a local source address, and DAD would hold GID 0.
  begin
  sysctls() {
    local iface
    for iface in "$@"; do
      echo 0 >"/proc/sys/net/ipv4/conf/$iface/rp_filter"
      echo 1 >"/proc/sys/net/ipv4/conf/$iface/accept_local"
      echo 0 >"/proc/sys/net/ipv6/conf/$iface/accept_dad"
    done
  }
  rxe_active() { [[ $(cat "/sys/class/infiniband/$1/ports/1/state" 2>/dev/null) == *ACTIVE* ]]; }
  if ! /usr/sbin/ip link show vethC >/dev/null 2>&1; then
    /usr/sbin/ip -batch - <<EOF
link add vethC type veth peer name vethD
addr add 169.254.79.1/24 dev vethC
addr add 169.254.79.2/24 dev vethD
EOF
    sysctls vethC vethD
    /usr/sbin/ip link set vethC up
    /usr/sbin/ip link set vethD up
    printf '%s\n' 'link add rxe4 type rxe netdev vethC' 'link add rxe5 type rxe netdev vethD' \
      >"$log/rdma.batch"
    /usr/bin/rdma -b "$log/rdma.batch"
  fi
  for _ in $(seq 100); do rxe_active rxe4 && rxe_active rxe5 && break; sleep 0.1; done
  "$xfer" write_bw -s 1M -D 12 --transport verbs --rails rxe0,rxe4 -x 1 \
    --timeout "$timeout_s" >"$log/s.out" 2>&1 &
  spid=$!
  ( sleep 4; /usr/sbin/ip link set vethC down; sleep 2.5; /usr/sbin/ip link set vethC up ) &
  downer=$!
  timeout 120 "$xfer" write_bw -s 1M -D 12 --transport verbs --rails rxe0,rxe4 -x 1 \
    --timeline 500 --timeout "$timeout_s" --json "$log/failover.json" 127.0.0.1 \
    >"$log/c.out" 2>&1
  crc=$?
  wait "$downer"
  timeout 120 tail --pid="$spid" -f /dev/null
  wait "$spid"; src=$?
  # Both ends ran to the end; the client's timeline shows rail 1 (each end
  # pairs its namesake: rxe4 on both) down, for the port's event or for the
  # sends its queue pair could no longer make, rail 0 carrying on, and
  # rail 1 set up again by the engines once its port was back, carrying
  # again.
  if ((crc == 0 && src == 0)) && grep -q ' Rails           : 2 (rxe0->rxe0, rxe4->rxe4)' "$log/c.out" &&
     grep -q 'rail 1 (rxe4->rxe4) down at ' "$log/c.out" &&
     grep -q 'rail 1 up again at .*carried bytes again by' "$log/c.out" &&
     /usr/bin/python3 - "$log/failover.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
rails = doc["test_info"]["rails"]
assert rails[0]["up"] and rails[1]["up"], rails
events = rails[1]["events"]
assert events and not events[0]["up"] and events[-1]["up"], events
samples = doc["rail_timeline"]["samples"]
after = [s for s in samples if not s["up"][1]]
# Rail 0 carried on (emulated rxe pauses now and then: not every interval).
assert after and sum(s["bytes"][0] for s in after) > 0, samples
loss = doc["rail_timeline"]["recoveries"][0]
assert loss["up_ms"] is not None and loss["carrying_ms"] is not None, loss
PY
  then
    pass "write_bw over two verbs rails survives vethC going down under rail 1, and rail 1 comes back"
    grep -E '^ (timeline|rail 1|the other)' "$log/c.out"
  else
    fail "failover on verbs rails (client rc=$crc, server rc=$src)"
    tail -40 "$log/c.out"; tail -8 "$log/s.out"
  fi
fi

if want cluster; then
  note "== the cluster matrix under mpirun: 2 ranks, one on rxe0 and one on rxe1, over verbs"
  # Open MPI comes from the host's root, which the VM mounts; it refuses the
  # VM's hostname "(none)", so the VM gets a name first. Ranks talk to each
  # other (MPI's own messages) through shared memory; data over verbs.
  begin
  # Issue 43, item 4: the effect, not the echo. Rank 1 runs on rxe1, so
  # rxe1's own packet counters move; were every rank on rxe0 (the bug),
  # its traffic would loop back inside rxe0 and rxe1's would stay still.
  rxe_packets() {
    local dir=/sys/class/infiniband/$1/ports/1/hw_counters
    echo $(( $(cat "$dir/sent_pkts" 2>/dev/null || echo 0) + $(cat "$dir/rcvd_pkts" 2>/dev/null || echo 0) ))
  }
  rxe1_before=$(rxe_packets rxe1)
  if ! command -v mpirun >/dev/null; then
    fail "mpirun is not installed on the host (libopenmpi-dev openmpi-bin)"
  elif hostname softroce-vm &&
       OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
       OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader \
       OMPI_MCA_hwloc_base_binding_policy=none \
       timeout 180 mpirun -np 2 "$xfer" matrix --scheme pairwise --transports verbs \
         --rank_devices rxe0,rxe1 -x 1 --directions H2rH,rH2H --block_sizes 64K,1M \
         --transfer_size 4M --loops 3 --timeout "$timeout_s" --quiet \
         --json "$log/cluster.json" >"$log/c.out" 2>&1 &&
       /usr/bin/python3 - "$log/cluster.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["run"]["outcome"] == "complete", doc["run"]
assert [r["rdma_device"] for r in doc["ranks"]] == ["rxe0", "rxe1"], doc["ranks"]
cells = doc["cells"]
assert len(cells) == 2 * 2 * 2, len(cells)
assert all(c["status"] == "ok" and c["transport"] == "verbs" for c in cells), cells
PY
     rxe1_moved=$(( $(rxe_packets rxe1) - rxe1_before )) &&
     # 2 directions x 2 blocks x 4 loops (3 and a warm-up) x 4 MiB each
     # way the data flows through rank 1: at least 4 MiB / 4096 B packets.
     { ((rxe1_moved >= 1024)) || { echo "rxe1 moved only $rxe1_moved packets"; false; }; }
  then
    pass "mpirun -np 2 xfer matrix --scheme pairwise over verbs, rank 0 on rxe0, rank 1 on rxe1"
  else
    fail "the cluster matrix over verbs"; tail -20 "$log/c.out"
  fi
fi

note "== $passed passed, $failures failed"
rm -rf "$log"
exit $((failures > 100 ? 100 : failures))
