"""Both ends of the link-down failover run (failover_netns.sh), through the
Python API as a KV-cache mover uses it.

  failover_peer.py target --listen HOST:PORT --size BYTES
      Serves one region of BYTES (REMOTE_READ_WRITE) and prints
      {"listen": ..., "region": ADDRESS}; stays until stdin closes.

  failover_peer.py initiator --connect HOST:PORT --region ADDRESS --size BYTES
                   --baseline S --before S --after S --down CMD [--io-timeout S]
      1. Over rail 0 alone (rails=1) for --baseline seconds: what one rail
         carries.
      2. Over two rails (rails=2) for --before seconds, then runs CMD (the
         shell command that downs rail 1's link), then --after seconds more.
      Each step WRITEs BYTES of fresh random bytes and READs them back into
      a second buffer, and compares: every byte is verified, every request
      must succeed. Prints one JSON object: the rates (GB/s of bytes moved,
      WRITE and READ), when the link went down, how long the request in
      flight then took to complete (the recovery), the rails' state from
      PeerInfo, and any failure or mismatch.
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
    region = engine.allocate(args.size)
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


def initiate(args):
    result = {"errors": []}
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

    # 2. Two rails; rail 1's link goes down mid-stream.
    peer = engine.connect(args.connect, transport="tcp", rails=2)
    result["rails"] = [f"{r.local}->{r.remote}" for r in engine.peer_info(peer).rails]
    stream = Stream(engine, peer, args.region, args.size)
    start = time.monotonic()
    stream.run_for(args.before)
    result["two_rails_gb_per_s"] = stream.rate(start, time.monotonic())
    # The link goes down while a step is in flight: from another thread,
    # a moment into the next step.
    down = {}

    def pull_cable():
        time.sleep(0.01)
        down["at"] = time.monotonic()
        down["rc"] = subprocess.run(args.down, shell=True).returncode

    puller = threading.Thread(target=pull_cable)
    puller.start()
    stream.run_for(args.after)
    puller.join()
    result["down_rc"] = down["rc"]
    after = [(s, e) for s, e in stream.steps if e > down["at"]]
    if after:
        # The step in flight when the link went down ends once its slices
        # on the lost rail are dealt again: the recovery.
        result["recovery_ms"] = (after[0][1] - down["at"]) * 1e3
        # The survivor's rate, from the first step that began after the
        # recovery to the end.
        settled = after[0][1]
        result["survivor_gb_per_s"] = stream.rate(settled, time.monotonic())
    result["steps"] = len(stream.steps)
    result["errors"] += stream.errors
    info = engine.peer_info(peer)
    result["rail_state"] = [{"up": r.up, "failure": r.failure, "bytes": r.bytes}
                            for r in info.rails]
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
    parser.add_argument("--down", help="shell command that takes rail 1's link down")
    parser.add_argument("--io-timeout", type=float, default=2.0,
                        help="seconds; the slice timeout is half of it")
    args = parser.parse_args()
    return serve(args) if args.role == "target" else initiate(args)


if __name__ == "__main__":
    sys.exit(main())
