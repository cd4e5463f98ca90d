#!/usr/bin/env bash
# Fault trials and a soak for libxfer against real processes, over each host
# transport (shm, tcp), with tests/faults/fault_target and fault_initiator
# (public API only). Usage:
#
#   bash tests/faults/run_fault_trials.sh BUILD_DIR [--trials N] [--soak N]
#        [--stop-trials N] [--rst-trials N] [--reverse-trials N]
#        [--io-timeout MS] [--transports "shm tcp"]
#
#   --trials N          SIGKILL-the-target trials per transport (100)
#   --stop-trials N     SIGSTOP-the-target trials (5)
#   --rst-trials N      TCP RST trials, each kind (5)
#   --reverse-trials N  kill-the-initiator trials (5)
#   --soak N            verified transfers per transport, 1 B .. 1 MiB
#                       log-uniform (1000000; 0 skips the soak)
#   --io-timeout MS     the engines' io_timeout (1000); the bound on the
#                       time to a clear error is twice that
#
# The faults:
#   kill-target   SIGKILL the target at a random point mid-transfer: the
#                 initiator must exit with a clear error (exit 2, a Status)
#                 within 2 x io_timeout of the kill.
#   stop-target   SIGSTOP the target mid-transfer. tcp: its kernel still
#                 takes bytes but nothing answers, so the initiator must
#                 report an error within 2 x io_timeout. shm: a one-sided
#                 copy needs nothing from the target's threads
#                 (process_vm_writev/readv or memcpy into a mapping work on
#                 a stopped process), so there is nothing to time out:
#                 transfers must go on completing, verified, while it is
#                 stopped. Then SIGCONT and SIGTERM the target, which must
#                 find every byte outside its region untouched.
#   rst-control   cut the control connection (the one accepted on the
#                 target's listen port) with a real TCP RST: `ss -K` on the
#                 target's end (SOCK_DESTROY, CONFIG_INET_DIAG_DESTROY)
#                 aborts that socket, and its kernel sends the initiator an
#                 RST; the initiator is not told otherwise. The engine uses
#                 that connection only to set up (handshake, transport
#                 setup); transfers run on the transport's own sockets (tcp:
#                 its data streams; shm: a unix socket and the peer's pid),
#                 which the RST leaves alone, and neither end watches the
#                 control socket afterwards. So the initiator must either
#                 report a clear error within 2 x io_timeout or go on with
#                 verified transfers (noted in the table), never stall.
#   rst-all       tcp: RST every TCP connection of the target process, the
#                 data streams too: a clear error within 2 x io_timeout.
#                 (shm has no TCP socket but the control one.)
#   kill-initiator SIGKILL the initiator mid-transfer: the target must keep
#                 serving (a fresh initiator then runs 200 verified
#                 transfers) and find its canaries and guard pages intact.
#   soak          N verified transfers; every byte compared.
# Every trial also requires: no hang (a watchdog kills anything still
# running at 3 x the bound + 5 s), no crash (no exit by a signal we did not
# send, no sanitizer report), no byte changed outside the registered range
# (the target checks its canaries and guard pages when it is stopped).
# Prints a summary table; exits 1 on any failure.
set -uo pipefail

usage() { sed -n '2,20p' "$0" >&2; exit 64; }
[[ $# -ge 1 ]] || usage
BUILD_DIR=$1; shift
TRIALS=100 STOP_TRIALS=5 RST_TRIALS=5 REVERSE_TRIALS=5 SOAK=1000000 IO_TIMEOUT=1000
TRANSPORTS="shm tcp"
while [[ $# -gt 0 ]]; do
  case $1 in
    --trials) TRIALS=$2 ;;
    --stop-trials) STOP_TRIALS=$2 ;;
    --rst-trials) RST_TRIALS=$2 ;;
    --reverse-trials) REVERSE_TRIALS=$2 ;;
    --soak) SOAK=$2 ;;
    --io-timeout) IO_TIMEOUT=$2 ;;
    --transports) TRANSPORTS=$2 ;;
    *) usage ;;
  esac
  shift 2 || usage
done

TARGET=$BUILD_DIR/tests/faults/fault_target
INITIATOR=$BUILD_DIR/tests/faults/fault_initiator
for program in "$TARGET" "$INITIATOR"; do
  [[ -x $program ]] || { echo "run_fault_trials: $program is not built" >&2; exit 2; }
done
BOUND_MS=$((2 * IO_TIMEOUT))
WATCHDOG_MS=$((3 * BOUND_MS + 5000))
CONNECT_TIMEOUT=2000
WORK=$(mktemp -d /tmp/xfer-faults.XXXXXX)
FAILURES=0
declare -a ROWS=()
declare -a FAILED_LOGS=()
# Only the script itself cleans up: a subshell killed before it resets its
# traps (the watchdog, when its process exits first) would run this too.
cleanup() {
  [[ $BASHPID == "$$" ]] || return 0
  jobs -p | xargs -r kill -9 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT

now_ms() { date +%s%3N; }
rand() { echo $((RANDOM * 32768 + RANDOM)); }  # 0 .. 2^30-1

# ss -K needs CONFIG_INET_DIAG_DESTROY and CAP_NET_ADMIN; find out once.
RST_OK=0 RST_WHY=""
probe_rst() {
  if ! command -v ss >/dev/null || ! command -v python3 >/dev/null; then
    RST_WHY="ss (iproute2) or python3 is missing"; return
  fi
  RST_WHY=$(python3 - <<'EOF'
import socket, subprocess
l = socket.socket(); l.bind(("127.0.0.1", 0)); l.listen(); port = l.getsockname()[1]
c = socket.create_connection(("127.0.0.1", port)); s, _ = l.accept()
r = subprocess.run(["ss", "-K", "-tn", "state", "established", "src", "127.0.0.1",
                    "sport", "=", ":%d" % port], capture_output=True, text=True)
c.settimeout(2)
try:
    c.recv(1); print("ss -K did not reset the connection: " + (r.stderr.strip() or "no error"))
except ConnectionResetError:
    print("ok")
except Exception as e:
    print("ss -K did not reset the connection: %r %s" % (e, r.stderr.strip()))
EOF
)
  [[ $RST_WHY == ok ]] && RST_OK=1
}

# start_target TRANSPORT NAME: runs a target, waits for READY; sets T_PID,
# T_ADDR, T_PORT, T_REGION, T_LENGTH, T_OUT, T_ERR.
start_target() {
  T_OUT=$WORK/$2.target.out T_ERR=$WORK/$2.target.err
  "$TARGET" --transport "$1" --io-timeout "$IO_TIMEOUT" --connect-timeout "$CONNECT_TIMEOUT" \
    "${@:3}" >"$T_OUT" 2>"$T_ERR" &
  T_PID=$!
  local line="" i
  for ((i = 0; i < 1000; i++)); do
    line=$(grep -m1 '^READY ' "$T_OUT" 2>/dev/null) && break
    kill -0 "$T_PID" 2>/dev/null || break
    sleep 0.01
  done
  [[ $line == READY* ]] || { echo "target did not start: $(cat "$T_ERR")"; return 1; }
  T_ADDR=$(sed -E 's/.*address=([^ ]+).*/\1/' <<<"$line")
  T_PORT=${T_ADDR##*:}
  T_REGION=$(sed -E 's/.*region=([^ ]+).*/\1/' <<<"$line")
  T_LENGTH=$(sed -E 's/.*length=([^ ]+).*/\1/' <<<"$line")
}

# start_initiator TRANSPORT NAME COUNT [EXTRA...]: sets I_PID, I_OUT, I_ERR;
# with COUNT 0 waits for STARTED (the first verified transfer).
start_initiator() {
  local transport=$1 name=$2 count=$3; shift 3
  I_OUT=$WORK/$name.initiator.out I_ERR=$WORK/$name.initiator.err
  "$INITIATOR" --address "$T_ADDR" --transport "$transport" --region "$T_REGION" \
    --length "$T_LENGTH" --io-timeout "$IO_TIMEOUT" --connect-timeout "$CONNECT_TIMEOUT" \
    --count "$count" --seed "$(rand)" "$@" >"$I_OUT" 2>"$I_ERR" &
  I_PID=$!
  [[ $count != 0 ]] && return 0
  local i
  for ((i = 0; i < 1000; i++)); do
    grep -q '^STARTED' "$I_OUT" 2>/dev/null && return 0
    kill -0 "$I_PID" 2>/dev/null || break
    sleep 0.01
  done
  echo "initiator did not start: $(cat "$I_OUT" "$I_ERR")"
  return 1
}

# wait_bounded PID MS: waits for PID, killing it at MS; sets W_RC and
# W_HUNG (1 when it had to be killed). Polls every 10 ms rather than
# running a watchdog process, so the exit time is known to 10 ms.
wait_bounded() {
  local deadline=$(( $(now_ms) + $2 ))
  W_HUNG=0
  while kill -0 "$1" 2>/dev/null && [[ $(ps -o stat= -p "$1" 2>/dev/null) != Z* ]]; do
    if (( $(now_ms) >= deadline )); then
      W_HUNG=1; kill -9 "$1" 2>/dev/null; break
    fi
    sleep 0.01
  done
  wait "$1"; W_RC=$?
  return 0
}

# sanitizer_report FILE...: true when one of them holds a sanitizer report.
sanitizer_report() { grep -qE 'AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|runtime error:' "$@" 2>/dev/null; }

# stop_target: SIGTERM the target, which checks its canaries and guard
# pages; sets S_BAD (bytes changed outside the region; -1: unknown) and
# S_OK (1 when it exited 0 with nothing changed).
stop_target() {
  kill -CONT "$T_PID" 2>/dev/null
  kill -TERM "$T_PID" 2>/dev/null
  wait_bounded "$T_PID" "$WATCHDOG_MS"
  S_BAD=$(grep -oE 'CHECK bad=[0-9]+' "$T_OUT" | head -1 | cut -d= -f2)
  if grep -q '^CHECK ok' "$T_OUT" && [[ -z $S_BAD ]]; then S_BAD=0; fi
  [[ -z $S_BAD ]] && S_BAD=-1
  S_OK=0
  [[ $W_RC == 0 && $W_HUNG == 0 && $S_BAD == 0 ]] && ! sanitizer_report "$T_ERR" && S_OK=1
  return 0
}

# The counters of one table row.
row_reset() { R_TRIALS=0 R_CLEAR=0 R_MAX=0 R_HANGS=0 R_CRASHES=0 R_OOR=0 R_FAIL=0 R_NOTE="" R_ON=0 R_SOCKETS=0; }
row_fail() {  # row_fail NAME WHY
  R_FAIL=$((R_FAIL + 1))
  FAILURES=$((FAILURES + 1))
  local keep=$WORK/../xfer-faults-failed.$$.$1
  mkdir -p "$keep"; cp "$WORK/$1".* "$keep/" 2>/dev/null
  FAILED_LOGS+=("$1: $2 (logs: $keep)")
  echo "  FAIL $1: $2" >&2
}
row_emit() {  # row_emit TRANSPORT FAULT; a fault not run gets no row
  [[ $R_TRIALS == 0 && $R_FAIL == 0 && $R_NOTE != n/a* ]] && return 0
  ROWS+=("$(printf '%-5s %-15s %6s %7s %9s %7s %6s %8s %5s  %s' "$1" "$2" "$R_TRIALS" "$R_CLEAR" \
    "$R_MAX" "$BOUND_MS" "$R_HANGS" "$R_CRASHES" "$R_OOR" "$([[ $R_FAIL == 0 ]] && echo ok || echo "FAIL($R_FAIL)") $R_NOTE")")
}
note_oor() { [[ $S_BAD -gt 0 ]] && R_OOR=$((R_OOR + S_BAD)); return 0; }

# The initiator's exit after a fault on the target (killed at KILL_MS):
# a clear error within the bound, no hang, no crash.
judge_initiator() {  # judge_initiator NAME KILL_MS
  local name=$1 elapsed=$(( $(now_ms) - $2 ))
  if [[ $W_HUNG == 1 || $W_RC == 4 ]]; then
    R_HANGS=$((R_HANGS + 1)); row_fail "$name" "initiator hung (rc $W_RC)"; return
  fi
  if [[ $W_RC -gt 128 ]] || sanitizer_report "$I_ERR"; then
    R_CRASHES=$((R_CRASHES + 1)); row_fail "$name" "initiator crashed (rc $W_RC)"; return
  fi
  if [[ $W_RC != 2 ]] || ! grep -q '^ERROR .*status="' "$I_OUT"; then
    row_fail "$name" "initiator exit $W_RC, want 2 (a clear error): $(tail -2 "$I_OUT")"; return
  fi
  R_CLEAR=$((R_CLEAR + 1))
  (( elapsed > R_MAX )) && R_MAX=$elapsed
  if (( elapsed > BOUND_MS )); then
    row_fail "$name" "error after ${elapsed} ms, bound ${BOUND_MS} ms: $(grep '^ERROR' "$I_OUT")"
  fi
}

# Which status codes the clear errors carried, for the table's note.
codes_seen() {  # codes_seen PREFIX
  grep -h '^ERROR' "$WORK/$1"*.initiator.out 2>/dev/null | sed -E 's/.*status="([^:"]*).*/\1/' |
    sort | uniq -c | awk '{c=$1; $1=""; printf "%s%s x%d", (NR>1?", ":""), substr($0,2), c}'
}

trial_kill_target() {  # TRANSPORT I
  local name="$1.kill.$2"
  start_target "$1" "$name" || { row_fail "$name" "setup"; return; }
  start_initiator "$1" "$name" 0 || { row_fail "$name" "setup"; kill -9 "$T_PID"; return; }
  R_TRIALS=$((R_TRIALS + 1))
  sleep "0.$(printf '%03d' $(( $(rand) % 300 )))"
  local t=$(now_ms)
  kill -9 "$T_PID"; wait "$T_PID" 2>/dev/null
  wait_bounded "$I_PID" "$WATCHDOG_MS"
  judge_initiator "$name" "$t"
}

# After a fault at FAULT_MS that may leave the connection working (see
# the header): watches the initiator for the bound. If it exits, it is
# judged as above; if it is still running it must have gone on with
# verified transfers (PROGRESS lines), and then the target's clean exit
# must end it with a clear error. ALLOW_ON: 1 where going on is right.
watch_after_fault() {  # NAME FAULT_MS ALLOW_ON
  local name=$1 before after deadline=$(( $2 + BOUND_MS ))
  before=$(grep -c '^PROGRESS' "$I_OUT")
  while (( $(now_ms) < deadline )) && kill -0 "$I_PID" 2>/dev/null; do sleep 0.02; done
  if ! kill -0 "$I_PID" 2>/dev/null || [[ $3 == 0 ]]; then
    wait_bounded "$I_PID" "$WATCHDOG_MS"
    judge_initiator "$name" "$2"
    kill -CONT "$T_PID" 2>/dev/null
    stop_target; note_oor
    [[ $S_OK == 1 ]] || row_fail "$name" "target after the fault: rc $W_RC, bytes changed outside: $S_BAD"
    return
  fi
  after=$(grep -c '^PROGRESS' "$I_OUT")
  if (( after <= before + 2 )); then
    R_HANGS=$((R_HANGS + 1))
    row_fail "$name" "initiator neither failed nor made progress in ${BOUND_MS} ms ($before -> $after reports)"
  else
    R_CLEAR=$((R_CLEAR + 1))
    R_ON=$((R_ON + 1))
  fi
  kill -CONT "$T_PID" 2>/dev/null
  # The target's clean exit closes the connection: now a clear error.
  stop_target; note_oor
  [[ $S_OK == 1 ]] || row_fail "$name" "target after the fault: rc $W_RC, bytes changed outside: $S_BAD"
  wait_bounded "$I_PID" "$WATCHDOG_MS"
  if [[ $W_HUNG == 1 || $W_RC != 2 ]] || sanitizer_report "$I_ERR"; then
    row_fail "$name" "initiator after the target left: rc $W_RC, want 2; hung $W_HUNG"
  fi
}

trial_stop_target() {  # TRANSPORT I
  local name="$1.stop.$2" t
  start_target "$1" "$name" || { row_fail "$name" "setup"; return; }
  start_initiator "$1" "$name" 0 --progress-ms 50 || { row_fail "$name" "setup"; kill -9 "$T_PID"; return; }
  R_TRIALS=$((R_TRIALS + 1))
  sleep "0.$(printf '%03d' $(( $(rand) % 300 )))"
  t=$(now_ms)
  kill -STOP "$T_PID"
  # shm: nothing to time out (see the header); tcp: an error is owed.
  watch_after_fault "$name" "$t" "$([[ $1 == shm ]] && echo 1 || echo 0)"
}

# The target's established TCP sockets: their local port numbers.
target_ports() {
  ss -tnpH state established 2>/dev/null | grep "pid=$T_PID," |
    awk '{print $3}' | sed -E 's/.*:([0-9]+)$/\1/' | sort -u
}

trial_rst() {  # TRANSPORT KIND(control|all) I
  local name="$1.rst-$2.$3" t port killed=0 ports
  start_target "$1" "$name" || { row_fail "$name" "setup"; return; }
  start_initiator "$1" "$name" 0 --progress-ms 50 || { row_fail "$name" "setup"; kill -9 "$T_PID"; return; }
  R_TRIALS=$((R_TRIALS + 1))
  sleep "0.$(printf '%03d' $(( $(rand) % 300 )))"
  ports=$T_PORT
  [[ $2 == all ]] && ports=$(target_ports)
  t=$(now_ms)
  for port in $ports; do
    # On the target's end only: its kernel sends the initiator the RST.
    killed=$((killed + $(ss -K -tnH state established src 127.0.0.1 sport = ":$port" \
      2>/dev/null | grep -c .)))
  done
  (( killed == 0 )) && row_fail "$name" "ss -K found no connection on ports $ports"
  R_SOCKETS=$killed
  # The control connection serves only the setup (see the header): after
  # it, either end may go on over the transport's own sockets.
  watch_after_fault "$name" "$t" "$([[ $2 == control ]] && echo 1 || echo 0)"
}

trial_kill_initiator() {  # TRANSPORT I
  local name="$1.killinit.$2"
  start_target "$1" "$name" || { row_fail "$name" "setup"; return; }
  start_initiator "$1" "$name" 0 || { row_fail "$name" "setup"; kill -9 "$T_PID"; return; }
  R_TRIALS=$((R_TRIALS + 1))
  sleep "0.$(printf '%03d' $(( $(rand) % 300 )))"
  kill -9 "$I_PID"; wait "$I_PID" 2>/dev/null
  sleep "$(awk "BEGIN{print $IO_TIMEOUT/1000}")"
  if ! kill -0 "$T_PID" 2>/dev/null; then
    wait "$T_PID"; R_CRASHES=$((R_CRASHES + 1))
    row_fail "$name" "the target died ($?) when its initiator was killed"; return
  fi
  # A fresh initiator on the same target.
  start_initiator "$1" "$name.fresh" 200
  wait_bounded "$I_PID" "$WATCHDOG_MS"
  if [[ $W_RC == 0 && $W_HUNG == 0 ]] && grep -q '^DONE transfers=200 .*corruptions=0' "$I_OUT"; then
    R_CLEAR=$((R_CLEAR + 1))
  else
    [[ $W_HUNG == 1 || $W_RC == 4 ]] && R_HANGS=$((R_HANGS + 1))
    row_fail "$name" "fresh initiator after the kill: rc $W_RC: $(tail -2 "$I_OUT")"
  fi
  stop_target; note_oor
  [[ $W_RC -gt 128 ]] && R_CRASHES=$((R_CRASHES + 1))
  [[ $S_OK == 1 ]] || row_fail "$name" "target at the end: rc $W_RC, bytes changed outside: $S_BAD"
}

declare -a SOAK_LINES=()
soak() {  # TRANSPORT
  local name="$1.soak"
  start_target "$1" "$name" || { row_fail "$name" "setup"; return; }
  R_TRIALS=1
  local t=$(now_ms)
  start_initiator "$1" "$name" "$SOAK"
  # A generous watchdog (10 min + 2 ms a transfer): the per-request hang
  # check is the initiator's own (--hang-ms).
  wait_bounded "$I_PID" $((600000 + SOAK * 2))
  local done_line
  done_line=$(grep '^DONE' "$I_OUT")
  if [[ $W_RC == 0 && $W_HUNG == 0 ]] && grep -q "^DONE transfers=$SOAK .*corruptions=0" "$I_OUT"; then
    R_CLEAR=1
  else
    [[ $W_HUNG == 1 || $W_RC == 4 ]] && R_HANGS=1
    [[ $W_RC -gt 128 ]] && R_CRASHES=1
    row_fail "$name" "soak: rc $W_RC: $(grep -m3 -E '^(MISMATCH|ERROR|HANG)' "$I_OUT") $done_line"
  fi
  stop_target; note_oor
  [[ $S_OK == 1 ]] || row_fail "$name" "target after the soak: rc $W_RC, bytes changed outside: $S_BAD"
  local bytes
  bytes=$(sed -nE 's/.*bytes=([0-9]+).*/\1/p' <<<"$done_line")
  SOAK_LINES+=("$(printf '%-5s transfers=%s bytes=%s (%s GiB each way) corruptions=%s elapsed_s=%s wall_s=%s' \
    "$1" "$(sed -nE 's/.*transfers=([0-9]+).*/\1/p' <<<"$done_line")" "${bytes:-?}" \
    "$(awk "BEGIN{printf \"%.1f\", ${bytes:-0}/1073741824}")" \
    "$(sed -nE 's/.*corruptions=([0-9]+).*/\1/p' <<<"$done_line")" \
    "$(sed -nE 's/.*elapsed_s=([0-9.]+).*/\1/p' <<<"$done_line")" \
    "$(awk "BEGIN{printf \"%.1f\", ($(now_ms) - $t)/1000}")")")
  R_NOTE=""
}

# The detectors themselves: a target that damages a canary must fail its
# check, and a flipped byte read back must be reported as a mismatch.
self_test() {
  local transport=${TRANSPORTS%% *}
  row_reset; R_TRIALS=2
  start_target "$transport" selftest --damage 1 || { row_fail selftest "setup"; return; }
  start_initiator "$transport" selftest 50 --corrupt-at 7
  wait_bounded "$I_PID" "$WATCHDOG_MS"
  if [[ $W_RC == 3 ]] && grep -q '^MISMATCH transfer=6 ' "$I_OUT" &&
     grep -q 'corruptions=1 ' "$I_OUT"; then
    R_CLEAR=$((R_CLEAR + 1))
  else
    row_fail selftest "a flipped byte went unreported: rc $W_RC: $(tail -2 "$I_OUT")"
  fi
  stop_target
  if [[ $W_RC == 1 && $S_BAD -gt 0 ]] && grep -q '^CHECK bad=1 first=2097152$' "$T_OUT"; then
    R_CLEAR=$((R_CLEAR + 1))
  else
    row_fail selftest "a damaged canary went unreported: rc $W_RC: $(tail -2 "$T_OUT")"
  fi
  R_NOTE="the checks can fail: a flipped byte and a damaged canary are caught"
  row_emit "$transport" self-test
}

probe_rst
START=$(now_ms)
self_test
for transport in $TRANSPORTS; do
  echo "=== faults: $transport"
  row_reset
  for ((i = 0; i < TRIALS; i++)); do trial_kill_target "$transport" "$i"; done
  R_NOTE=$(codes_seen "$transport.kill."); row_emit "$transport" kill-target
  row_reset
  for ((i = 0; i < STOP_TRIALS; i++)); do trial_stop_target "$transport" "$i"; done
  R_NOTE=$(codes_seen "$transport.stop.")
  (( R_ON > 0 )) && R_NOTE="$R_NOTE${R_NOTE:+; }went on verified while stopped x$R_ON"
  row_emit "$transport" stop-target
  for kind in control all; do
    row_reset
    if [[ $kind == all && $transport == shm ]]; then
      (( RST_TRIALS > 0 )) &&
      R_NOTE="n/a: shm's only TCP socket is the control one (its channel is a unix socket)"
    elif [[ $RST_OK == 1 ]]; then
      for ((i = 0; i < RST_TRIALS; i++)); do trial_rst "$transport" "$kind" "$i"; done
      R_NOTE="$(codes_seen "$transport.rst-$kind.")"
      (( R_ON > 0 )) && R_NOTE="$R_NOTE${R_NOTE:+; }went on verified x$R_ON"
      R_NOTE="$R_NOTE${R_NOTE:+; }$R_SOCKETS socket(s) reset in the last trial"
    elif (( RST_TRIALS > 0 )); then
      R_NOTE="not run: $RST_WHY"; row_fail "$transport.rst-$kind" "cannot send an RST: $RST_WHY"
    fi
    row_emit "$transport" "rst-$kind"
  done
  row_reset
  for ((i = 0; i < REVERSE_TRIALS; i++)); do trial_kill_initiator "$transport" "$i"; done
  row_emit "$transport" kill-initiator
  if (( SOAK > 0 )); then
    row_reset; soak "$transport"; row_emit "$transport" "soak $SOAK"
  fi
done

echo
printf '%-5s %-15s %6s %7s %9s %7s %6s %8s %5s  %s\n' transport fault trials clear max_ms bound_ms hangs crashes oor result
for row in "${ROWS[@]}"; do echo "$row"; done
echo "(clear: trials with the outcome wanted, a clear error or, where noted, verified progress;"
echo " max_ms: the longest fault-to-error time; oor: bytes changed outside the registered range)"
for line in "${SOAK_LINES[@]}"; do echo "soak $line"; done
echo "total $(awk "BEGIN{printf \"%.1f\", ($(now_ms) - $START)/1000}") s, io_timeout $IO_TIMEOUT ms"
if (( FAILURES > 0 )); then
  echo "FAILED: $FAILURES"
  for f in "${FAILED_LOGS[@]}"; do echo "  $f"; done
  exit 1
fi
echo "all fault trials passed"
