"""The module surface: version, transports, enums and the exception type."""

import pathlib
import re

import pytest

import xfer

REPO = pathlib.Path(__file__).resolve().parents[2]


def test_version_is_the_cmake_project_version():
    cmake = (REPO / "CMakeLists.txt").read_text()
    declared = re.search(r"project\(xfer\s+VERSION\s+([0-9.]+)", cmake).group(1)
    assert xfer.__version__ == declared


def test_builtin_transports_lists_shm_and_tcp():
    transports = xfer.builtin_transports()
    assert isinstance(transports, list)
    assert {"shm", "tcp"} <= set(transports)


def test_cuda_support_is_one_line():
    line = xfer.cuda_support()
    assert line and "\n" not in line


def test_list_cuda_devices_lists_or_is_empty():
    # Issue 43, item 27: a host without a driver has no device to list.
    devices = xfer.list_cuda_devices()
    assert isinstance(devices, list)
    assert all(d.memory_bytes > 0 and d.name for d in devices)


def test_status_codes_mirror_the_cpp_enum_in_order():
    names = ["OK", "IN_PROGRESS", "INVALID_ARGUMENT", "NOT_FOUND", "PERMISSION_DENIED",
             "OUT_OF_RANGE", "TIMEOUT", "CONNECTION_LOST", "PROTOCOL_ERROR", "NOT_SUPPORTED",
             "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "IO_ERROR", "INTERNAL", "CANCELLED"]
    assert [int(getattr(xfer.StatusCode, name)) for name in names] == list(range(len(names)))
    assert len(xfer.StatusCode.__members__) == len(names)


def test_other_enums_mirror_the_cpp_values():
    assert int(xfer.Access.NONE) == 0
    assert int(xfer.Access.REMOTE_READ) == 1
    assert int(xfer.Access.REMOTE_WRITE) == 2
    assert int(xfer.Access.REMOTE_READ_WRITE) == 3
    assert [int(xfer.MemoryKind.HOST), int(xfer.MemoryKind.HUGEPAGE), int(xfer.MemoryKind.CUDA)] == [0, 1, 2]
    assert [int(xfer.OpCode.READ), int(xfer.OpCode.WRITE)] == [0, 1]
    assert set(xfer.DataMover.__members__) == {"CPU_COPY", "KERNEL", "NIC"}


def test_access_combines_as_flags():
    # Issue 43, item 27: REMOTE_READ | REMOTE_WRITE is an Access, not a TypeError.
    both = xfer.Access.REMOTE_READ | xfer.Access.REMOTE_WRITE
    assert both == xfer.Access.REMOTE_READ_WRITE and isinstance(both, xfer.Access)
    assert xfer.Access.REMOTE_READ in both
    assert xfer.Access.REMOTE_WRITE not in xfer.Access.REMOTE_READ
    assert both & xfer.Access.REMOTE_WRITE == xfer.Access.REMOTE_WRITE
    with xfer.Engine(listen="") as engine:
        region = engine.allocate(4096, access=xfer.Access.REMOTE_READ | xfer.Access.REMOTE_WRITE)
        assert region.access == xfer.Access.REMOTE_READ_WRITE


def test_error_carries_code_and_message_and_prints_as_status_tostring():
    with xfer.Engine(listen="") as engine:
        with pytest.raises(xfer.Error) as raised:
            engine.peer_info(12345)
    error = raised.value
    assert type(error) is xfer.Error and isinstance(error, Exception)
    assert error.code == xfer.StatusCode.NOT_FOUND
    assert error.message == "no peer 12345"
    assert str(error) == "not found: no peer 12345"


def test_error_raised_by_python_code_has_no_status():
    error = xfer.Error("raised by hand")
    assert str(error) == "raised by hand"
    assert error.code is None and error.message is None


def test_package_exports_everything_in_all():
    for name in xfer.__all__:
        assert hasattr(xfer, name), name
