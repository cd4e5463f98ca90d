# Two network namespaces joined by RAILS veth pairs, each pair its own
# /24 and shaped with tc to RATE in both directions, so that the link and
# not the CPU binds. Sourced (not run) by rails_split.sh and
# bench/rails.sh:
#   source netns_rails.sh; netns_rails_up RAILS RATE   # e.g. 4 1gbit
# Sets: rails_a, rails_b (the namespaces), rails_server (the first pair's
# address in rails_b, which the control connection takes). Removes it all
# on exit. Needs root and iproute2; returns 77 without them.

netns_rails_up() {
  local count=$1 rate=$2
  rails_tag=$(printf '%04x' $(($$ % 65536)))
  # A /16 of 10.0.0.0/8 picked by the pid, one /24 per rail.
  rails_net="10.$((($$ % 50) + 150))"
  rails_a="xra$rails_tag"
  rails_b="xrb$rails_tag"
  if [[ $(id -u) -ne 0 ]] || ! ip netns add "$rails_a" 2>/dev/null; then
    echo "SKIP: network namespaces need root and iproute2 (ip netns add failed)"
    return 77
  fi
  trap netns_rails_down EXIT
  ip netns add "$rails_b"
  ip -n "$rails_a" link set lo up
  ip -n "$rails_b" link set lo up
  local i
  for ((i = 1; i <= count; i++)); do
    ip link add "xa$rails_tag$i" netns "$rails_a" type veth peer name "xb$rails_tag$i" \
      netns "$rails_b"
    ip -n "$rails_a" addr add "$rails_net.$i.1/24" dev "xa$rails_tag$i"
    ip -n "$rails_b" addr add "$rails_net.$i.2/24" dev "xb$rails_tag$i"
    ip -n "$rails_a" link set "xa$rails_tag$i" up
    ip -n "$rails_b" link set "xb$rails_tag$i" up
    # A token bucket on each end's egress: RATE, bursts of 64 KiB, at most
    # 20 ms of queue (more would only add latency).
    ip netns exec "$rails_a" tc qdisc add dev "xa$rails_tag$i" root tbf rate "$rate" \
      burst 64kb latency 20ms
    ip netns exec "$rails_b" tc qdisc add dev "xb$rails_tag$i" root tbf rate "$rate" \
      burst 64kb latency 20ms
  done
  # Up is not yet running: the kernel marks a veth's carrier on after a
  # moment (its link watch runs at most once a second), and tcp offers rails
  # only on running interfaces. Wait for every end to say so.
  local waited
  for ((waited = 0; waited < 50; waited++)); do
    if ! ip -n "$rails_a" -o link show | grep -v ' lo:' | grep -q -v 'state UP' &&
      ! ip -n "$rails_b" -o link show | grep -v ' lo:' | grep -q -v 'state UP'; then
      break
    fi
    sleep 0.1
  done
  rails_server="$rails_net.1.2"
}

netns_rails_down() {
  ip netns delete "$rails_a" 2>/dev/null || true
  ip netns delete "$rails_b" 2>/dev/null || true
}

# netns_rails_run OUT ARGS...: `xfer ARGS` as the server in rails_b and as
# the client in rails_a against it; the client's stdout in OUT. Both must
# exit 0.
netns_rails_run() {
  local out=$1; shift
  local port=$((20000 + RANDOM % 20000))
  ip netns exec "$rails_b" "$xfer" "$@" -p "$port" --transport tcp --timeout 30 \
    >"$out.server" 2>&1 &
  local server=$!
  local rc=0
  ip netns exec "$rails_a" "$xfer" "$@" -p "$port" --transport tcp --timeout 30 \
    "$rails_server" >"$out" 2>"$out.err" || rc=$?
  wait "$server" || rc=$((rc == 0 ? $? : rc))
  if ((rc != 0)); then
    echo "FAIL: xfer $* exited $rc"; cat "$out" "$out.err" "$out.server"
  fi
  return "$rc"
}
