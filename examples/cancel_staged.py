#!/usr/bin/env python3
"""Cancelling and deadlines in Python, as examples/cancel_staged.cc does: an
engine that stages its buffers queues requests one behind another; one
cancelled while queued moves nothing, one whose deadline passes while
queued fails with TIMEOUT, and the connection carries on. Run by ctest
(python.example.cancel_staged).

    PYTHONPATH=build/release/python python3 examples/cancel_staged.py [shm|tcp]
"""

import sys

import xfer

BIG = 64 << 20


def main(transport):
    with xfer.Engine(name="target", transports=[transport]) as target, \
         xfer.Engine(name="initiator", listen="", transports=[transport],
                     device_path="staged") as initiator:
        landed = target.allocate(BIG + 2 * 4096, access=xfer.Access.REMOTE_WRITE)
        local = initiator.allocate(BIG + 2 * 4096)
        with memoryview(local) as view:
            view[:] = b"\x5a" * local.length
        peer = initiator.connect(target.listen_address, transport=transport)
        remote = initiator.peer_info(peer).regions[0].address

        first = initiator.write_async(peer, [(local.address, remote, BIG)])
        second = initiator.write_async(peer, [(local.address + BIG, remote + BIG, 4096)])
        third = initiator.write_async(peer, [(local.address + BIG + 4096,
                                              remote + BIG + 4096, 4096)], timeout=0.001)
        initiator.cancel(peer, second)
        first.wait(10.0)
        outcomes = []
        for request in (second, third):
            try:
                request.wait(10.0)
                outcomes.append("OK")
            except xfer.Error as error:
                outcomes.append(error.code.name)
        with memoryview(landed) as view:
            untouched = view[BIG:].tobytes() == bytes(2 * 4096)
        initiator.write(peer, [(local.address, remote, 4096)], timeout=5.0)
        print(f"cancelled while queued: {outcomes[0]}; deadline passed while queued: "
              f"{outcomes[1]}; their target bytes {'untouched' if untouched else 'written'}; "
              f"the connection carries on ({transport})")
        return 0 if outcomes == ["CANCELLED", "TIMEOUT"] and untouched else 1


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "tcp"))
    except xfer.Error as error:
        print(error, file=sys.stderr)
        sys.exit(1)
