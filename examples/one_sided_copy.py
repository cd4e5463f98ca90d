#!/usr/bin/env python3
"""The smallest complete libxfer program in Python: two engines (in one
process here, for brevity; normally two processes or hosts), one WRITE and
one READ. It mirrors examples/one_sided_copy.cc and prints the same line.
Run by ctest (python.example), so this example cannot rot.

    PYTHONPATH=build/release/python python3 examples/one_sided_copy.py
"""

import sys

import xfer


def main():
    # The target: listens, and registers memory the initiator may write/read.
    with xfer.Engine(name="target", listen="127.0.0.1:0") as target, \
         xfer.Engine(name="initiator", listen="") as initiator:  # accepts no peers
        target.allocate(1 << 20, access=xfer.Access.REMOTE_READ_WRITE)

        # The initiator: registers its own buffer, then connects (shm is chosen
        # on one host; pass transport="tcp" to force tcp).
        local = initiator.allocate(1 << 20, access=xfer.Access.NONE)
        peer = initiator.connect(target.listen_address)
        info = initiator.peer_info(peer)
        remote = info.regions[0]  # what the target registered

        # WRITE 1 MiB into the target, synchronously (timeouts in seconds).
        with memoryview(local) as view:
            view[:] = b"\xab" * local.length
        initiator.write(peer, [(local.address, remote.address, local.length)], timeout=5.0)

        # READ the first 4 KiB back, asynchronously.
        with memoryview(local) as view:
            view[:4096] = bytes(4096)
        request = initiator.read_async(peer, [(local.address, remote.address, 4096)])
        request.wait(timeout=5.0)

        with memoryview(local) as view:
            first, last = view[0], view[4095]
        print(f"transport {info.transport}: wrote {local.length} bytes, "
              f"read back {request.bytes} bytes, first byte {first:#04x}")
        return 0 if first == 0xAB and last == 0xAB else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except xfer.Error as error:
        print(error, file=sys.stderr)
        sys.exit(1)
