# Shared by the baseline scripts in bench/: the measurements both take the
# same way. Source it; every function prints one number on stdout.

# The median of the numbers on stdin, one a line.
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# iperf3, one stream over loopback for 2 s with LENGTH-byte writes (default
# 1M, its largest; "default" for iperf3's own 128 KiB): the receiver's
# throughput in bytes/s.
iperf3_bytes_per_s() {  # [LENGTH]
  local length=${1:-1M}
  local length_flag=(-l "$length")
  [[ $length == default ]] && length_flag=()
  local port=$((20000 + RANDOM % 20000))
  iperf3 -s -1 -p "$port" >/dev/null 2>&1 &
  local server=$!
  for _ in $(seq 50); do ss -ltn | grep -q ":$port " && break; sleep 0.05; done
  iperf3 -c 127.0.0.1 -p "$port" -t 2 "${length_flag[@]}" -f m 2>/dev/null |
    awk '/receiver/ { for (i = 1; i <= NF; i++) if ($(i+1) == "Mbits/sec") printf "%.0f\n", $i * 1e6 / 8 }'
  wait "$server" 2>/dev/null || true
}

# One UCX ucx_perftest run over shared memory (UCX_TLS=posix,self): a
# server in the background on a free port, the client here. Prints the
# "Final:" line's fields: for *_bw tests the overall message rate
# (messages/s), for *_lat tests the median one-way latency in ns. Needs
# ucx_perftest (Debian: ucx-utils).
ucx_shm() {  # TEST SIZE ITERATIONS
  local port=$((20000 + RANDOM % 20000))
  UCX_TLS=posix,self ucx_perftest -p "$port" >/dev/null 2>&1 &
  local server=$!
  for _ in $(seq 50); do ss -ltn | grep -q ":$port " && break; sleep 0.05; done
  UCX_TLS=posix,self timeout 120 ucx_perftest 127.0.0.1 -p "$port" -t "$1" -s "$2" -n "$3" \
    2>/dev/null | awk -v t="$1" '/^Final:/ {
      if (t ~ /_lat$/) printf "%.0f\n", $3 * 1000; else printf "%.0f\n", $NF }'
  wait "$server" 2>/dev/null || true
}

# Google Benchmark's bytes_per_second for the one benchmark FILTER selects,
# from bench/memcpy_baseline in build DIR.
memcpy_bytes_per_s() {  # BUILD_DIR FILTER
  "$1/bench/memcpy_baseline" --benchmark_filter="$2" --benchmark_min_time=0.3 \
    --benchmark_format=csv 2>/dev/null | awk -F, 'NR > 1 && $6 != "" { printf "%.0f\n", $6 }'
}

# The median GB/s (10^9 bytes/s) of one `xfer matrix --loopback` cell, from
# its CSV row.
matrix_gbps() {  # XFER transport direction block [matrix flags...]
  local csv
  csv=$(mktemp)
  "$1" matrix --loopback --quiet --transports "$2" --directions "$3" --block_sizes "$4" \
    --csv "$csv" "${@:5}" >/dev/null
  python3 - "$csv" <<'PY'
import csv, sys
row = next(csv.DictReader(open(sys.argv[1])))
assert row["status"] == "ok", row
print(row["median_GB_per_s"])
PY
  rm -f "$csv"
}

# Single-core memcpy of 128 MiB in BLOCK-byte pieces, as a matrix cell
# moves it, in GB/s.
memcpy_blocks_gbps() {  # BUILD_DIR BLOCK_BYTES
  memcpy_bytes_per_s "$1" "BM_MemcpyBlocks/$2/134217728\$" | awk '{ printf "%.3f\n", $1 / 1e9 }'
}
