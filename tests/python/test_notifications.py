"""Notifications from Python: a transfer's notification reaches the target
after its bytes, a notification may be sent alone, and bad ones raise."""

import time

import pytest

import xfer
from support import pattern, raises_status

StatusCode = xfer.StatusCode
SIZE = 1 << 20


def expose(target):
    return target.allocate(SIZE)


@pytest.mark.parametrize("transport", ["tcp", "shm"])
def test_a_writes_notification_arrives_after_its_bytes_with_the_senders_name(make_pair,
                                                                             transport):
    pair = make_pair(transport, setup=expose)
    remote = pair.remote_of(pair.exposed)
    local = pair.initiator.allocate(SIZE)
    data = pattern(5, SIZE)
    with memoryview(local) as view:
        view[:] = data
    request = pair.initiator.write_async(pair.peer, [(local.address, remote.address, SIZE)],
                                         stream=0, notification=b"layer 3 ready")
    got = pair.target.get_notifications(timeout=10.0)
    # Read before waiting on the sender: the notification alone vouches.
    with memoryview(pair.exposed) as view:
        landed = view.tobytes() == data
    request.wait(10.0)
    assert len(got) == 1
    assert landed
    note = got[0]
    assert isinstance(note, xfer.Notification)
    assert note.peer == pair.target_peer
    assert note.peer_name == "initiator"
    assert note.message == b"layer 3 ready"
    assert pair.initiator.get_notifications() == []


@pytest.mark.parametrize("transport", ["tcp", "shm"])
def test_notifications_alone_keep_their_order_and_filter_by_peer(make_pair, transport):
    pair = make_pair(transport)
    for i in range(10):
        pair.initiator.notify(pair.peer, b"n%d" % i).wait(10.0)
    started = time.monotonic()
    assert pair.target.get_notifications(timeout=0.1, peer=pair.target_peer + 1) == []
    assert time.monotonic() - started < 5.0
    got = []
    deadline = time.monotonic() + 10.0
    while len(got) < 10 and time.monotonic() < deadline:
        got += [n.message for n in pair.target.get_notifications(timeout=1.0,
                                                                 peer=pair.target_peer)]
    assert got == [b"n%d" % i for i in range(10)]


def test_binary_notifications_up_to_the_limit_arrive_whole_and_longer_ones_raise(make_pair):
    pair = make_pair("tcp")
    longest = bytes(range(256)) * (xfer.MAX_NOTIFICATION_BYTES // 256)
    assert len(longest) == xfer.MAX_NOTIFICATION_BYTES == 4096
    pair.initiator.notify(pair.peer, longest).wait(10.0)
    assert [n.message for n in pair.target.get_notifications(timeout=10.0)] == [longest]
    with raises_status(StatusCode.INVALID_ARGUMENT):
        pair.initiator.notify(pair.peer, longest + b"x")
    with raises_status(StatusCode.INVALID_ARGUMENT):
        pair.initiator.notify(pair.peer, b"")
    with raises_status(StatusCode.NOT_FOUND):
        pair.initiator.notify(pair.peer + 1000, b"x")
    with pytest.raises(TypeError, match="message"):
        pair.initiator.notify(pair.peer, "text is not bytes")


@pytest.mark.parametrize("transport", ["tcp", "shm"])
def test_a_prepared_list_moves_the_selected_entries_as_often_as_wanted(make_pair, transport):
    pair = make_pair(transport, setup=expose)
    remote = pair.remote_of(pair.exposed)
    local = pair.initiator.allocate(SIZE)
    block = 4096
    entries = [(local.address + i * block, remote.address + i * block, block) for i in range(64)]
    prepared = pair.initiator.prepare(pair.peer, entries)
    assert isinstance(prepared, xfer.PreparedTransfers)
    assert len(prepared) == 64 and prepared.peer == pair.peer
    data = pattern(7, 64 * block)
    with memoryview(local) as view:
        view[:64 * block] = data
    for _ in range(3):
        pair.initiator.submit_prepared(prepared, xfer.OpCode.WRITE, first=8, count=8).wait(10.0)
    request = pair.initiator.submit_prepared(prepared, xfer.OpCode.WRITE, indices=[63, 0],
                                             notification=b"done")
    assert [n.message for n in pair.target.get_notifications(timeout=10.0)] == [b"done"]
    assert request.wait(10.0) == 2 * block
    with memoryview(pair.exposed) as view:
        landed = view.tobytes()
    for i in range(64):
        expected = data[i * block:(i + 1) * block] if (8 <= i < 16 or i in (0, 63)) \
            else bytes(block)
        assert landed[i * block:(i + 1) * block] == expected, i
    with raises_status(StatusCode.INVALID_ARGUMENT):
        pair.initiator.submit_prepared(prepared, xfer.OpCode.WRITE, first=60, count=5)
    with raises_status(StatusCode.INVALID_ARGUMENT):
        pair.initiator.submit_prepared(prepared, xfer.OpCode.WRITE, indices=[64])
    with pytest.raises(ValueError, match="not both"):
        pair.initiator.submit_prepared(prepared, xfer.OpCode.WRITE, first=1, indices=[2])
    # Issue 43, item 3: no dirty block means no block moves; an empty index
    # list (or count 0) is refused, never taken as "every entry".
    with memoryview(local) as view:
        view[:64 * block] = bytes([0xab]) * (64 * block)
    with raises_status(StatusCode.INVALID_ARGUMENT, "empty index list"):
        pair.initiator.submit_prepared(prepared, xfer.OpCode.WRITE, indices=[])
    with raises_status(StatusCode.INVALID_ARGUMENT, "count 0"):
        pair.initiator.submit_prepared(prepared, xfer.OpCode.WRITE, count=0)
    with memoryview(pair.exposed) as view:
        assert view.tobytes() == landed, "a refused selection wrote into the peer"
    pair.initiator.deregister(local)
    with raises_status(StatusCode.FAILED_PRECONDITION):
        pair.initiator.submit_prepared(prepared, xfer.OpCode.WRITE, first=0, count=1)


@pytest.mark.parametrize("transport", ["tcp", "shm"])
def test_a_cancelled_queued_staged_request_moves_nothing(transport):
    big = 16 << 20
    with xfer.Engine(name="target", transports=[transport]) as target, \
         xfer.Engine(name="initiator", listen="", transports=[transport],
                     device_path="staged") as initiator:
        exposed = target.allocate(2 * big + 4096)
        local = initiator.allocate(2 * big + 4096)
        with memoryview(local) as view:
            view[:] = b"\x42" * local.length
        peer = initiator.connect(target.listen_address, transport=transport)
        remote = initiator.peer_info(peer).regions[0]
        first = initiator.write_async(peer, [(local.address, remote.address, 2 * big)])
        last = initiator.write_async(peer, [(local.address + 2 * big, remote.address + 2 * big,
                                             4096)])
        initiator.cancel(peer, last)
        with raises_status(StatusCode.CANCELLED):
            last.wait(10.0)
        first.wait(10.0)
        with memoryview(exposed) as view:
            assert view[2 * big:].tobytes() == bytes(4096)
        with raises_status(StatusCode.NOT_FOUND):
            initiator.cancel(peer, last)
        # A deadline that is met changes nothing; a bad one raises.
        initiator.write_async(peer, [(local.address, remote.address, 4096)],
                              timeout=10.0).wait(10.0)
        with pytest.raises(ValueError):
            initiator.write_async(peer, [(local.address, remote.address, 4096)], timeout=-1.0)
