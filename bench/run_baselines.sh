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
# shellcheck source=bench/baseline_lib.sh
. bench/baseline_lib.sh

xfer=build/release/src/cli/xfer
iters=${ITERS:-20000}
rounds=${ROUNDS:-5}

# BW average in MiB/s (2^20 bytes/s) from xfer's table row.
xfer_mibps() {
  "$xfer" "$@" --loopback -n "$iters" | awk '$1 ~ /^[0-9]+$/ && NF >= 5 { print $4 }'
}

memcpy_mibps() {
  memcpy_bytes_per_s build/release "BM_Memcpy/$1\$" | awk '{ printf "%.2f\n", $1 / 1048576 }'
}

iperf_mibps() { iperf3_bytes_per_s | awk '{ printf "%.2f\n", $1 / 1048576 }'; }

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
