"""Memory: registering Python objects, engine allocations, buffer views, and
the lifetime rules that keep every view and every registration safe."""

import gc
import weakref

import pytest

import xfer
from support import pattern, raises_status

np = pytest.importorskip("numpy")

StatusCode = xfer.StatusCode
Access = xfer.Access


@pytest.fixture
def engine():
    with xfer.Engine(listen="") as engine:
        yield engine


# ---- register(obj) ----

@pytest.mark.parametrize("make, why", [
    (lambda: b"immutable bytes", "not writable"),
    (lambda: memoryview(bytearray(64)).toreadonly(), "not writable"),
    (lambda: np.zeros(64, dtype=np.uint8)[::2], "contiguous"),
])
def test_register_refuses_read_only_and_non_contiguous_buffers(engine, make, why):
    with raises_status(StatusCode.INVALID_ARGUMENT) as raised:
        engine.register(make())
    message = raised.value.message
    assert "writable, C-contiguous buffer" in message and why in message


def test_register_refuses_objects_without_the_buffer_protocol(engine):
    with pytest.raises(TypeError, match="'int'"):
        engine.register(42)


def test_register_refuses_empty_and_overlapping_buffers(engine):
    with raises_status(StatusCode.INVALID_ARGUMENT):
        engine.register(bytearray())
    backing = bytearray(4096)
    engine.register(backing)
    with raises_status(StatusCode.INVALID_ARGUMENT) as raised:
        engine.register(memoryview(backing)[1024:2048])
    assert "overlaps" in raised.value.message


def test_registered_object_is_zero_copy_and_cannot_be_resized(engine):
    backing = bytearray(4096)
    region = engine.register(backing, Access.REMOTE_READ)
    assert region.length == 4096 and region.access == Access.REMOTE_READ
    assert region.kind == xfer.MemoryKind.HOST and region.device == -1
    with memoryview(region) as view:
        view[:5] = b"hello"
    assert backing[:5] == b"hello"  # the same bytes, not a copy
    with pytest.raises(BufferError):
        backing.extend(b"x")  # the held export pins the buffer
    engine.deregister(region)
    backing.extend(b"x")  # released: resizable again
    assert len(backing) == 4097


def test_registration_keeps_the_object_alive_until_deregister(engine):
    array = np.arange(1024, dtype=np.uint32)
    alive = weakref.ref(array)
    region = engine.register(array)
    del array
    gc.collect()
    assert alive() is not None, "the registration must hold the array"
    assert np.frombuffer(region, dtype=np.uint32)[1023] == 1023
    engine.deregister(region)
    gc.collect()
    assert alive() is None, "deregister must release the array"


def test_engine_close_releases_registered_objects():
    array = np.zeros(256, dtype=np.float64)
    alive = weakref.ref(array)
    engine = xfer.Engine(listen="")
    engine.register(array)
    del array
    gc.collect()
    assert alive() is not None
    engine.close()
    gc.collect()
    assert alive() is None


def test_dropping_a_region_handle_deregisters_nothing(engine):
    array = np.zeros(512, dtype=np.uint8)
    alive = weakref.ref(array)
    region = engine.register(array)
    address, length = region.address, region.length
    del region, array
    gc.collect()
    assert alive() is not None
    # Still registered: the same range cannot be registered again.
    with raises_status(StatusCode.INVALID_ARGUMENT) as raised:
        engine.register_device(address, length)
    assert "overlaps a registered region" in raised.value.message


@pytest.mark.parametrize("transport", ["shm", "tcp"])
@pytest.mark.parametrize("kind", ["bytearray", "numpy"])
def test_object_released_while_registered_still_receives_transfers(make_pair, transport, kind):
    size = 64 * 1024

    def expose(target):
        backing = bytearray(size) if kind == "bytearray" else np.zeros(size // 8, dtype=np.int64)
        region = target.register(backing)
        return region  # `backing` goes out of scope here

    pair = make_pair(transport, expose)
    gc.collect()
    target_region = pair.exposed
    source = pair.initiator.allocate(size)
    data = pattern(11, size)
    with memoryview(source) as view:
        view[:] = data
    remote = pair.remote_of(target_region)
    pair.initiator.write(pair.peer, [(source.address, remote.address, size)], timeout=5.0)
    with memoryview(target_region) as view:
        assert view.tobytes() == data
    # And back out of it.
    with memoryview(source) as view:
        view[:] = bytes(size)
    pair.initiator.read(pair.peer, [(source.address, remote.address, size)], timeout=5.0)
    with memoryview(source) as view:
        assert view.tobytes() == data


# ---- allocate() and buffer views ----

def test_allocate_exports_zeroed_writable_bytes(engine):
    region = engine.allocate(1000)
    assert region.length == 1000 and region.kind == xfer.MemoryKind.HOST
    assert region.address % 4096 == 0  # page-aligned
    view = memoryview(region)
    assert (view.nbytes, view.readonly, view.format, view.ndim) == (1000, False, "B", 1)
    assert view.tobytes() == bytes(1000)
    words = np.frombuffer(region, dtype=np.uint32)  # a second, independent export
    words[0] = 0x04030201
    assert view[:4].tobytes() == b"\x01\x02\x03\x04"
    view.release()
    del words


@pytest.mark.parametrize("length, exception", [(-1, ValueError), ("4096", TypeError),
                                               (4096.0, TypeError)])
def test_allocate_refuses_bad_lengths(engine, length, exception):
    with pytest.raises(exception):
        engine.allocate(length)


def test_allocate_zero_bytes_is_invalid(engine):
    with raises_status(StatusCode.INVALID_ARGUMENT):
        engine.allocate(0)


def test_allocate_on_a_numa_node(engine):
    # Node 0 is every host's; a node the host lacks is refused by number.
    region = engine.allocate(1 << 16, numa_node=0)
    with memoryview(region) as view:
        view[:4] = b"xfer"
        assert bytes(view[:4]) == b"xfer"
    with raises_status(StatusCode.INVALID_ARGUMENT) as error:
        engine.allocate(4096, numa_node=63)
    assert "numa_node 63" in str(error.value)


def test_allocate_more_than_the_host_has_fails_at_once(engine):
    # Issue 43, item 2: 1 TiB on a host with less was an OOM kill; now it is
    # refused before any page is touched, naming the size and what is left.
    with raises_status(StatusCode.RESOURCE_EXHAUSTED) as error:
        engine.allocate(1 << 40)
    assert "1099511627776 bytes" in str(error.value)
    assert "available" in str(error.value) or "cgroup" in str(error.value)


def test_allocate_hugepages_works_or_says_why(engine):
    try:
        region = engine.allocate(1 << 21, kind=xfer.MemoryKind.HUGEPAGE)
    except xfer.Error as error:
        assert error.code == StatusCode.RESOURCE_EXHAUSTED
        assert "hugepages" in error.message
    else:
        assert region.kind == xfer.MemoryKind.HUGEPAGE
        with memoryview(region) as view:
            view[-1] = 7
            assert view[-1] == 7


def test_allocate_cuda_without_a_gpu_says_why(engine):
    try:
        devices = xfer.list_cuda_devices()
    except xfer.Error:
        devices = []
    if devices:
        region = engine.allocate(4096, kind=xfer.MemoryKind.CUDA)
        assert region.kind == xfer.MemoryKind.CUDA and region.device == 0
        with raises_status(StatusCode.NOT_SUPPORTED):
            memoryview(region)  # device memory has no host buffer
        return
    with pytest.raises(xfer.Error) as raised:
        engine.allocate(4096, kind=xfer.MemoryKind.CUDA)
    assert raised.value.code in (StatusCode.FAILED_PRECONDITION, StatusCode.NOT_SUPPORTED)


def test_deregister_refuses_while_views_are_exported(engine):
    region = engine.allocate(4096)
    first = memoryview(region)
    second = np.frombuffer(region, dtype=np.uint8)
    with raises_status(StatusCode.FAILED_PRECONDITION) as raised:
        engine.deregister(region)
    assert f"2 buffer views still export region {region.id}" in raised.value.message
    # Nothing changed: the memory is still there and still registered.
    first[0] = 42
    assert second[0] == 42
    del second
    with raises_status(StatusCode.FAILED_PRECONDITION) as raised:
        engine.deregister(region)
    assert f"1 buffer views still export region {region.id}" in raised.value.message
    first.release()
    engine.deregister(region)
    with raises_status(StatusCode.NOT_FOUND):
        memoryview(region)
    with raises_status(StatusCode.NOT_FOUND):
        engine.deregister(region)


def test_views_of_a_registered_object_are_counted_too(engine):
    backing = bytearray(128)
    region = engine.register(backing)
    view = memoryview(region)
    with raises_status(StatusCode.FAILED_PRECONDITION):
        engine.deregister(region)
    view.release()
    engine.deregister(region)


def test_close_refuses_while_views_are_exported_and_changes_nothing():
    engine = xfer.Engine()
    region = engine.allocate(4096)
    view = memoryview(region)
    with raises_status(StatusCode.FAILED_PRECONDITION) as raised:
        engine.close()
    assert raised.value.message.startswith(f"close: 1 buffer views still export region {region.id}")
    assert not engine.closed
    view[0] = 9  # still valid memory
    engine.allocate(4096)  # still a working engine
    view.release()
    engine.close()
    assert engine.closed
    with raises_status(StatusCode.FAILED_PRECONDITION) as raised:
        memoryview(region)
    assert "closed" in raised.value.message


def test_views_outlive_a_dropped_engine_and_keep_its_memory():
    engine = xfer.Engine()
    address = engine.listen_address
    region = engine.allocate(8192)
    view = memoryview(region)
    del engine, region
    gc.collect()
    # The view holds the engine's state: its memory is valid, its listener up.
    view[:] = b"\x5a" * 8192
    assert view.tobytes() == b"\x5a" * 8192
    with xfer.Engine(listen="", connect_timeout=0.5) as probe:
        probe.connect(address, transport="tcp")
    view.release()
    gc.collect()
    # The last view was the last reference: the engine is destroyed now.
    with xfer.Engine(listen="", connect_timeout=0.5) as probe:
        with pytest.raises(xfer.Error):
            probe.connect(address, transport="tcp")


def test_deregister_refuses_a_region_of_another_engine(engine):
    with xfer.Engine(listen="") as other:
        foreign = other.allocate(4096)
        with raises_status(StatusCode.INVALID_ARGUMENT):
            engine.deregister(foreign)
        other.deregister(foreign)


def test_region_attributes_and_repr(engine):
    region = engine.allocate(4096, access=Access.NONE)
    assert region.id != 0 and region.access == Access.NONE
    assert f"id={region.id}" in repr(region) and "kind=host" in repr(region)
    with pytest.raises(TypeError):
        xfer.Region()  # only an engine makes regions


# ---- register_device() ----

def test_register_device_refuses_host_memory_and_registers_nothing(engine):
    array = np.zeros(4096, dtype=np.uint8)
    with raises_status(StatusCode.INVALID_ARGUMENT) as raised:
        engine.register_device(array.ctypes.data, array.nbytes)
    assert "not CUDA device memory" in raised.value.message
    region = engine.register(array)  # the probe left nothing registered
    engine.deregister(region)


@pytest.mark.parametrize("address, length", [(0, 4096), (0x10000, 0)])
def test_register_device_refuses_null_and_empty_ranges(engine, address, length):
    with raises_status(StatusCode.INVALID_ARGUMENT):
        engine.register_device(address, length)


def test_register_device_refuses_negative_arguments(engine):
    with pytest.raises(ValueError, match=r"^address must be in \[0, 2\*\*64\), got -4096$"):
        engine.register_device(-4096, 4096)
