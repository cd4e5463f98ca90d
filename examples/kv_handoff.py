#!/usr/bin/env python3
"""A KV-cache handoff in Python, as examples/kv_handoff.cc does it: the
prefill engine WRITEs each KV block into the decoder's memory, from a
prepared list and with a deadline, with a notification on the same request; the decoder takes a block as soon as its
notification says the bytes are there. Two engines in one process here,
for brevity; normally two processes or hosts. Run by ctest
(python.example.kv_handoff), so this example cannot rot.

    PYTHONPATH=build/release/python python3 examples/kv_handoff.py [shm|tcp]
"""

import sys
import time

import xfer

BLOCK = 256 << 10
BLOCKS = 16


def block_bytes(block):
    return bytes((block * 31 + i * 7 + 1) & 0xFF for i in range(256)) * (BLOCK // 256)


def main(transport):
    with xfer.Engine(name="decoder", transports=[transport]) as decoder, \
         xfer.Engine(name="prefill", listen="", transports=[transport]) as prefill:
        cache = decoder.allocate(BLOCKS * BLOCK, access=xfer.Access.REMOTE_WRITE)
        local = prefill.allocate(BLOCKS * BLOCK)
        peer = prefill.connect(decoder.listen_address, transport=transport)
        remote = prefill.peer_info(peer).regions[0]

        # Prefill: the block descriptors prepared once, then every block in
        # flight at once by index, each with its notification and a deadline.
        blocks = prefill.prepare(peer, [(local.address + b * BLOCK, remote.address + b * BLOCK,
                                         BLOCK) for b in range(BLOCKS)])
        with memoryview(local) as view:
            for block in range(BLOCKS):
                view[block * BLOCK:(block + 1) * BLOCK] = block_bytes(block)
        requests = [prefill.submit_prepared(blocks, xfer.OpCode.WRITE, first=block, count=1,
                                            notification=b"block %d" % block, timeout=10.0)
                    for block in range(BLOCKS)]

        # Decoder: a notification means the block is in memory now.
        whole = taken = 0
        deadline = time.monotonic() + 20.0
        while taken < BLOCKS and time.monotonic() < deadline:
            for note in decoder.get_notifications(timeout=1.0):
                block = int(note.message.split()[1])
                with memoryview(cache) as view:
                    whole += view[block * BLOCK:(block + 1) * BLOCK] == block_bytes(block)
                taken += 1
        for request in requests:
            request.wait(timeout=10.0)
        print(f"decoder: {whole} of {BLOCKS} KV blocks from 'prefill' were whole "
              f"when their notification came ({transport})")
        return 0 if whole == BLOCKS else 1


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "tcp"))
    except xfer.Error as error:
        print(error, file=sys.stderr)
        sys.exit(1)
