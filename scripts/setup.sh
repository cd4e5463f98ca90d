#!/usr/bin/env bash
# Installs the Debian packages xfer's build, tests and benchmarks need.
# Idempotent: installs only what is missing, and refreshes the package lists
# first (a fresh machine has none).
#   scripts/setup.sh          everything (scripts/test.sh)
#   scripts/setup.sh --demo   only what building the xfer binary needs
#                             (scripts/demo.sh): no browser, MPI, clang,
#                             Python or test frameworks
set -euo pipefail

demo_packages=(
  build-essential cmake ninja-build g++ ccache
  libfmt-dev nlohmann-json3-dev libcli11-dev libssl-dev
  libibverbs-dev librdmacm-dev ibverbs-providers pkg-config
)
packages=(
  build-essential cmake ninja-build g++ ccache
  libgtest-dev googletest libbenchmark-dev
  libfmt-dev nlohmann-json3-dev libcli11-dev
  libssl-dev        # libcrypto: HMAC-SHA256 of the authenticated handshake
  libibverbs-dev librdmacm-dev ibverbs-providers pkg-config  # rdma-core: the verbs transport
  iperf3            # the tcp baseline in bench/run_baselines.sh
  chromium          # headless rendering check of `xfer report` (tests/e2e)
  clang libclang-rt-14-dev  # libFuzzer for scripts/fuzz.sh
  libopenmpi-dev openmpi-bin  # the launcher of the cluster matrix (mpirun xfer matrix)
  # Python bindings (python/): pybind11, pytest and numpy for their tests,
  # venv + pip + setuptools + wheel for `pip install .` without network
  python3-dev pybind11-dev python3-pybind11 python3-pytest python3-numpy
  python3-venv python3-pip python3-setuptools python3-wheel
)

case "${1:-}" in
  "") ;;
  --demo) packages=("${demo_packages[@]}") ;;
  *) echo "usage: $0 [--demo]" >&2; exit 2 ;;
esac

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  sudo_cmd=()
  [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
  echo "setup: installing ${missing[*]}"
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: all packages present"
fi
