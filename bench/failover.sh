#!/usr/bin/env bash
# The failover goals (issue 39), measured on real links: two network
# namespaces joined by two veth pairs shaped to RATE (tcp rails), a stream
# of verified WRITE+READ steps, rail 1's veth taken down mid-stream
# (tests/e2e/rails/failover_netns.sh). Prints each figure against its goal:
#   - recovery after a silent loss (nothing announces it to tcp):
#     <= slice timeout + 200 ms;
#   - recovery after an announced loss (`ip link set down`): <= 200 ms;
#   - the survivor's rate >= 0.9x what rail 0 carried alone before;
#   - the return: rail 1 carries bytes again <= 5 s after it is mended;
#   - no step failed, no byte wrong.
# Exit status: non-zero when a goal is missed.
#   sudo bash bench/failover.sh [BUILD_DIR] [RATE]
set -uo pipefail
build=${1:-build/release}
exec bash "$(dirname "$0")/../tests/e2e/rails/failover_netns.sh" "$(realpath "$build")/python" \
  --gate "${2:-1gbit}"
