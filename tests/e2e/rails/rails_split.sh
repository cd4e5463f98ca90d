#!/usr/bin/env bash
# tcp rails across network namespaces: two veth pairs, each shaped to
# 1 Gbit/s, so that each rail's link binds. A write_bw over --rails 2 must
# put each rail's ends on their own pair (the header lists them) and split
# the bytes within 35-65 % (equal links; run alone, as ctest's RUN_SERIAL
# has it, they split 48-52 %: the margin is for a host busy with more). The speeds are printed, not
# judged: the goals (1.8x for two rails, 3.4x for four) are bench/rails.sh's,
# measured on an idle host.
#   rails_split.sh XFER_BINARY
# Needs root and iproute2's netns; exits 77 (ctest: skipped) without them.
set -uo pipefail
xfer=$1
here=$(cd "$(dirname "$0")" && pwd)
source "$here/netns_rails.sh"
netns_rails_up 2 1gbit
rc=$?
((rc == 0)) || exit "$rc"
work=$(mktemp -d)
trap 'netns_rails_down; rm -rf "$work"' EXIT

avg() { awk '$1 == 1048576 {print $4}' "$1"; }

netns_rails_run "$work/one" write_bw -s 1M -n 150 --rails 1 || exit 1
netns_rails_run "$work/two" write_bw -s 1M -n 300 --rails 2 || exit 1
cat "$work/two"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
grep -q " Rails           : 2 ($rails_net.1.1->$rails_net.1.2, $rails_net.2.1->$rails_net.2.2)" \
  "$work/two" || fail "the header does not list one rail per veth pair"
split=$(grep '^ rails:' "$work/two") || fail "no split line"
first=$(sed -E 's/^ rails: ([0-9]+)%.*/\1/' <<<"$split")
if ! [[ $first =~ ^[0-9]+$ ]] || ((first < 35 || first > 65)); then
  fail "rail 0 carried $first % of the bytes, outside 35-65 %: $split"
fi
echo "one rail: $(avg "$work/one") MiB/s, two rails: $(avg "$work/two") MiB/s (1 Gbit/s links)"
exit "$failures"
