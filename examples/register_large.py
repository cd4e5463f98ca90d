#!/usr/bin/env python3
"""What registering memory costs, as examples/register_large.cc measures it:
allocate (and so register) a large region, deregister it, both timed per
GiB (2^30 bytes). Run by ctest (python.example.register_large).

    PYTHONPATH=build/release/python python3 examples/register_large.py [MiB]
"""

import sys
import time

import xfer


def main(mib):
    with xfer.Engine(name="registrar", listen="") as engine:
        start = time.monotonic()
        region = engine.allocate(mib << 20)
        registered = time.monotonic()
        engine.deregister(region)
        end = time.monotonic()
    gib = (mib << 20) / float(1 << 30)
    print(f"{mib} MiB of host memory: registered in {registered - start:.3f} s "
          f"({(registered - start) / gib:.3f} s per GiB), deregistered in {end - registered:.3f} s "
          f"({(end - registered) / gib:.3f} s per GiB)")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 1024))
    except xfer.Error as error:
        print(error, file=sys.stderr)
        sys.exit(1)
