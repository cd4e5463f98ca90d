#!/bin/bash
# Open MPI's remote-shell agent for ranks in network namespaces
# (cluster_netns.sh sets --mca plm_rsh_agent to this file): where mpirun
# would run "ssh HOST COMMAND...", this runs COMMAND inside the network
# namespace named HOST, in a UTS namespace of its own whose hostname is
# HOST, so each "host" has its own name, addresses and routes and reaches
# the others only over the virtual network. ssh's options mpirun passes
# (leading dashes) are dropped.
while [[ ${1:-} == -* ]]; do shift; done
host=$1
shift
exec ip netns exec "$host" unshare --uts /bin/sh -c 'hostname "$0" && exec /bin/sh -c "$*"' \
  "$host" "$@"
