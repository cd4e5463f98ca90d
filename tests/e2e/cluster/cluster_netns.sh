#!/usr/bin/env bash
# Stage 2 of the cluster matrix: ranks on separate (virtual) hosts. Four
# network namespaces, each with its own hostname (netns_agent.sh), joined by
# a bridge; Open MPI starts one rank in each through its rsh launcher with
# netns_agent.sh in place of ssh, and its own traffic (the daemons' wire-up
# and the ranks' messages) goes over the bridge too. Every scheme runs over
# tcp, each rank's engine on its namespace's address.
#   cluster_netns.sh XFER_BINARY
# Needs root and iproute2's netns; exits 77 (ctest: skipped) without them.
set -euo pipefail
xfer=$1
here=$(cd "$(dirname "$0")" && pwd)
source "$here/mpirun_common.sh"

# Names unique to this run; a /24 of 10.200.0.0/16 picked by the pid.
tag=$(printf '%04x' $(($$ % 65536)))

# What this needs of the machine, tried rather than guessed: a namespace
# and a bridge (root, iproute2, the bridge driver).
if [[ $(id -u) -ne 0 ]] || ! ip netns add "xprobe$tag" 2>/dev/null; then
  echo "SKIP: creating a network namespace needs root and iproute2 (ip netns add failed)"
  exit 77
fi
ip netns delete "xprobe$tag"
if ! ip link add "xprobe$tag" type bridge 2>/dev/null; then
  echo "SKIP: this kernel cannot create a bridge (ip link add type bridge failed)"
  exit 77
fi
ip link delete "xprobe$tag"
net="10.200.$(($$ % 250 + 1))"
bridge="xb$tag"
hosts=()
work=$(mktemp -d)
cleanup() {
  for host in "${hosts[@]}"; do ip netns delete "$host" 2>/dev/null || true; done
  ip link delete "$bridge" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

ip link add "$bridge" type bridge
ip addr add "$net.254/24" dev "$bridge"
ip link set "$bridge" up
for i in 1 2 3 4; do
  host="xh$tag-$i"
  hosts+=("$host")
  ip netns add "$host"
  ip link add "xv$tag$i" type veth peer name eth0 netns "$host"
  ip link set "xv$tag$i" master "$bridge" up
  ip -n "$host" addr add "$net.$i/24" dev eth0
  ip -n "$host" link set eth0 up
  ip -n "$host" link set lo up
done

# The namespaces share this host's boot, so their engines would pick shm if
# allowed: --transports tcp makes every byte cross the virtual network.
launch=(mpirun -np 4 --host "$(IFS=,; echo "${hosts[*]}")"
        --mca plm_rsh_agent "$here/netns_agent.sh"
        --mca oob_tcp_if_include "$net.0/24"
        --mca btl self,tcp --mca btl_tcp_if_include "$net.0/24")
common=(--transports tcp --directions H2rH,rH2H --block_sizes 16K,256K --transfer_size 1M
        --loops 3 --warmup 1 --timeout 10 --quiet)

run_scheme() {
  local scheme=$1; shift
  timeout 180 "${launch[@]}" "$xfer" matrix --scheme "$scheme" "$@" "${common[@]}" \
    --json "$work/$scheme.json" > "$work/$scheme.out" 2> "$work/$scheme.err" \
    || { cat "$work/$scheme.err"; fail "$scheme across namespaces exited $?"; }
  check_json "$work/$scheme.json" "
hosts = ['${hosts[0]}', '${hosts[1]}', '${hosts[2]}', '${hosts[3]}']
assert doc['run']['outcome'] == 'complete', doc['run']
assert [r['host']['hostname'] for r in doc['ranks']] == hosts, doc['ranks']
for r in doc['ranks']:
    assert r['engine_address'].startswith('$net.%d:' % (r['rank'] + 1)), r['engine_address']
assert cells and len(ok) == len(cells), [c['reason'] for c in cells if c['status'] != 'ok']
assert all(c['transport'] == 'tcp' for c in ok)
"
}
run_scheme all-to-all
run_scheme pairwise
run_scheme incast --incast_target 3
run_scheme fan-out --fan_out_source 2
run_scheme ring
echo "cluster_netns: ok (4 ranks in 4 namespaces, every scheme over tcp)"
