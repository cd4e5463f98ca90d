#!/usr/bin/env bash
# xfer against stock perftest, same flags, same VM boot, same devices:
#   scripts/softroce-vm -- bash bench/perftest_vs_xfer.sh build/release [ROUNDS]
# For write/read/send bandwidth at 64 KiB (BW average, MiB/s = 2^20 B/s) and
# write/send/read latency at 2 B (t_typical, the median, in us) it runs the
# stock pair and the xfer pair alternately ROUNDS times (default 5), takes
# the median of each, and prints xfer/perftest. Soft-RoCE on emulated CPUs
# swings a lot run to run, hence alternation and medians. A run that fails
# (rxe occasionally errors a 64 KiB SEND under retransmission, stock
# perftest included) is retried up to 3 times; the failure is reported.
set -uo pipefail

build=${1:?usage: perftest_vs_xfer.sh BUILD_DIR [ROUNDS]}
rounds=${2:-5}
xfer="$build/src/cli/xfer"
out=$(mktemp)

# run_pair TOOL_SERVER TOOL_CLIENT -> prints the client's result row
run_pair() {
  local server=$1 client=$2
  $server -d rxe0 -x 1 >/dev/null 2>&1 &
  local spid=$!
  sleep 0.5
  timeout 120 $client -d rxe1 -x 1 127.0.0.1 >"$out" 2>&1
  local rc=$?
  wait "$spid"
  [[ $rc -eq 0 ]] || return 1
  grep -E '^ [0-9]+ +[0-9]+ ' "$out" | tail -1
}

# measure NAME STOCK_CMD XFER_CMD FIELD -> appends one value per round
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }

measure() {
  local name=$1 stock=$2 ours=$3 field=$4
  local stock_values=() our_values=()
  for ((r = 0; r < rounds; ++r)); do
    for side in stock ours; do
      local cmd=${!side} row="" attempt
      for attempt in 1 2 3; do
        if row=$(run_pair "$cmd" "$cmd"); then break; fi
        echo "  ($name, $side, round $r: attempt $attempt failed: $(tail -1 "$out"))" >&2
        row=""
      done
      [[ -n $row ]] || continue
      local value
      value=$(awk -v f="$field" '{print $f}' <<<"$row")
      if [[ $side == stock ]]; then stock_values+=("$value"); else our_values+=("$value"); fi
    done
  done
  local s o
  s=$(printf '%s\n' "${stock_values[@]}" | median)
  o=$(printf '%s\n' "${our_values[@]}" | median)
  awk -v n="$name" -v s="$s" -v o="$o" -v k="${#stock_values[@]}" -v m="${#our_values[@]}" \
    'BEGIN {printf "| %-28s | %10.2f | %10.2f | %5.2f | %d/%d |\n", n, o, s, (s > 0 ? o / s : 0), m, k}'
}

echo "| test (median of $rounds, alternating) | xfer | perftest | xfer/perftest | runs xfer/stock |"
echo "|---|---|---|---|---|"
bw="-s 65536 -n 1000"
measure "write_bw 64 KiB [MiB/s]" "ib_write_bw $bw" "$xfer write_bw $bw" 4
measure "read_bw 64 KiB [MiB/s]" "ib_read_bw $bw" "$xfer read_bw $bw" 4
measure "send_bw 64 KiB [MiB/s]" "ib_send_bw $bw" "$xfer send_bw $bw" 4
lat="-s 2 -n 1000"
measure "write_lat 2 B [us, typical]" "ib_write_lat $lat" "$xfer write_lat $lat" 5
measure "send_lat 2 B [us, typical]" "ib_send_lat $lat" "$xfer send_lat $lat" 5
measure "read_lat 2 B [us, typical]" "ib_read_lat $lat" "$xfer read_lat $lat" 5
rm -f "$out"
