#!/usr/bin/env bash
# The GPU check, for a machine with one NVIDIA GPU and its driver. Runs from
# a folder packed by tests/gpu/pack.sh (the GPU machine has none of the
# project's packages), in well under 5 minutes:
#   1. the libxfer device-memory tests (tests/cuda), data checked byte for
#      byte; on a GPU host none of them may skip;
#   2. xfer matrix --loopback over every D direction: each cell must read
#      n/a with the transport's reason (no transport carries device memory
#      yet) and never a figure, while the H2rH cells are measured.
# Writes its logs and the matrix JSON to OUT (default: ./gpu-out).
#   bash run.sh [PACKED_DIR] [OUT]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
packed=${1:-$here}
out=${2:-$PWD/gpu-out}
mkdir -p "$out"
export LD_LIBRARY_PATH="$packed/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
failed=0
step() { echo; echo "== $*"; }
fail() { echo "FAIL: $*"; failed=1; }

step "the GPU"
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,memory.total --format=csv,noheader || fail "nvidia-smi"
"$packed/bin/xfer" -V

step "device-memory tests"
# The two tests that expect a host without a GPU skip here by design.
timeout 120 "$packed/bin/cuda_tests" \
  --gtest_filter='-*WithoutADriver*:*WithoutAUsableGpu*' 2>&1 | tee "$out/cuda_tests.log"
[[ ${PIPESTATUS[0]} -eq 0 ]] || fail "cuda_tests"
grep -q '^\[  SKIPPED \]' "$out/cuda_tests.log" && fail "a device-memory test skipped on a GPU host"

step "matrix: every D direction, and H2rH as the measured control"
timeout 180 "$packed/bin/xfer" matrix --loopback --quiet \
  --directions D2rD,D2rH,H2rD,rD2D,rH2D,rD2H,H2rH --block_sizes 64K,2M \
  --transfer_size 64M --loops 3 --json "$out/matrix-d.json" 2>&1 | tee "$out/matrix.log"
[[ ${PIPESTATUS[0]} -eq 0 ]] || fail "xfer matrix"
python3 - "$out/matrix-d.json" <<'PY' || failed=1
import json, sys
cells = json.load(open(sys.argv[1]))["cells"]
bad = []
for c in cells:
    device = "D" in c["direction"]
    if device and (c["status"] != "unsupported" or "does not carry CUDA device memory" not in (c.get("reason") or "")):
        bad.append(c)
    if not device and c["status"] != "ok":
        bad.append(c)
for c in bad:
    print("FAIL: cell", c["transport"], c["direction"], c["block_size"], c["status"], c.get("reason") or "")
print(f"{len(cells)} cells, {len(bad)} wrong")
sys.exit(1 if bad else 0)
PY

echo
if [[ $failed -ne 0 ]]; then echo "GPU check: FAILED"; exit 1; fi
echo "GPU check: passed"
