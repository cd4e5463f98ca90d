"""Python bindings of libxfer, a one-sided RDMA/TCP/shm transfer engine.

    import xfer

    with xfer.Engine(name="target") as target, xfer.Engine(name="initiator", listen="") as initiator:
        target.allocate(1 << 20)  # what the initiator will see as regions[0]
        local = initiator.allocate(1 << 20)
        peer = initiator.connect(target.listen_address)
        theirs = initiator.peer_info(peer).regions[0]
        initiator.write(peer, [(local.address, theirs.address, local.length)], timeout=5.0)

Every failure raises xfer.Error, whose .code is an xfer.StatusCode and whose
.message says what went wrong. Timeouts are in seconds (float), lengths in
bytes. See examples/one_sided_copy.py.
"""

from ._xfer import (
    MAX_NOTIFICATION_BYTES,
    Access,
    CudaDevice,
    DataMover,
    DeviceRegistration,
    Engine,
    Error,
    MemoryKind,
    NicPort,
    Notification,
    OpCode,
    PeerInfo,
    PreparedTransfers,
    Region,
    RemoteRegion,
    Request,
    StatusCode,
    __version__,
    builtin_transports,
    cuda_support,
    list_cuda_devices,
    transport_options,
)

__all__ = [
    "MAX_NOTIFICATION_BYTES",
    "Access",
    "CudaDevice",
    "DataMover",
    "DeviceRegistration",
    "Engine",
    "Error",
    "MemoryKind",
    "NicPort",
    "Notification",
    "OpCode",
    "PeerInfo",
    "PreparedTransfers",
    "Region",
    "RemoteRegion",
    "Request",
    "StatusCode",
    "__version__",
    "builtin_transports",
    "cuda_support",
    "list_cuda_devices",
    "transport_options",
]
