#include "peer_info.h"

#include <fmt/format.h>
#include <pybind11/stl.h>

#include <chrono>

#include "engine.h"
#include "xfer/device.h"
#include "xfer/engine.h"

namespace py = pybind11;

namespace xfer::python {

void BindPeerInfo(py::module_& module) {
  py::class_<RemoteRegion>(
      module, "RemoteRegion",
      "A region the peer registered, as it described itself at connect time.\n"
      "`address` is in the peer's address space: use it (plus an offset) as the\n"
      "remote address of a transfer entry; it means nothing locally.")
      .def_readonly("id", &RemoteRegion::id, "The peer's region id (int).")
      .def_readonly("address", &RemoteRegion::address,
                    "First byte, in the peer's address space (int).")
      .def_readonly("length", &RemoteRegion::length, "Length in bytes (int).")
      .def_readonly("access", &RemoteRegion::access, "What this side may do to it (Access).")
      .def_readonly("kind", &RemoteRegion::kind, "Where the peer's bytes live (MemoryKind).")
      .def_readonly("device", &RemoteRegion::device,
                    "The peer's CUDA device ordinal for CUDA memory; -1 otherwise.")
      .def("__repr__", [](const RemoteRegion& r) {
        return fmt::format("xfer.RemoteRegion(id={}, address={:#x}, length={}, kind={})", r.id,
                           r.address, r.length, MemoryKindName(r.kind));
      });

  py::class_<NicPort>(module, "NicPort",
                      "The local RDMA port a connection's bytes leave through; device '' on "
                      "transports that use no NIC.")
      .def_readonly("device", &NicPort::device, "The RDMA device, e.g. 'mlx5_0' (str).")
      .def_readonly("port", &NicPort::port, "1-based port number (int).")
      .def_readonly("mtu_bytes", &NicPort::mtu_bytes, "The path MTU both sides settled on (bytes).")
      .def("__repr__", [](const NicPort& n) {
        return fmt::format("xfer.NicPort(device='{}', port={}, mtu_bytes={})", n.device, n.port,
                           n.mtu_bytes);
      });

  py::class_<DeviceRegistration>(
      module, "DeviceRegistration",
      "This side's memory registered with the transport's device when the connection was set\n"
      "up (verbs: ibv_reg_mr); all zero on transports without one.")
      .def_readonly("bytes", &DeviceRegistration::bytes, "Bytes registered (int).")
      .def_readonly("memory_registrations", &DeviceRegistration::memory_registrations,
                    "Memory registrations made: a large region makes one per piece (int).")
      .def_property_readonly(
          "seconds",
          [](const DeviceRegistration& r) {
            return std::chrono::duration<double>(r.duration).count();
          },
          "Wall time of all of them (float).")
      .def("__repr__", [](const DeviceRegistration& r) {
        return fmt::format("xfer.DeviceRegistration(bytes={}, memory_registrations={}, "
                           "seconds={:.6f})",
                           r.bytes, r.memory_registrations,
                           std::chrono::duration<double>(r.duration).count());
      });

  py::class_<RailEvent>(module, "RailEvent",
                        "A change of a rail's state, recorded when it happened.")
      .def_property_readonly(
          "time",
          [](const RailEvent& e) {
            return std::chrono::duration<double>(e.at.time_since_epoch()).count();
          },
          "When, in seconds since the epoch, as time.time() (float).")
      .def_readonly("up", &RailEvent::up, "The state it changed to (bool).")
      .def_readonly("reason", &RailEvent::reason, "Down: the failure that took it down (str).")
      .def("__repr__", [](const RailEvent& e) {
        return fmt::format("xfer.RailEvent(time={:.6f}, up={}, reason='{}')",
                           std::chrono::duration<double>(e.at.time_since_epoch()).count(),
                           e.up ? "True" : "False", e.reason);
      });

  py::class_<RailInfo>(module, "RailInfo",
                       "One rail of a connection (a path between the engines) and what it carried.")
      .def_readonly("local", &RailInfo::local, "This side's end: an address (tcp), a device (str).")
      .def_readonly("remote", &RailInfo::remote, "The peer's end (str).")
      .def_readonly("bytes", &RailInfo::bytes, "Bytes moved to completion in slices (int).")
      .def_readonly("slices", &RailInfo::slices, "Slices completed (int).")
      .def_readonly("bytes_per_sec", &RailInfo::bytes_per_sec,
                    "The bandwidth estimate slices are dealt by (float, B/s).")
      .def_readonly("up", &RailInfo::up,
                    "Whether it takes slices; a failed rail is down until it is set up again\n"
                    "(Engine rail_rejoin_backoff) (bool).")
      .def_readonly("failure", &RailInfo::failure,
                    "What took it down; empty while up (str).")
      .def_readonly("retried_bytes", &RailInfo::retried_bytes,
                    "Bytes of slices it failed that were dealt again on other rails (int).")
      .def_readonly("events", &RailInfo::events,
                    "Every change of its state, oldest first (list of RailEvent).")
      .def("__repr__", [](const RailInfo& r) {
        return fmt::format("xfer.RailInfo(local='{}', remote='{}', bytes={}, slices={}, up={})",
                           r.local, r.remote, r.bytes, r.slices, r.up ? "True" : "False");
      });

  py::class_<PeerInfo>(module, "PeerInfo", "What the engine knows of a connected peer.")
      .def_readonly("name", &PeerInfo::name, "The peer's engine name (str).")
      .def_readonly("transport", &PeerInfo::transport,
                    "The transport carrying the connection ('shm', 'tcp', 'verbs').")
      .def_readonly("data_mover", &PeerInfo::data_mover, "What moves its bytes (DataMover).")
      .def_readonly("streams", &PeerInfo::streams, "Independent streams (int).")
      .def_readonly("device_memory", &PeerInfo::device_memory,
                    "Whether this side's CUDA device memory moves on this connection, by the "
                    "transport or staged (bool).")
      .def_readonly("device_path", &PeerInfo::device_path,
                    "How it does ('CUDA IPC' over shm; 'staged through pinned host memory, "
                    "...'); '' without device_memory.")
      .def_readonly("staged", &PeerInfo::staged,
                    "Whether every local buffer is staged (Engine device_path='staged').")
      .def_readonly("max_entries_per_post", &PeerInfo::max_entries_per_post,
                    "The most entries one transfer batch takes (int); split longer ones.")
      .def_readonly("max_inline_bytes", &PeerInfo::max_inline_bytes,
                    "A post of at most this many bytes has read its source when it returns (int).")
      .def_readonly("regions", &PeerInfo::regions,
                    "The peer's regions registered before the connection (list[RemoteRegion]).")
      .def_readonly("nic", &PeerInfo::nic, "The local NIC port, for verbs (NicPort).")
      .def_readonly("registration", &PeerInfo::registration,
                    "This side's memory registered with the device at connect "
                    "(DeviceRegistration).")
      .def_readonly("rails", &PeerInfo::rails,
                    "The rails the connection is striped over, rail 0 first (list[RailInfo]).")
      .def("__repr__", [](const PeerInfo& p) {
        return fmt::format("xfer.PeerInfo(name='{}', transport='{}', streams={}, regions={})",
                           p.name, p.transport, p.streams, p.regions.size());
      });

  py::class_<PythonPrepared>(
      module, "PreparedTransfers",
      "A transfer list checked once against one peer (Engine.prepare); submit\n"
      "ranges or index lists of it with Engine.submit_prepared().")
      .def_property_readonly("peer", [](const PythonPrepared& p) { return p.list.peer(); },
                             "The peer it was prepared against (int).")
      .def("__len__", [](const PythonPrepared& p) { return p.entries.size(); })
      .def("__repr__", [](const PythonPrepared& p) {
        return fmt::format("xfer.PreparedTransfers(peer={}, entries={})", p.list.peer(),
                           p.entries.size());
      });

  py::class_<Notification>(
      module, "Notification",
      "A message a peer sent with Engine.notify() or with a transfer's\n"
      "`notification`, received once the transfer's bytes were in this side's memory.")
      .def_readonly("peer", &Notification::peer, "The sender, as this engine names it (int).")
      .def_readonly("peer_name", &Notification::peer_name, "The sender's engine name (str).")
      .def_property_readonly(
          "message", [](const Notification& n) { return py::bytes(n.message); },
          "The bytes as sent (bytes).")
      .def("__repr__", [](const Notification& n) {
        return fmt::format("xfer.Notification(peer={}, peer_name='{}', message={} bytes)", n.peer,
                           n.peer_name, n.message.size());
      });

  py::class_<CudaDevice>(module, "CudaDevice", "A CUDA device as libxfer sees it.")
      .def_readonly("ordinal", &CudaDevice::ordinal, "What Engine.allocate's `device` takes (int).")
      .def_readonly("name", &CudaDevice::name, "e.g. 'NVIDIA H200' (str).")
      .def_readonly("pci_bus_id", &CudaDevice::pci_bus_id, "e.g. '0000:19:00.0' (str).")
      .def_readonly("memory_bytes", &CudaDevice::memory_bytes, "Device memory in bytes (int).")
      .def("__repr__", [](const CudaDevice& d) {
        return fmt::format("xfer.CudaDevice(ordinal={}, name='{}', pci_bus_id='{}')", d.ordinal,
                           d.name, d.pci_bus_id);
      });
}

}  // namespace xfer::python
