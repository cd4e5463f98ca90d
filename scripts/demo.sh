#!/usr/bin/env bash
# README command (a): set up, build, and run the main job — a loopback
# bandwidth sweep on this host, no peer needed, printed as perftest prints it.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh release
exec build/release/src/cli/xfer write_bw --loopback -a "$@"
