#!/usr/bin/env bash
# Measures, in one run, xfer against the ceilings it is judged by:
#   shm write_bw / read_bw at 64 KiB and 1 MiB  vs  single-core memcpy (goal >= 0.9x)
#   tcp write_bw at 1 MiB                        vs  iperf3 over loopback (goal >= 0.9x)
# Each figure is the median of ROUNDS runs (default 5), and the runs of a
# comparison alternate, so both sides see the same machine: on a shared
# 2-core VM single runs swing by 15% or more. Prints both medians and their
# ratio.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh >/dev/null
scripts/build.sh release >/dev/null

xfer=build/release/src/cli/xfer
iters=${ITERS:-20000}
rounds=${ROUNDS:-5}

# BW average in MiB/s (2^20 bytes/s) from xfer's table row.
xfer_mibps() {
  "$xfer" "$@" --loopback -n "$iters" | awk '$1 ~ /^[0-9]+$/ && NF >= 5 { print $4 }'
}

# memcpy bytes/s -> MiB/s, from Google Benchmark's CSV (column 6).
memcpy_mibps() {
  build/release/bench/memcpy_baseline --benchmark_filter="BM_Memcpy/$1\$" \
    --benchmark_min_time=0.3 --benchmark_format=csv 2>/dev/null |
    awk -F, '/BM_Memcpy/ { printf "%.2f\n", $6 / 1048576 }'
}

# iperf3 single stream, 1 MiB writes, receiver throughput -> MiB/s.
iperf_mibps() {
  local port=$((20000 + RANDOM % 20000))
  iperf3 -s -1 -p "$port" >/dev/null 2>&1 &
  local server=$!
  sleep 0.3
  iperf3 -c 127.0.0.1 -p "$port" -t 2 -l 1M -f m 2>/dev/null |
    awk '/receiver/ { for (i = 1; i <= NF; i++) if ($(i+1) == "Mbits/sec") printf "%.2f\n", $i * 1e6 / 8 / 1048576 }'
  wait "$server" 2>/dev/null || true
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

compare() {  # label ours baseline
  awk -v l="$1" -v a="$2" -v b="$3" 'BEGIN { printf "%-30s %8.0f MiB/s  vs %8.0f MiB/s  ratio %.2f\n", l, a, b, a / b }'
}

declare -A samples
add() { samples[$1]+="$2"$'\n'; }
for ((r = 0; r < rounds; r++)); do
  for size in 64K 1M; do
    bytes=$([[ $size == 64K ]] && echo 65536 || echo 1048576)
    add "memcpy $size" "$(memcpy_mibps "$bytes")"
    add "write $size" "$(xfer_mibps write_bw --transport shm -s "$size")"
    add "read $size" "$(xfer_mibps read_bw --transport shm -s "$size")"
  done
  add "tcp" "$(xfer_mibps write_bw --transport tcp -s 1M)"
  add "iperf3" "$(iperf_mibps)"
done
m() { printf '%s' "${samples[$1]}" | median; }

echo "units: MiB/s = 2^20 bytes/s; xfer = perftest's BW average, -n $iters; medians of $rounds alternating runs"
for size in 64K 1M; do
  compare "shm write_bw $size / memcpy" "$(m "write $size")" "$(m "memcpy $size")"
  compare "shm read_bw  $size / memcpy" "$(m "read $size")" "$(m "memcpy $size")"
done
compare "tcp write_bw 1M / iperf3" "$(m tcp)" "$(m iperf3)"
