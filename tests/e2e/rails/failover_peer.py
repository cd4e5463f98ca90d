"""Both ends of the link-down failover run (failover_netns.sh), through the
Python API as a KV-cache mover uses it.

  failover_peer.py target --listen HOST:PORT --size BYTES
      Serves one region of BYTES (REMOTE_READ_WRITE) and prints
      {"listen": ..., "region": ADDRESS}; stays until stdin closes.

  failover_peer.py initiator --connect HOST:PORT --region ADDRESS --size BYTES
                   --baseline S --before S --after S --faults JSON [--io-timeout S]
      1. Over rail 0 alone (rails=1) for --baseline seconds: what one rail
         carries.
      2. For each fault of --faults (a list of {"name", "cmd", "restore"}):
         over two rails (rails=2, a new connection) for --before seconds,
         then runs `cmd` (a shell command that breaks rail 1) a moment into
         a step, then --after seconds more; then runs `restore` (which
         mends it) and streams --back seconds more, while the engines set
         rail 1 up again.
      Each step WRITEs BYTES of fresh random bytes and READs them back into
      a second buffer, and compares: every byte is verified, every request
      must succeed. Each phase uses its own part of the target's region.
      Prints one JSON object: the rates (GB/s of bytes moved, WRITE and
      READ), and per fault how long the step in flight at the fault took
      to complete after it (the recovery), the survivor's rate after, the
      rails' state from PeerInfo before the restore and at the end, how
      long after the restore rail 1 was up again (the engine's record) and
      carried bytes again (the first step that moved some on it), and any
      failure or mismatch.
"""

import argparse
import json
import os
import subprocess
import threading
import sys
import time

import xfer


def serve(args):
    engine = xfer.Engine(name="target", listen=args.listen, transports=["tcp"],
                         io_timeout=args.io_timeout)
    region = engine.allocate(args.size * args.phases)
    print(json.dumps({"listen": engine.listen_address, "region": region.address}), flush=True)
    sys.stdin.read()  # until the driver closes it
    engine.close()


class Stream:
    """WRITE-then-READ-back steps of one connection, each verified."""

    def __init__(self, engine, peer, region, size):
        self.engine, self.peer, self.region, self.size = engine, peer, region, size
        self.source = engine.allocate(size)
        self.back = engine.allocate(size)
        self.steps = []  # (start, end) of each verified step, time.monotonic()
        self.errors = []

    def step(self):
        data = os.urandom(self.size)
        with memoryview(self.source) as view:
            view[:] = data
        start = time.monotonic()
        try:
            self.engine.write(self.peer, [(self.source.address, self.region, self.size)],
                              timeout=30.0)
            self.engine.read(self.peer, [(self.back.address, self.region, self.size)],
                             timeout=30.0)
        except xfer.Error as error:
            self.errors.append(f"step {len(self.steps)}: {error}")
            return False
        end = time.monotonic()
        with memoryview(self.back) as view:
            if view.tobytes() != data:
                self.errors.append(f"step {len(self.steps)}: the bytes read back differ")
                return False
        self.steps.append((start, end))
        return True

    def run_for(self, seconds):
        until = time.monotonic() + seconds
        while time.monotonic() < until:
            if not self.step():
                return False
        return True

    def rate(self, since, until):
        """GB/s of bytes moved (each step moves 2 * size) by steps within [since, until]."""
        steps = [(s, e) for s, e in self.steps if s >= since and e <= until]
        if not steps:
            return 0.0
        return 2 * self.size * len(steps) / (steps[-1][1] - steps[0][0]) / 1e9


def run_fault(engine, args, fault, region):
    """One connection over two rails, broken by `fault` mid-stream."""
    result = {"name": fault["name"]}
    peer = engine.connect(args.connect, transport="tcp", rails=2)
    result["rails"] = [f"{r.local}->{r.remote}" for r in engine.peer_info(peer).rails]
    stream = Stream(engine, peer, region, args.size)
    start = time.monotonic()
    stream.run_for(args.before)
    result["two_rails_gb_per_s"] = stream.rate(start, time.monotonic())
    broken = {}

    def break_rail():  # a moment into the next step, which is then in flight
        time.sleep(0.01)
        broken["at"] = time.monotonic()
        broken["wall"] = time.time()
        broken["rc"] = subprocess.run(fault["cmd"], shell=True).returncode

    breaker = threading.Thread(target=break_rail)
    breaker.start()
    stream.run_for(args.after)
    breaker.join()
    result["cmd_rc"] = broken["rc"]
    mended_at = time.monotonic()
    after = [(s, e) for s, e in stream.steps if e > broken["at"]]
    if after:
        # The step in flight at the fault ends once its slices on the lost
        # rail are dealt again: the recovery.
        result["recovery_ms"] = (after[0][1] - broken["at"]) * 1e3
        result["survivor_gb_per_s"] = stream.rate(after[0][1], mended_at)
    rails = engine.peer_info(peer).rails
    result["rail_state"] = rail_state(rails)
    # WRITEs the lost rail failed are dealt again once the peer confirms
    # it abandoned its end (the fence); the record says when one was not.
    result["unfenced"] = [e.reason for r in rails for e in r.events if "unfenced" in e.reason]
    # The engine's own record: when it took rail 1 down, after the fault.
    if rails[1].events:
        result["detected_ms"] = (rails[1].events[0].time - broken["wall"]) * 1e3
    # 3. Mended: the engines set rail 1 up again on their own.
    if fault.get("restore"):
        mended_wall = time.time()
        mended_at = time.monotonic()
        result["restore_rc"] = subprocess.run(fault["restore"], shell=True).returncode
        carried = rails[1].bytes
        until = mended_at + args.back
        while time.monotonic() < until and stream.step():
            rails = engine.peer_info(peer).rails
            if "carrying_ms" not in result and rails[1].bytes > carried:
                result["carrying_ms"] = (stream.steps[-1][1] - mended_at) * 1e3
                carrying_from = stream.steps[-1][1]
        rails = engine.peer_info(peer).rails
        result["rail_state_back"] = rail_state(rails)
        ups = [e for e in rails[1].events if e.up and e.time >= mended_wall]
        if ups:
            result["returned_ms"] = (ups[0].time - mended_wall) * 1e3
        if "carrying_ms" in result:
            result["back_gb_per_s"] = stream.rate(carrying_from, time.monotonic())
    result["steps"] = len(stream.steps)
    result["errors"] = stream.errors
    engine.disconnect(peer)
    return result


def rail_state(rails):
    return [{"up": r.up, "failure": r.failure, "bytes": r.bytes,
             "retried_bytes": r.retried_bytes} for r in rails]


def initiate(args):
    faults = json.loads(args.faults)
    result = {"errors": [], "faults": []}
    engine = xfer.Engine(name="initiator", listen="", transports=["tcp"],
                         io_timeout=args.io_timeout)
    # 1. What rail 0 carries alone.
    peer = engine.connect(args.connect, transport="tcp", rails=1)
    alone = Stream(engine, peer, args.region, args.size)
    start = time.monotonic()
    alone.run_for(args.baseline)
    result["one_rail_gb_per_s"] = alone.rate(start, time.monotonic())
    result["errors"] += alone.errors
    engine.disconnect(peer)
    # 2. Each fault on its own connection and its own part of the region,
    # so that nothing a broken rail still delivers late lands in another's.
    for i, fault in enumerate(faults):
        outcome = run_fault(engine, args, fault, args.region + (i + 1) * args.size)
        result["errors"] += [f"{fault['name']}: {e}" for e in outcome["errors"]]
        result["faults"].append(outcome)
    engine.close()
    print(json.dumps(result), flush=True)
    return 0 if not result["errors"] else 1


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("role", choices=["target", "initiator"])
    parser.add_argument("--listen")
    parser.add_argument("--connect")
    parser.add_argument("--region", type=int)
    parser.add_argument("--size", type=int, required=True)
    parser.add_argument("--baseline", type=float, default=2.0)
    parser.add_argument("--before", type=float, default=2.0)
    parser.add_argument("--after", type=float, default=4.0)
    parser.add_argument("--back", type=float, default=3.0,
                        help="seconds streamed after the fault's restore")
    parser.add_argument("--faults", default="[]",
                        help='JSON list of {"name", "cmd", "restore"} breaking rail 1')
    parser.add_argument("--phases", type=int, default=1,
                        help="target: parts of SIZE bytes to serve, one per phase")
    parser.add_argument("--io-timeout", type=float, default=2.0,
                        help="seconds; the slice timeout is half of it")
    args = parser.parse_args()
    return serve(args) if args.role == "target" else initiate(args)


if __name__ == "__main__":
    sys.exit(main())
