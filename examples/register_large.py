#!/usr/bin/env python3
"""What registering memory costs, as examples/register_large.cc measures it:
allocate (and so register) a large region, deregister it, both timed per
GiB (2^30 bytes). Given an RDMA device, also connect over verbs (to a second
engine in this process) and print what connecting registered with the NIC
(PeerInfo.registration): large regions go in pieces of `piece-bytes` (the
verbs option registration_piece), several at once. Run by ctest
(python.example.register_large).

    PYTHONPATH=build/release/python python3 examples/register_large.py \\
        [MiB] [RDMA-device [piece-bytes]]
"""

import sys
import time

import xfer


def verbs_options(device, piece):
    """The Engine keywords that put it on `device`'s verbs transport."""
    if not device:
        return {}
    options = {"transports": ["verbs"], "verbs_device": device}
    if piece:
        options["verbs_registration_piece"] = piece
    return options


def connect_and_report(engine, device, piece):
    with xfer.Engine(name="target", **verbs_options(device, piece)) as target:
        peer = engine.connect(target.listen_address, transport="verbs")
        info = engine.peer_info(peer)
        r = info.registration
        gib = r.bytes / float(1 << 30)
        print(f"connect over verbs on {info.nic.device}: {r.bytes >> 20} MiB registered with "
              f"the NIC as {r.memory_registrations} memory registrations in {r.seconds:.3f} s "
              f"({r.seconds / gib if gib else 0.0:.3f} s per GiB)")
        engine.disconnect(peer)


def main(mib, device, piece):
    with xfer.Engine(name="registrar", listen="", **verbs_options(device, piece)) as engine:
        start = time.monotonic()
        region = engine.allocate(mib << 20)
        registered = time.monotonic()
        if device:
            connect_and_report(engine, device, piece)
        deregistering = time.monotonic()
        engine.deregister(region)
        end = time.monotonic()
    gib = (mib << 20) / float(1 << 30)
    print(f"{mib} MiB of host memory: registered in {registered - start:.3f} s "
          f"({(registered - start) / gib:.3f} s per GiB), deregistered in "
          f"{end - deregistering:.3f} s ({(end - deregistering) / gib:.3f} s per GiB)")
    return 0


if __name__ == "__main__":
    args = sys.argv[1:]
    try:
        sys.exit(main(int(args[0]) if args else 1024, args[1] if len(args) > 1 else "",
                      int(args[2]) if len(args) > 2 else 0))
    except xfer.Error as error:
        print(error, file=sys.stderr)
        sys.exit(1)
