// xfer.Engine: the Python face of xfer::Engine. Conversion, lifetime and
// the GIL only; every rule about peers, memory and transfers is the
// engine's.
#ifndef XFER_PYTHON_ENGINE_H_
#define XFER_PYTHON_ENGINE_H_

#include <pybind11/pybind11.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arguments.h"
#include "engine_core.h"
#include "region.h"
#include "request.h"
#include "xfer/engine.h"

namespace xfer::python {

// The C++ side of one xfer.Engine object. It owns a reference to the
// engine's state (EngineCore) until close(); each call takes its own for
// its duration, so a call running with the GIL released on one thread is
// never left without its engine by a close() on another.
// A prepared transfer list (Engine::PrepareTransfers) with its entries,
// whose local addresses each submission keeps from being deregistered
// while it runs.
struct PythonPrepared {
  PreparedTransfers list;
  std::vector<TransferEntry> entries;
};

class PythonEngine {
 public:
  // Creates the engine and starts listening (GIL released). Throws
  // StatusError with Engine::Create's error.
  explicit PythonEngine(const EngineOptions& options);

  std::string ListenAddress() const;
  PeerId Connect(const std::string& address, const std::string& transport, uint32_t streams,
                 uint32_t rails, const std::vector<std::string>& rail_ends);
  PeerId WaitForPeer(double timeout_seconds);
  void Disconnect(PeerId peer);
  PeerInfo GetPeerInfo(PeerId peer) const;

  // Refused (FAILED_PRECONDITION, nothing changed) while buffer views of
  // its regions live. Otherwise the engine is closed at once, or, when
  // other threads are inside blocking calls on it, as soon as the last of
  // them returns. Idempotent.
  void Close();
  bool closed() const { return core_ == nullptr; }

  Region Register(const pybind11::object& object, Access access);
  Region RegisterDevice(uint64_t address, uint64_t length, Access access);
  Region Allocate(uint64_t length, MemoryKind kind, Access access, int device,
                  std::optional<int> numa_node);
  void Deregister(const Region& region);

  void Transfer(PeerId peer, OpCode op, const pybind11::iterable& entries,
                double timeout_seconds);
  Request Submit(PeerId peer, OpCode op, const pybind11::iterable& entries, uint32_t stream,
                 const Bytes& notification, double timeout_seconds);
  void Cancel(PeerId peer, const Request& request);
  Request Notify(PeerId peer, const Bytes& message, uint32_t stream);
  PythonPrepared Prepare(PeerId peer, const pybind11::iterable& entries);
  // `count` None: to the end of the list; `indices` None: the range.
  Request SubmitPrepared(const PythonPrepared& list, OpCode op, uint32_t first,
                         const pybind11::object& count, const pybind11::object& indices,
                         uint32_t stream, const Bytes& notification, double timeout_seconds);
  std::vector<Notification> GetNotifications(double timeout_seconds, PeerId from);
  Request PostSend(PeerId peer, uint64_t address, uint64_t length, uint32_t stream);
  Request PostRecv(PeerId peer, uint64_t address, uint64_t capacity);
  size_t Send(PeerId peer, uint64_t address, uint64_t length, double timeout_seconds);
  size_t Recv(PeerId peer, uint64_t address, uint64_t capacity, double timeout_seconds);

 private:
  // The state, for the duration of one call (which may then outlive a
  // close() on another thread). Throws FAILED_PRECONDITION once closed.
  std::shared_ptr<EngineCore> Open() const;
  // Records a region the engine just registered and hands out its handle.
  Region Track(const std::shared_ptr<EngineCore>& core, const MemoryRegion& region,
               HeldBuffer held);

  std::shared_ptr<EngineCore> core_;  // null once closed
};

void BindEngine(pybind11::module_& module);

}  // namespace xfer::python

#endif  // XFER_PYTHON_ENGINE_H_
