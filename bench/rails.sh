#!/usr/bin/env bash
# The rails goals (issue 38), measured side by side in one run on tcp
# rails across two network namespaces, each veth pair shaped to RATE
# (default 1gbit: four such links carry 4 Gbit/s, which this 2-core host's
# tcp moves with CPU to spare, so that the links bind, not the CPU):
#   - write_bw -s 1M over 2 rails >= 1.8x one rail; over 4 rails >= 3.4x;
#   - small messages (8 B .. 4 KiB) over 2 rails: message rate >= 0.95x
#     one rail (slicing must not tax them).
# Prints each ratio against its goal; exit status: the goals missed.
#   sudo bash bench/rails.sh [BUILD_DIR] [RATE]
set -uo pipefail
build=${1:-build/release}
rate=${2:-1gbit}
xfer=$build/src/cli/xfer
source "$(dirname "$0")/../tests/e2e/rails/netns_rails.sh"
netns_rails_up 4 "$rate"
rc=$?
((rc == 0)) || exit "$rc"
work=$(mktemp -d)
trap 'netns_rails_down; rm -rf "$work"' EXIT

# The BW average (MiB/s) or message rate (Mpps) of the row for SIZE.
column() { awk -v size="$2" -v col="$3" '$1 == size {print $col}' "$1"; }

missed=0
judge() {  # NAME VALUE BASE GOAL (ratio >= GOAL)
  local ratio
  ratio=$(awk -v v="$2" -v b="$3" 'BEGIN { printf "%.2f", v / b }')
  local verdict=ok
  awk -v r="$ratio" -v g="$4" 'BEGIN { exit !(r >= g) }' || { verdict=MISSED; missed=$((missed + 1)); }
  printf '  %-44s %8.2fx   goal >= %sx   %s\n' "$1" "$ratio" "$4" "$verdict"
}

echo "tcp rails across namespaces, each link shaped to $rate (tc tbf)"
for rails in 1 2 4; do
  netns_rails_run "$work/bw$rails" write_bw -s 1M -n $((300 * rails)) --rails "$rails" || exit 1
  echo "  $rails rail(s): $(column "$work/bw$rails" 1048576 4) MiB/s;" \
    "$(grep '^ rails:' "$work/bw$rails" || echo ' one rail')"
done
one=$(column "$work/bw1" 1048576 4)
judge "write_bw 1 MiB, 2 rails / 1 rail" "$(column "$work/bw2" 1048576 4)" "$one" 1.8
judge "write_bw 1 MiB, 4 rails / 1 rail" "$(column "$work/bw4" 1048576 4)" "$one" 3.4
for size in 8 4096; do
  for rails in 1 2; do
    netns_rails_run "$work/small$rails" write_bw -s "$size" -n 200000 --rails "$rails" || exit 1
  done
  judge "write_bw $size B message rate, 2 rails / 1 rail" \
    "$(column "$work/small2" "$size" 5)" "$(column "$work/small1" "$size" 5)" 0.95
done
exit "$missed"
