"""The far side of the two-process tests: an xfer engine in its own process.

Started by conftest.PeerProcess. It registers three regions before any peer
connects (so the initiator sees them), prints one JSON line

    {"listen": "127.0.0.1:PORT", "regions": {"engine": ID, "object": ID, "readonly": ID}}

waits for one peer, prints {"connected": true}, then answers one JSON command
per stdin line with one JSON line on stdout:

    {"cmd": "digest", "region": NAME, "length": N}   -> {"sha256": HEX} of the first N bytes
    {"cmd": "fill", "region": NAME, "seed": S}       -> {"ok": true}; fills with pattern(S)
    {"cmd": "recv", "region": NAME, "capacity": N}   -> {"bytes": N, "sha256": HEX}
    {"cmd": "send", "region": NAME, "length": N}     -> {"bytes": N}
    {"cmd": "exit"}                                  -> {"ok": true}, then exits 0

Regions: "engine" (engine memory, REMOTE_READ_WRITE), "object" (a registered
bytearray, REMOTE_READ_WRITE; over shm it is reached through process_vm, not
a shared mapping), "readonly" (engine memory, REMOTE_READ only). Any failure
is printed as {"error": "..."} and ends the process with status 1.
"""

import argparse
import hashlib
import json
import random
import sys

import xfer


def pattern(seed, length):
    """The bytes both sides expect for `seed`: reproducible, not periodic."""
    return random.Random(seed).randbytes(length)


def reply(message):
    print(json.dumps(message), flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--transport", required=True)
    parser.add_argument("--size", type=int, required=True, help="bytes of each data region")
    parser.add_argument("--io-timeout", type=float, default=10.0, help="seconds")
    args = parser.parse_args()

    engine = xfer.Engine(name="peer", transports=[args.transport], io_timeout=args.io_timeout)
    backing = bytearray(args.size)
    regions = {
        "engine": engine.allocate(args.size),
        "object": engine.register(backing),
        "readonly": engine.allocate(4096, access=xfer.Access.REMOTE_READ),
    }
    del backing  # the registration holds it
    reply({"listen": engine.listen_address,
           "regions": {name: region.id for name, region in regions.items()}})
    peer = engine.wait_for_peer(timeout=10.0)
    reply({"connected": True})

    for line in sys.stdin:
        command = json.loads(line)
        region = regions.get(command.get("region"))
        name = command["cmd"]
        if name == "digest":
            with memoryview(region) as view:
                reply({"sha256": hashlib.sha256(view[: command["length"]]).hexdigest()})
        elif name == "fill":
            with memoryview(region) as view:
                view[:] = pattern(command["seed"], len(view))
            reply({"ok": True})
        elif name == "recv":
            received = engine.recv(peer, region.address, command["capacity"], timeout=10.0)
            with memoryview(region) as view:
                reply({"bytes": received, "sha256": hashlib.sha256(view[:received]).hexdigest()})
        elif name == "send":
            sent = engine.send(peer, region.address, command["length"], timeout=10.0)
            reply({"bytes": sent})
        elif name == "exit":
            engine.close()
            reply({"ok": True})
            return 0
        else:
            raise ValueError(f"unknown command {name!r}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception as error:  # reported to the test, which shows it
        reply({"error": f"{type(error).__name__}: {error}"})
        sys.exit(1)
