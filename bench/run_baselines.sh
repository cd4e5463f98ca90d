#!/usr/bin/env bash
# Measures, in one run, each xfer figure next to the physical limit of the
# same work on this host (the hot-path issue's goals):
#   shm write_bw / read_bw at 64 KiB and 1 MiB  vs single-core memcpy of that size   (>= 0.95x)
#   shm write_bw 8 B message rate               vs a bare two-core store+flag ring   (>= 1.0x)
#   shm write_lat 8 B                           vs a ping-pong over one cache line   (<= 1.2x)
#   shm write_bw 8 B, prepared list of 64       vs UCX ucp_put_bw over posix shm     (>= 1.0x)
#                                               and the bare store+flag ring (reported)
#   shm write_lat 8 B, and through a prepared list  vs UCX ucp_put_lat over posix shm (<= 1.0x)
#   shm write_lat --notify 8 B (submit to the peer's GetNotifications seeing it)
#                                               next to write_lat's landed byte (reported)
#     (the UCX rows need ucx_perftest: Debian's ucx-utils; skipped, saying so, without it)
#   tcp write_bw 1 MiB                          vs iperf3, best of default/1M writes (>= 1.0x)
#   tcp send_lat, write_lat 8 B                 vs a bare TCP_NODELAY ping-pong      (<= 1.2x, <= 1.5x)
#   matrix shm H2rH / rH2H at 16 KiB            vs memcpy of 128 MiB in 16 KiB blocks (>= 0.9x)
# The bare limits are bench/bare_limits.cc and bench/memcpy_baseline.cc.
# Each figure is the median of ROUNDS runs (default 5), and the runs of a
# comparison alternate, so both sides see the same machine: on a shared
# 2-core VM single runs swing by 15% or more. Prints both medians, their
# ratio and whether the goal is met. Units: MiB/s = 2^20 bytes/s,
# GB/s = 10^9 bytes/s, Mmsg/s = 10^6 messages/s, latency one way in ns.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh >/dev/null
scripts/build.sh release >/dev/null
# shellcheck source=bench/baseline_lib.sh
. bench/baseline_lib.sh

build=build/release
xfer=$build/src/cli/xfer
bare=$build/bench/bare_limits
iters=${ITERS:-20000}
rate_iters=${RATE_ITERS:-2000000}
lat_iters=${LAT_ITERS:-100000}
tcp_lat_iters=${TCP_LAT_ITERS:-10000}
rounds=${ROUNDS:-5}

# The row of xfer's table for the one size run.
xfer_row() { "$xfer" "$@" --loopback | awk '$1 ~ /^[0-9]+$/ && NF >= 5'; }
xfer_mibps() { xfer_row "$@" -n "$iters" | awk '{ print $4 }'; }             # BW average
xfer_msg_per_s() { xfer_row "$@" -n "$rate_iters" | awk '{ printf "%.0f\n", $NF * 1e6 }'; }
xfer_latency_ns() { xfer_row "$@" | awk '{ printf "%.0f\n", $5 * 1000 }'; }  # t_typical

memcpy_mibps() {
  memcpy_bytes_per_s "$build" "BM_Memcpy/$1\$" | awk '{ printf "%.2f\n", $1 / 1048576 }'
}
iperf_mibps() {  # the better of iperf3's default writes and 1 MiB writes
  { iperf3_bytes_per_s default; iperf3_bytes_per_s 1M; } |
    awk 'NR == 1 || $1 > best { best = $1 } END { printf "%.2f\n", best / 1048576 }'
}

ucx=$(command -v ucx_perftest || true)

declare -A samples
add() { samples[$1]+="$2"$'\n'; }
for ((r = 0; r < rounds; r++)); do
  for size in 64K 1M; do
    bytes=$([[ $size == 64K ]] && echo 65536 || echo 1048576)
    add "memcpy $size" "$(memcpy_mibps "$bytes")"
    add "write $size" "$(xfer_mibps write_bw --transport shm -s "$size")"
    add "read $size" "$(xfer_mibps read_bw --transport shm -s "$size")"
  done
  add "ring" "$("$bare" ring 20000000)"
  add "rate" "$(xfer_msg_per_s write_bw --transport shm -s 8)"
  add "prepared rate" "$(xfer_msg_per_s write_bw --transport shm -s 8 -l 64 --prepared)"
  if [[ -n $ucx ]]; then
    add "ucx put_bw" "$(ucx_shm ucp_put_bw 8 "$rate_iters")"
    add "ucx put_lat" "$(ucx_shm ucp_put_lat 8 "$lat_iters")"
  fi
  add "line" "$("$bare" pingpong "$lat_iters")"
  add "shm write_lat" "$(xfer_latency_ns write_lat --transport shm -s 8 -n "$lat_iters")"
  add "shm write_lat prepared" \
    "$(xfer_latency_ns write_lat --transport shm -s 8 -n "$lat_iters" --prepared)"
  add "shm write_lat notify" \
    "$(xfer_latency_ns write_lat --transport shm -s 8 -n "$lat_iters" --notify)"
  add "tcp" "$(xfer_mibps write_bw --transport tcp -s 1M)"
  add "iperf3" "$(iperf_mibps)"
  add "tcp pingpong" "$("$bare" tcp-pingpong "$tcp_lat_iters")"
  add "tcp send_lat" "$(xfer_latency_ns send_lat --transport tcp -s 8 -n "$tcp_lat_iters")"
  add "tcp write_lat" "$(xfer_latency_ns write_lat --transport tcp -s 8 -n "$tcp_lat_iters")"
  add "memcpy 16K blocks" "$(memcpy_blocks_gbps "$build" 16384)"
  add "H2rH 16K" "$(matrix_gbps "$xfer" shm H2rH 16K)"
  add "rH2H 16K" "$(matrix_gbps "$xfer" shm rH2H 16K)"
done
m() { printf '%s' "${samples[$1]}" | median; }

# label ours limit unit goal-kind goal; goal-kind "min" wants ours/limit >=
# goal (throughput), "max" wants ours/limit <= goal (latency).
compare() {
  awk -v l="$1" -v a="$2" -v b="$3" -v u="$4" -v k="$5" -v g="$6" 'BEGIN {
    r = a / b
    met = (k == "min") ? (r >= g) : (r <= g)
    printf "%-34s %12.2f %-7s vs %12.2f %-7s ratio %5.2f  goal %s %.2f  %s\n",
           l, a, u, b, u, r, (k == "min") ? ">=" : "<=", g, met ? "met" : "NOT MET" }'
}

echo "xfer vs the limit of the same work on this host; medians of $rounds alternating runs"
echo "units: MiB/s = 2^20 B/s, GB/s = 10^9 B/s, Mmsg/s = 10^6 messages/s, ns one way"
for size in 64K 1M; do
  compare "shm write_bw $size / memcpy" "$(m "write $size")" "$(m "memcpy $size")" MiB/s min 0.95
  compare "shm read_bw  $size / memcpy" "$(m "read $size")" "$(m "memcpy $size")" MiB/s min 0.95
done
to_m() { awk -v v="$1" 'BEGIN { printf "%.3f\n", v / 1e6 }'; }
compare "shm write_bw 8 B rate / ring" "$(to_m "$(m rate)")" "$(to_m "$(m ring)")" Mmsg/s min 1.0
compare "shm write_lat 8 B / cache line" "$(m "shm write_lat")" "$(m line)" ns max 1.2
if [[ -n $ucx ]]; then
  compare "shm prepared 64 x 8 B / UCX put_bw" "$(to_m "$(m "prepared rate")")" \
    "$(to_m "$(m "ucx put_bw")")" Mmsg/s min 1.0
  compare "shm write_lat 8 B / UCX put_lat" "$(m "shm write_lat")" "$(m "ucx put_lat")" ns max 1.0
  compare "shm write_lat prepared / UCX put_lat" "$(m "shm write_lat prepared")" \
    "$(m "ucx put_lat")" ns max 1.0
else
  echo "shm prepared 64 x 8 B / UCX put_bw   skipped: no ucx_perftest (apt-get install ucx-utils)"
  echo "shm write_lat 8 B / UCX put_lat      skipped: no ucx_perftest (apt-get install ucx-utils)"
fi
# Reported, not a goal: the ring hands every message from one core to the
# other; a batched WRITE is stores into mapped memory with no handoff per
# entry, so the ring bounds the one-entry-per-post rate, not this one.
awk -v a="$(to_m "$(m "prepared rate")")" -v b="$(to_m "$(m ring)")" 'BEGIN {
  printf "%-34s %12.2f %-7s vs %12.2f %-7s ratio %5.2f  (per-message handoff; no goal)\n",
         "shm prepared 64 x 8 B / ring", a, "Mmsg/s", b, "Mmsg/s", a / b }'
# Reported, not a goal: a notification is a second signal behind the data
# (a slot of the peer's ring, read by its GetNotifications), where
# write_lat's peer watches the data's own last byte.
awk -v a="$(m "shm write_lat notify")" -v b="$(m "shm write_lat")" 'BEGIN {
  printf "%-34s %12.2f %-7s vs %12.2f %-7s ratio %5.2f  (a second signal; no goal)\n",
         "shm write_lat --notify / write_lat", a, "ns", b, "ns", a / b }'
compare "tcp write_bw 1M / iperf3" "$(m tcp)" "$(m iperf3)" MiB/s min 1.0
compare "tcp send_lat 8 B / TCP ping-pong" "$(m "tcp send_lat")" "$(m "tcp pingpong")" ns max 1.2
compare "tcp write_lat 8 B / TCP ping-pong" "$(m "tcp write_lat")" "$(m "tcp pingpong")" ns max 1.5
compare "matrix shm H2rH 16K / memcpy" "$(m "H2rH 16K")" "$(m "memcpy 16K blocks")" GB/s min 0.9
compare "matrix shm rH2H 16K / memcpy" "$(m "rH2H 16K")" "$(m "memcpy 16K blocks")" GB/s min 0.9
