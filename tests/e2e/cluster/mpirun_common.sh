# Sourced by the cluster matrix tests: how they start ranks under Open MPI.
# As root (CI runs as root) mpirun needs its two consent variables; ranks
# talk through shared memory (vader) only, so no test depends on the
# host's network for MPI's own messages, and oversubscription lets 4 ranks
# share 2 cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader
# No hwloc binding: four ranks on two cores must share them.
export OMPI_MCA_hwloc_base_binding_policy=none

fail() { echo "FAIL: $*" >&2; exit 1; }

# check_json FILE PYTHON-ASSERTIONS: runs the assertions with `doc` bound to
# the parsed file.
check_json() {
  local file=$1 code=$2
  /usr/bin/python3 - "$file" <<PY || fail "$file: the checks above failed"
import json, sys
doc = json.load(open(sys.argv[1]))
cells = doc["cells"]
ok = [c for c in cells if c["status"] == "ok"]
$code
PY
}
