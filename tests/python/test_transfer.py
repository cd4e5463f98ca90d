"""Transfers between two Python processes (tcp and shm), and the errors a
bad batch raises. The peer is tests/python/peer_target.py."""

import hashlib
import threading
import time

import pytest

import xfer
from support import pattern, raises_status

StatusCode = xfer.StatusCode
SIZE = 256 * 1024
TRANSPORTS = ["tcp", "shm"]


def sha256(data):
    return hashlib.sha256(data).hexdigest()


@pytest.fixture(params=TRANSPORTS)
def connected(request, spawn_peer):
    """(initiator engine, peer id, PeerProcess, {name: RemoteRegion}) over one transport."""
    transport = request.param
    peer_process = spawn_peer(transport, SIZE)
    with xfer.Engine(name="initiator", listen="", transports=[transport]) as engine:
        peer = engine.connect(peer_process.listen_address, transport=transport)
        assert peer_process.read() == {"connected": True}
        info = engine.peer_info(peer)
        assert info.transport == transport
        by_id = {region.id: region for region in info.regions}
        remote = {name: by_id[rid] for name, rid in peer_process.region_ids.items()}
        yield engine, peer, peer_process, remote
        peer_process.call(cmd="exit")


@pytest.mark.parametrize("target", ["engine", "object"])
def test_write_lands_byte_for_byte_and_read_brings_the_peer_bytes_back(connected, target):
    engine, peer, peer_process, remote = connected
    region = remote[target]
    local = engine.allocate(SIZE)
    data = pattern(1, SIZE)
    with memoryview(local) as view:
        view[:] = data
    half = SIZE // 2
    # A batch of two entries, the second at an offset on both sides.
    engine.write(peer, [(local.address, region.address, half),
                        (local.address + half, region.address + half, half)], timeout=5.0)
    assert peer_process.call(cmd="digest", region=target, length=SIZE) == {"sha256": sha256(data)}

    assert peer_process.call(cmd="fill", region=target, seed=2) == {"ok": True}
    engine.read(peer, [(local.address, region.address, SIZE)], timeout=5.0)
    with memoryview(local) as view:
        assert view.tobytes() == pattern(2, SIZE)

    # Asynchronously, a slice from the middle.
    with memoryview(local) as view:
        view[:] = bytes(SIZE)
    request = engine.read_async(peer, [(local.address, region.address + 1000, 5000)])
    assert request.wait(timeout=5.0) == 5000
    assert request.done and request.test() and request.status == StatusCode.OK
    assert request.bytes == 5000 and request.error_message == ""
    with memoryview(local) as view:
        assert view[:5000].tobytes() == pattern(2, SIZE)[1000:6000]
        assert view[5000:].tobytes() == bytes(SIZE - 5000)


def test_numpy_arrays_as_source_and_destination(connected):
    np = pytest.importorskip("numpy")
    engine, peer, peer_process, remote = connected
    region = remote["engine"]
    source = np.arange(SIZE // 4, dtype=np.uint32)
    destination = np.zeros(SIZE // 4, dtype=np.uint32)
    source_region = engine.register(source)
    destination_region = engine.register(destination)
    request = engine.write_async(peer, [(source_region.address, region.address, SIZE)])
    request.wait(timeout=5.0)
    assert peer_process.call(cmd="digest", region="engine", length=SIZE) == {
        "sha256": sha256(source.tobytes())}
    engine.read(peer, [(destination_region.address, region.address, SIZE)], timeout=5.0)
    assert np.array_equal(source, destination)


def test_send_and_recv_in_both_directions(connected):
    engine, peer, peer_process, remote = connected
    local = engine.allocate(SIZE)
    message = pattern(3, 10000)
    with memoryview(local) as view:
        view[:10000] = message
    # This side sends: the peer receives into its registered bytearray.
    peer_process.send_command(cmd="recv", region="object", capacity=SIZE)
    assert engine.send(peer, local.address, 10000, timeout=5.0) == 10000
    assert peer_process.read() == {"bytes": 10000, "sha256": sha256(message)}
    # The peer sends: this side has a receive posted first.
    assert peer_process.call(cmd="fill", region="engine", seed=4) == {"ok": True}
    request = engine.post_recv(peer, local.address, SIZE)
    assert not request.done and request.status == StatusCode.IN_PROGRESS
    assert request.test() is False
    assert peer_process.call(cmd="send", region="engine", length=777) == {"bytes": 777}
    assert request.wait(timeout=5.0) == 777
    with memoryview(local) as view:
        assert view[:777].tobytes() == pattern(4, SIZE)[:777]


def test_a_message_longer_than_the_receive_fails_the_receive_not_the_send(connected):
    # Issue 27, defect 16: the sender's send completes (its bytes left); the
    # receiver learns that the message was dropped, and how long it was.
    engine, peer, peer_process, remote = connected
    local = engine.allocate(SIZE)
    with memoryview(local) as view:
        view[:] = bytes([0x5A]) * SIZE
    small = engine.post_recv(peer, local.address, 16)
    following = engine.post_recv(peer, local.address + 4096, 4096)
    assert peer_process.call(cmd="send", region="engine", length=4096) == {"bytes": 4096}
    assert peer_process.call(cmd="send", region="engine", length=100) == {"bytes": 100}
    with raises_status(StatusCode.INVALID_ARGUMENT) as raised:
        small.wait(timeout=5.0)
    transport = engine.peer_info(peer).transport
    assert str(raised.value).endswith(
        transport + ": a 4096-byte message does not fit the posted 16-byte receive; dropped")
    assert small.bytes == 0
    with memoryview(local) as view:
        assert view[:16].tobytes() == bytes([0x5A]) * 16
    assert following.wait(timeout=5.0) == 100


def test_request_wait_releases_the_gil(connected):
    # The receive is waited for on a thread while this thread (holding the
    # GIL only when Python runs) drives the peer; a wait holding the GIL
    # would stall the peer's command until it timed out.
    engine, peer, peer_process, remote = connected
    local = engine.allocate(4096)
    outcome = []
    request = engine.post_recv(peer, local.address, 4096)
    waiter = threading.Thread(target=lambda: outcome.append(request.wait(timeout=8.0)))
    start = time.monotonic()
    waiter.start()
    peer_process.call(cmd="send", region="engine", length=100)
    waiter.join(timeout=10.0)
    assert outcome == [100]
    assert time.monotonic() - start < 5.0


def test_write_into_a_read_only_region_is_permission_denied(connected):
    engine, peer, peer_process, remote = connected
    local = engine.allocate(4096)
    readonly = remote["readonly"]
    assert readonly.access == xfer.Access.REMOTE_READ
    with raises_status(StatusCode.PERMISSION_DENIED):
        engine.write(peer, [(local.address, readonly.address, 16)], timeout=5.0)
    with raises_status(StatusCode.PERMISSION_DENIED):
        engine.write_async(peer, [(local.address, readonly.address, 16)])
    engine.read(peer, [(local.address, readonly.address, 16)], timeout=5.0)  # reading is allowed


def test_addresses_outside_registered_memory_are_out_of_range(connected):
    engine, peer, peer_process, remote = connected
    local = engine.allocate(4096)
    region = remote["engine"]
    end = region.address + region.length
    for entries in ([(local.address, end, 1)],                   # just past the remote region
                    [(local.address, end - 8, 16)],              # straddling its end
                    [(0x1000, region.address, 16)],              # a local address never registered
                    [(local.address + 4090, region.address, 16)],  # leaving the local region
                    [(local.address, region.address, 8), (local.address, end, 8)]):
        with raises_status(StatusCode.OUT_OF_RANGE):
            engine.write(peer, entries, timeout=5.0)
        with raises_status(StatusCode.OUT_OF_RANGE):
            engine.read_async(peer, entries)
    with raises_status(StatusCode.OUT_OF_RANGE):
        engine.send(peer, 0x1000, 16, timeout=5.0)
    with raises_status(StatusCode.OUT_OF_RANGE):
        engine.post_recv(peer, 0x1000, 16)
    # Nothing moved: the peer's region still holds zeros.
    assert peer_process.call(cmd="digest", region="engine", length=SIZE) == {
        "sha256": sha256(bytes(SIZE))}


# ---- batches: shape and argument errors (one process suffices) ----

@pytest.fixture
def pair(make_pair):
    return make_pair("shm", lambda target: target.allocate(4096))


@pytest.mark.parametrize("entries, exception", [
    ("not entries", TypeError),
    (42, TypeError),
    ([(1, 2)], TypeError),
    ([[1, 2, 3, 4]], TypeError),
    ([(1.5, 2, 3)], TypeError),
    ([("1", 2, 3)], TypeError),
    ([(1, 2, -3)], ValueError),
    ([(-1, 2, 3)], ValueError),
    ([(1, 2 ** 64, 3)], ValueError),
])
def test_malformed_batches_raise_python_errors(pair, entries, exception):
    with pytest.raises(exception):
        pair.initiator.write(pair.peer, entries, timeout=1.0)


def test_empty_batch_and_zero_length_are_invalid(pair):
    local = pair.initiator.allocate(4096)
    remote = pair.remote_of(pair.exposed)
    with raises_status(StatusCode.INVALID_ARGUMENT):
        pair.initiator.write(pair.peer, [], timeout=1.0)
    with raises_status(StatusCode.INVALID_ARGUMENT):
        pair.initiator.write(pair.peer, [(local.address, remote.address, 0)], timeout=1.0)
    with raises_status(StatusCode.NOT_FOUND):
        pair.initiator.write(999, [(local.address, remote.address, 8)], timeout=1.0)


def test_entries_accept_lists_generators_and_numpy_integers(pair):
    np = pytest.importorskip("numpy")
    local = pair.initiator.allocate(4096)
    remote = pair.remote_of(pair.exposed)
    with memoryview(local) as view:
        view[:8] = b"abcdefgh"
    pair.initiator.transfer(pair.peer, xfer.OpCode.WRITE,
                            ([local.address + i, remote.address + i, 1] for i in range(4)))
    pair.initiator.submit(pair.peer, xfer.OpCode.WRITE,
                          [(np.uint64(local.address + 4), np.int64(remote.address + 4),
                            np.int32(4))]).wait(timeout=5.0)
    with memoryview(pair.exposed) as view:
        assert view[:8].tobytes() == b"abcdefgh"


@pytest.mark.parametrize("timeout", [-1.0, float("nan"), float("inf"), 2e9])
def test_bad_timeouts_raise_value_error(pair, timeout):
    local = pair.initiator.allocate(4096)
    remote = pair.remote_of(pair.exposed)
    with pytest.raises(ValueError, match="timeout"):
        pair.initiator.write(pair.peer, [(local.address, remote.address, 8)], timeout=timeout)
    request = pair.initiator.write_async(pair.peer, [(local.address, remote.address, 8)])
    with pytest.raises(ValueError, match="timeout"):
        request.wait(timeout=timeout)
    request.wait(timeout=5.0)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_staged_engine_bounces_its_buffers_and_the_bytes_land_the_same(transport):
    size = 5 * 1024 * 1024 + 3  # more than two of the staging memory's chunks
    with xfer.Engine(name="target") as target, \
            xfer.Engine(listen="", device_path="staged") as initiator:
        remote = target.allocate(size)
        local = initiator.allocate(size)
        peer = initiator.connect(target.listen_address, transport=transport)
        assert initiator.peer_info(peer).staged
        data = pattern(7, size)
        with memoryview(local) as view:
            view[:] = data
        initiator.write(peer, [(local.address, remote.address, size)], timeout=10.0)
        with memoryview(remote) as view:
            assert view.tobytes() == data
            view[:] = pattern(8, size)
        initiator.read(peer, [(local.address, remote.address, size)], timeout=10.0)
        with memoryview(local) as view:
            assert view.tobytes() == pattern(8, size)


def test_device_path_takes_auto_direct_or_staged_only():
    with xfer.Engine(listen="", device_path="direct"):
        pass
    with pytest.raises(ValueError, match="auto, direct or staged"):
        xfer.Engine(device_path="gpudirect")
