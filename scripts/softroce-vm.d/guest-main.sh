#!/bin/bash
# Runs inside the Soft-RoCE VM, chrooted into the host's root, with
# stdout/stderr on ttyS1. Started by the VM's /init (see init), which has
# already mounted everything and copied the run folder to kRunDir:
#   conf        bash: MTU (of the veth pair and the NICs), NIC_COUNT
#   command.sh  bash: environment, cd, exec of the user's command
#
# Contract: waits for the rdma modules, creates vethA 169.254.77.1/24 <->
# vethB 169.254.77.2/24 with rxe0 on vethA and rxe1 on vethB, waits until
# both ports are PORT_ACTIVE; for each of NIC_COUNT virtio-net NICs (found
# by the MAC the harness gave it) names it nicI, gives it 169.254.78.(I+1)/24
# and rxe(I+2), and waits for that port too; then runs command.sh, then writes
# "xfer-softroce: exit=N" (N = the command's exit status) to /dev/kmsg and
# exits 0. If the setup fails it writes "xfer-softroce: setup failed: WHY"
# instead and exits 1; the command does not run.
set -eEuo pipefail

readonly kRunDir=/run/xfer-softroce
readonly kModprobeStatus=/dev/.xfer-softroce-modprobe # written by /init
readonly kWaitSeconds=20
PATH=/usr/sbin:/usr/bin:/sbin:/bin

kmsg() { echo "<2>xfer-softroce: $*" >/dev/kmsg; }

setup_failed() {
  echo "softroce-vm (guest): setup failed: $*" >&2
  kmsg "setup failed: $*"
  exit 1
}

# Bounded wait: polls CONDITION... until it holds or kWaitSeconds pass.
wait_for() {
  local deadline=$((SECONDS + kWaitSeconds))
  until "$@"; do
    ((SECONDS < deadline)) || return 1
    sleep 0.05
  done
}

# /init loads the rdma modules in the background while the mounts and this
# script's start-up happen; it writes modprobe's status when done.
wait_modules() {
  wait_for test -s "$kModprobeStatus" ||
    setup_failed "the rdma modules did not load within ${kWaitSeconds}s"
  [[ $(<"$kModprobeStatus") == 0 ]] ||
    setup_failed "modprobe of the rdma modules failed (see the console log)"
}

# Writes VALUE to net/FAMILY/conf/IFACE/KEY for each IFACE (all, vethA, ...).
set_sysctl() {
  local family=$1 key=$2 value=$3 iface
  shift 3
  for iface in "$@"; do
    echo "$value" >"/proc/sys/net/$family/conf/$iface/$key"
  done
}

# rxe routes out of its own netdev, so packets arrive on the peer veth with a
# local source address: rp_filter=0 and accept_local=1 keep them. DAD off, or
# GID 0 (fe80::) fails modify_qp to RTR until DAD finishes.
configure_sysctls() {
  set_sysctl ipv4 rp_filter 0 "$@"
  set_sysctl ipv4 accept_local 1 "$@"
  set_sysctl ipv6 accept_dad 0 "$@"
  set_sysctl ipv6 dad_transmits 0 "$@"
}

# One ip and one rdma process: each start costs 30-100 ms under TCG. The
# veths inherit "default" at creation, so DAD is already off when they come
# up; the per-device writes afterwards only make that explicit.
create_rxe_pair() {
  configure_sysctls all default
  ip -batch - <<EOF
link set lo up
link add vethA mtu $MTU type veth peer name vethB mtu $MTU
addr add 169.254.77.1/24 dev vethA
addr add 169.254.77.2/24 dev vethB
link set vethA up
link set vethB up
EOF
  configure_sysctls vethA vethB
  # `rdma -batch` parses as `-b atch`, so the batch goes through a file.
  printf '%s\n' 'link add rxe0 type rxe netdev vethA' \
    'link add rxe1 type rxe netdev vethB' >"$kRunDir/rdma.batch"
  rdma -b "$kRunDir/rdma.batch"
}

# The interface whose MAC is $1, or nothing.
interface_with_mac() {
  local dev
  for dev in /sys/class/net/*; do
    [[ $(<"$dev/address") == "$1" ]] && echo "${dev##*/}" && return
  done
  return 0
}

# The harness's nic_mac, for the guest.
nic_mac() { printf '52:54:00:77:00:%02x' "$(($1 + 1))"; }

# virtio_net loads with the rdma group, so the interfaces exist by now.
create_nic_rxes() {
  local i dev
  for ((i = 0; i < NIC_COUNT; i++)); do
    wait_for test -n "$(interface_with_mac "$(nic_mac "$i")")" ||
      setup_failed "no interface with MAC $(nic_mac "$i") (virtio_net not loaded?)"
    dev=$(interface_with_mac "$(nic_mac "$i")")
    ip link set dev "$dev" name "nic$i"
    configure_sysctls "nic$i"
    ip link set dev "nic$i" mtu "$MTU"
    ip addr add "169.254.78.$((i + 1))/24" dev "nic$i"
    ip link set dev "nic$i" up
    rdma link add "rxe$((i + 2))" type rxe netdev "nic$i"
  done
}

ports_active() {
  local dev state i
  local devices=(rxe0 rxe1)
  for ((i = 0; i < NIC_COUNT; i++)); do devices+=("rxe$((i + 2))"); done
  for dev in "${devices[@]}"; do
    read -r state <"/sys/class/infiniband/$dev/ports/1/state" || return 1
    [[ $state == *ACTIVE* ]] || return 1
  done
}

# Runs command.sh in a subshell (one bash start fewer than a new bash) with
# the shell options reset; prints nothing, returns the command's status.
run_command() {
  (
    set +eEuo pipefail
    trap - ERR
    # shellcheck source=/dev/null
    source "$kRunDir/command.sh"
  ) </dev/null
}

main() {
  # shellcheck source=/dev/null
  source "$kRunDir/conf"
  # Any failing setup command ends the run with a "setup failed" marker.
  trap 'setup_failed "line $LINENO: $BASH_COMMAND"' ERR
  wait_modules
  create_rxe_pair
  create_nic_rxes
  wait_for ports_active 2>/dev/null ||
    setup_failed "the rxe ports not PORT_ACTIVE within ${kWaitSeconds}s"
  trap - ERR

  local status=0
  run_command || status=$?
  kmsg "exit=$status"
}

main
