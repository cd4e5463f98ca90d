#!/usr/bin/env bash
# The GPU check, for a machine with one NVIDIA GPU and its driver. Runs from
# a folder packed by tests/gpu/pack.sh (the GPU machine has none of the
# project's packages), in well under 5 minutes:
#   1. the libxfer device-memory tests (tests/cuda): allocation, detection,
#      the driver's copies, and shm and tcp between two processes on one GPU
#      in every D direction, data checked byte for byte; none may skip here;
#   2. xfer matrix --loopback over every D direction on shm and tcp: every
#      cell must be measured and name its device path (CUDA IPC over shm,
#      staged over tcp), H2rH is the host control, and the local copy
#      anchors (H2D, D2H, D2D) must be measured;
#   3. every ratio of issue 29's goals (ratios.py): shm's device cells
#      against the local copy anchors, tcp's against its host control,
#      each with its goal and whether it is met (reported, not failed);
#   4. the same device directions with --device_path staged (the engine's
#      staging pipeline), every cell measured, beside the direct ones.
# Writes its logs and the matrix JSON to OUT (default: ./gpu-out).
#   bash run.sh [PACKED_DIR] [OUT]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
packed=${1:-$here}
out=${2:-$PWD/gpu-out}
mkdir -p "$out"
export LD_LIBRARY_PATH="$packed/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export XFER_DEVICE_PEER="$packed/bin/cuda_device_peer"
failed=0
step() { echo; echo "== $*"; }
fail() { echo "FAIL: $*"; failed=1; }

step "the GPU"
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,memory.total --format=csv,noheader || fail "nvidia-smi"
"$packed/bin/xfer" -V

step "device-memory tests"
# The tests that expect a host without a GPU skip here by design.
timeout 150 "$packed/bin/cuda_tests" \
  --gtest_filter='-*WithoutADriver*:*WithoutAUsableGpu*' 2>&1 | tee "$out/cuda_tests.log"
[[ ${PIPESTATUS[0]} -eq 0 ]] || fail "cuda_tests"
# No test may skip for lack of a GPU. A test that needs the CUDA toolkit's
# own files (its stub libcuda.so), which a GPU host with only the driver
# lacks, says so in its name (*Toolkit*) and may skip for that reason.
skipped=$(grep -E '^\[  SKIPPED \] [A-Za-z]' "$out/cuda_tests.log" | grep -v 'Toolkit' || true)
[[ -z $skipped ]] || fail "a device-memory test skipped on a GPU host: $skipped"

step "matrix: every D direction on shm and tcp, H2rH as the host control"
timeout 240 "$packed/bin/xfer" matrix --loopback --quiet --transports shm,tcp \
  --directions D2rD,D2rH,H2rD,rD2D,rH2D,rD2H,H2rH --block_sizes 16K,64K,2M,8M \
  --transfer_size 128M --loops 5 --json "$out/matrix-d.json" 2>&1 | tee "$out/matrix.log"
[[ ${PIPESTATUS[0]} -eq 0 ]] || fail "xfer matrix"
python3 - "$out/matrix-d.json" <<'PY' || failed=1
import json, sys
doc = json.load(open(sys.argv[1]))
bad = []
for c in doc["cells"]:
    device = "D" in c["direction"]
    want_path = {"shm": "CUDA IPC", "tcp": "staged through pinned host memory, 2 x 4 MiB"}
    if c["status"] != "ok":
        bad.append(c)
    elif device and (c.get("path") or {}).get("device") != want_path[c["transport"]]:
        bad.append(c)
anchors = (doc.get("anchors") or {}).get("cells", [])
bad += [a for a in anchors if a["status"] != "ok"]
expected = 3 * len(doc["config"]["block_sizes"])  # H2D, D2H, D2D per block size
if len(anchors) != expected:
    print(f"FAIL: {len(anchors)} anchors, expected {expected}")
    bad.append({})
for c in bad:
    print("FAIL:", json.dumps(c)[:400])
print(f"{len(doc['cells'])} cells and {len(anchors)} anchors, {len(bad)} wrong")
sys.exit(1 if bad else 0)
PY

step "ratios against the goals"
python3 "$packed/ratios.py" "$out/matrix-d.json" | tee "$out/ratios.txt" || fail "ratios.py"

step "staged: the initiator's device buffers through the engine's pinned staging"
# Issue 29, §3: --device_path staged moves device memory through the
# engine's staging pipeline on any transport; side by side with the direct
# cells above, it shows what the direct path buys.
timeout 150 "$packed/bin/xfer" matrix --loopback --quiet --transports shm,tcp \
  --directions D2rD,D2rH,rD2H,H2rH --block_sizes 64K,2M \
  --transfer_size 64M --loops 3 --device_path staged --json "$out/matrix-staged.json" 2>&1 |
  tee "$out/matrix-staged.log"
[[ ${PIPESTATUS[0]} -eq 0 ]] || fail "xfer matrix --device_path staged"
python3 - "$out/matrix-d.json" "$out/matrix-staged.json" <<'PY' || failed=1
import json, sys
direct = {(c["transport"], c["direction"], c["block_size"]): c
          for c in json.load(open(sys.argv[1]))["cells"]}
bad = 0
print(f"{'cell':<22}{'direct GB/s':>12}{'staged GB/s':>12}{'staged/direct':>15}")
for c in json.load(open(sys.argv[2]))["cells"]:
    path = c.get("path") or {}
    if c["status"] != "ok" or not path.get("staged"):
        print("FAIL:", json.dumps(c)[:400])
        bad += 1
        continue
    d = direct.get((c["transport"], c["direction"], c["block_size"]))
    name = f"{c['transport']} {c['direction']} {c['block_label']}"
    if d and d.get("median_gbps"):
        print(f"{name:<22}{d['median_gbps']:>12.2f}{c['median_gbps']:>12.2f}"
              f"{c['median_gbps'] / d['median_gbps']:>15.2f}")
    else:
        print(f"{name:<22}{'-':>12}{c['median_gbps']:>12.2f}")
sys.exit(1 if bad else 0)
PY

echo
if [[ $failed -ne 0 ]]; then echo "GPU check: FAILED"; exit 1; fi
echo "GPU check: passed"
