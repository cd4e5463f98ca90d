#!/usr/bin/env bash
# README command (a): set up, build, and run the main job — a loopback
# bandwidth sweep on this host, no peer needed, printed as perftest prints it.
set -euo pipefail
cd "$(dirname "$0")/.."
# Only what the xfer binary needs, and only that target: the tests, their
# frameworks and the browser come with scripts/test.sh.
start=$SECONDS
scripts/setup.sh --demo
scripts/build.sh demo
echo "demo: packages and build took $((SECONDS - start)) s"
exec build/demo/src/cli/xfer write_bw --loopback -a "$@"
