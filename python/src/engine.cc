#include "engine.h"

#include <fmt/format.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "arguments.h"
#include "conversions.h"
#include "errors.h"
#include "gil.h"
#include "xfer/device.h"

namespace py = pybind11;

namespace xfer::python {
namespace {

// Waits for a request this call posted; on TIMEOUT disconnects the peer,
// which fails the request, as Engine::Transfer does: a synchronous call
// must not leave a send or a posted receive behind to complete later.
// Ctrl-C disconnects the peer too, for the same reason, before
// KeyboardInterrupt propagates. REQUIRES: the GIL is held.
Status FinishWithin(Engine& engine, PeerId peer, const TransferRequest& request,
                    std::chrono::nanoseconds timeout) {
  Status status = WaitForRequest(request, timeout, [&] { (void)engine.Disconnect(peer); });
  if (status.code() != StatusCode::kTimeout || request.done()) return status;
  WithoutGil([&] { (void)engine.Disconnect(peer); });
  return Timeout("the operation did not complete within the timeout; the peer was disconnected");
}

// Ends a synchronous call on its operation however the call ends, a
// KeyboardInterrupt from its wait included, so that its memory is released
// once the request is done. REQUIRES: destroyed with the GIL held.
class CallScope {
 public:
  explicit CallScope(Operation& operation) : operation_(operation) {}
  ~CallScope() { operation_.in_call = false; }
  CallScope(const CallScope&) = delete;
  CallScope& operator=(const CallScope&) = delete;

 private:
  Operation& operation_;
};

// A synchronous send or receive on `address`: `post(engine, request)`
// starts it with the GIL released, then the call waits for it (FinishWithin).
// Returns the bytes it moved.
template <typename Post>
size_t RunSynchronously(EngineCore& core, PeerId peer, uint64_t address, double timeout_seconds,
                        Post&& post) {
  const auto timeout = SecondsToNanoseconds(timeout_seconds, "timeout");
  auto operation = core.BeginOperation(AsPointer(address));
  const CallScope call(*operation);
  Engine& engine = core.engine();
  Status status = WithoutGil([&] { return post(engine, operation->request); });
  if (status.ok()) status = FinishWithin(engine, peer, operation->request, timeout);
  ThrowIfError(status);
  return operation->request.bytes();
}

}  // namespace

PythonEngine::PythonEngine(const EngineOptions& options) {
  auto created = WithoutGil([&] { return Engine::Create(options); });
  core_ = std::make_shared<EngineCore>(ValueOrThrow(std::move(created)));
}

std::shared_ptr<EngineCore> PythonEngine::Open() const {
  if (!core_) throw StatusError(FailedPrecondition("the engine is closed"));
  return core_;
}

std::string PythonEngine::ListenAddress() const { return Open()->engine().listen_address(); }

PeerId PythonEngine::Connect(const std::string& address, const std::string& transport,
                             uint32_t streams, uint32_t rails,
                             const std::vector<std::string>& rail_ends) {
  auto core = Open();
  ConnectOptions options;
  options.transport = transport;
  options.streams = streams;
  options.rails = rails;
  options.rail_ends = rail_ends;
  auto peer = WithoutGil([&] { return core->engine().Connect(address, options); });
  return ValueOrThrow(std::move(peer));
}

PeerId PythonEngine::WaitForPeer(double timeout_seconds) {
  auto core = Open();
  const auto timeout = SecondsToMilliseconds(timeout_seconds, "timeout");
  auto peer = WaitCheckingSignals(
      timeout,
      [&](std::chrono::nanoseconds slice) {
        return core->engine().WaitForPeer(std::chrono::ceil<std::chrono::milliseconds>(slice));
      },
      [] {});
  if (!peer.ok() && peer.status().code() == StatusCode::kTimeout) {
    throw StatusError(Timeout("no peer connected to " + core->engine().listen_address() +
                              " within " + std::to_string(timeout.count()) + " ms"));
  }
  return ValueOrThrow(std::move(peer));
}

void PythonEngine::Disconnect(PeerId peer) {
  auto core = Open();
  auto status = WithoutGil([&] { return core->engine().Disconnect(peer); });
  ThrowIfError(status);
}

PeerInfo PythonEngine::GetPeerInfo(PeerId peer) const {
  return ValueOrThrow(Open()->engine().GetPeerInfo(peer));
}

void PythonEngine::Close() {
  if (!core_) return;
  core_->CheckNoExports("close");
  core_->MarkClosed();
  core_.reset();  // destroys the engine now, unless a call on another thread holds it
}

Region PythonEngine::Track(const std::shared_ptr<EngineCore>& core, const MemoryRegion& region,
                           HeldBuffer held) {
  core->Track(region, std::move(held));
  return Region(core, region);
}

Region PythonEngine::Register(const py::object& object, Access access) {
  auto core = Open();
  HeldBuffer held = HeldBuffer::Acquire(object);
  void* const data = held.data();
  const size_t length = held.length();
  auto region = WithoutGil(
      [&] { return core->engine().RegisterMemory(data, length, MemoryOptions{access}); });
  // On failure `held` is released here, with the GIL.
  return Track(core, ValueOrThrow(std::move(region)), std::move(held));
}

Region PythonEngine::RegisterDevice(uint64_t address, uint64_t length, Access access) {
  auto core = Open();
  // Python cannot vouch for the lifetime of host memory known only by an
  // int, and the engine would move bytes to and from whatever it
  // registered. So the kind is asked first, with a registration no peer
  // may use (Access NONE), and only CUDA device memory is then registered
  // for real. Host memory goes through register(), which holds its owner.
  struct Probe {
    Result<MemoryRegion> region;
    Status withdrawn;
  };
  Probe probe = WithoutGil([&] {
    Probe p{core->engine().RegisterMemory(AsPointer(address), static_cast<size_t>(length),
                                          MemoryOptions{Access::kNone}),
            Status::Ok()};
    if (p.region.ok()) p.withdrawn = core->engine().DeregisterMemory(*p.region);
    return p;
  });
  const MemoryRegion probed = ValueOrThrow(std::move(probe.region));
  ThrowIfError(probe.withdrawn);
  if (probed.kind != MemoryKind::kCuda) {
    auto devices = ListCudaDevices();
    const std::string why = devices.ok()
                                ? "the CUDA driver reports host memory"
                                : "this host has no usable CUDA: " + devices.status().message();
    throw StatusError(InvalidArgument(fmt::format(
        "register_device: [{:#x}, +{}) is not CUDA device memory ({}); register host memory "
        "through a buffer object with register()",
        address, length, why)));
  }
  auto region = WithoutGil([&] {
    return core->engine().RegisterMemory(AsPointer(address), static_cast<size_t>(length),
                                         MemoryOptions{access});
  });
  return Track(core, ValueOrThrow(std::move(region)), HeldBuffer());
}

Region PythonEngine::Allocate(uint64_t length, MemoryKind kind, Access access, int device,
                              std::optional<int> numa_node) {
  auto core = Open();
  MemoryOptions options;
  options.access = access;
  options.kind = kind;
  options.device = device;
  options.numa_node = numa_node.value_or(-1);
  auto region = WithoutGil(
      [&] { return core->engine().AllocateMemory(static_cast<size_t>(length), options); });
  return Track(core, ValueOrThrow(std::move(region)), HeldBuffer());
}

void PythonEngine::Deregister(const Region& region) {
  auto core = Open();
  if (region.core() != core) {
    throw StatusError(InvalidArgument(
        fmt::format("region {} was not registered with this engine", region.region().id)));
  }
  const MemoryRegion registered = core->BeginDeregister(region.region().id);
  auto status = WithoutGil([&] { return core->engine().DeregisterMemory(registered); });
  core->FinishDeregister(registered.id, status);
  ThrowIfError(status);
}

void PythonEngine::Transfer(PeerId peer, OpCode op, const py::iterable& entries,
                            double timeout_seconds) {
  auto core = Open();
  const auto timeout = SecondsToNanoseconds(timeout_seconds, "timeout");
  const std::vector<TransferEntry> batch = EntriesFromPython(entries);
  auto operation = core->BeginOperation(batch);
  auto status = WithoutGil([&] { return core->engine().Transfer(peer, op, batch, timeout); });
  operation->in_call = false;
  ThrowIfError(status);
}

Request PythonEngine::Submit(PeerId peer, OpCode op, const py::iterable& entries,
                             uint32_t stream, const Bytes& notification, double timeout_seconds) {
  auto core = Open();
  const std::vector<TransferEntry> batch = EntriesFromPython(entries);
  SubmitOptions options;
  options.stream = stream;
  options.notification = notification.data;
  if (timeout_seconds != 0.0) options.timeout = SecondsToNanoseconds(timeout_seconds, "timeout");
  auto operation = core->BeginOperation(batch);
  auto status = WithoutGil(
      [&] { return core->engine().Submit(peer, op, batch, operation->request, options); });
  operation->in_call = false;
  ThrowIfError(status);
  return Request(operation);
}

Request PythonEngine::Notify(PeerId peer, const Bytes& message, uint32_t stream) {
  auto core = Open();
  // The engine copies the message before Notify returns: the operation
  // holds no buffer.
  auto operation = core->BeginOperation(std::span<const TransferEntry>{});
  auto status = WithoutGil(
      [&] { return core->engine().Notify(peer, message.data, operation->request, stream); });
  operation->in_call = false;
  ThrowIfError(status);
  return Request(operation);
}

PythonPrepared PythonEngine::Prepare(PeerId peer, const py::iterable& entries) {
  auto core = Open();
  PythonPrepared prepared;
  prepared.entries = EntriesFromPython(entries);
  auto list = WithoutGil([&] { return core->engine().PrepareTransfers(peer, prepared.entries); });
  prepared.list = ValueOrThrow(std::move(list));
  return prepared;
}

Request PythonEngine::SubmitPrepared(const PythonPrepared& prepared, OpCode op, uint32_t first,
                                     const py::object& count, const py::object& indices,
                                     uint32_t stream, const Bytes& notification,
                                     double timeout_seconds) {
  auto core = Open();
  const size_t size = prepared.entries.size();
  // An empty index list selects nothing (the engine refuses it); only a
  // missing one means "a range".
  const bool by_index = !indices.is_none();
  std::vector<uint32_t> chosen;
  if (by_index) {
    if (!count.is_none() || first != 0) {
      throw py::value_error("submit_prepared takes a range (first, count) or indices, not both");
    }
    for (py::handle index : py::iterable(indices)) {
      chosen.push_back(static_cast<uint32_t>(UnsignedFromPython(index, "indices", UINT32_MAX)));
    }
  }
  const auto taken = count.is_none()
                         ? static_cast<uint32_t>(first < size ? size - first : 0)
                         : static_cast<uint32_t>(UnsignedFromPython(count, "count", UINT32_MAX));
  // The entries this submission reads or fills, for BeginOperation; those
  // out of the list are left for the engine to refuse.
  std::vector<TransferEntry> touched;
  if (!by_index) {
    for (uint64_t i = first; i < size && i < uint64_t{first} + taken; ++i) {
      touched.push_back(prepared.entries[i]);
    }
  } else {
    for (uint32_t index : chosen) {
      if (index < size) touched.push_back(prepared.entries[index]);
    }
  }
  SubmitOptions options;
  options.stream = stream;
  options.notification = notification.data;
  if (timeout_seconds != 0.0) options.timeout = SecondsToNanoseconds(timeout_seconds, "timeout");
  auto operation = core->BeginOperation(touched);
  auto status = WithoutGil([&] {
    return !by_index ? core->engine().SubmitPrepared(prepared.list, op, first, taken,
                                                          operation->request, options)
                          : core->engine().SubmitPrepared(prepared.list, op, chosen,
                                                          operation->request, options);
  });
  operation->in_call = false;
  ThrowIfError(status);
  return Request(operation);
}

void PythonEngine::Cancel(PeerId peer, const Request& request) {
  auto core = Open();
  ThrowIfError(WithoutGil([&] { return core->engine().Cancel(peer, request.in_flight()); }));
}

std::vector<Notification> PythonEngine::GetNotifications(double timeout_seconds, PeerId from) {
  auto core = Open();
  const auto timeout = SecondsToNanoseconds(timeout_seconds, "timeout");
  // In slices, so that Ctrl-C raises KeyboardInterrupt within kSignalSlice
  // rather than after the whole timeout; an empty slice reads as kTimeout.
  auto taken = WaitCheckingSignals(
      timeout,
      [&](std::chrono::nanoseconds slice) {
        return NotificationWait{core->engine().GetNotifications(slice, from)};
      },
      [] {});
  return std::move(taken.notifications);
}

Request PythonEngine::PostSend(PeerId peer, uint64_t address, uint64_t length, uint32_t stream) {
  auto core = Open();
  auto operation = core->BeginOperation(AsPointer(address));
  auto status = WithoutGil([&] {
    return core->engine().PostSend(peer, AsPointer(address), static_cast<size_t>(length),
                                   operation->request, stream);
  });
  operation->in_call = false;
  ThrowIfError(status);
  return Request(operation);
}

Request PythonEngine::PostRecv(PeerId peer, uint64_t address, uint64_t capacity) {
  auto core = Open();
  auto operation = core->BeginOperation(AsPointer(address));
  auto status = WithoutGil([&] {
    return core->engine().PostRecv(peer, AsPointer(address), static_cast<size_t>(capacity),
                                   operation->request);
  });
  operation->in_call = false;
  ThrowIfError(status);
  return Request(operation);
}

size_t PythonEngine::Send(PeerId peer, uint64_t address, uint64_t length, double timeout_seconds) {
  return RunSynchronously(*Open(), peer, address, timeout_seconds,
                          [&](Engine& engine, TransferRequest& request) {
                            return engine.PostSend(peer, AsPointer(address),
                                                   static_cast<size_t>(length), request);
                          });
}

size_t PythonEngine::Recv(PeerId peer, uint64_t address, uint64_t capacity,
                          double timeout_seconds) {
  return RunSynchronously(*Open(), peer, address, timeout_seconds,
                          [&](Engine& engine, TransferRequest& request) {
                            return engine.PostRecv(peer, AsPointer(address),
                                                   static_cast<size_t>(capacity), request);
                          });
}

namespace {

// The keyword argument that sets a transport option: "<transport>_<key>",
// as in verbs_device.
std::string KeywordOf(const TransportOptionInfo& option) {
  return option.transport + "_" + option.key;
}

// One transport option from its keyword argument, checked against the
// transport's table: TypeError for the wrong type, ValueError outside the
// range or choices, both naming the keyword.
std::string TransportOptionFromPython(const TransportOptionInfo& option, py::handle value) {
  const std::string keyword = KeywordOf(option);
  if (!option.integer) return TextFromPython(value, keyword);
  const uint64_t number = UnsignedFromPython(value, keyword, std::numeric_limits<uint64_t>::max());
  const bool chosen = option.choices.empty() ||
                      std::find(option.choices.begin(), option.choices.end(), number) !=
                          option.choices.end();
  if (number < option.min || number > option.max || !chosen) {
    throw py::value_error(
        option.choices.empty()
            ? fmt::format("{} must be in [{}, {}], got {}", keyword, option.min, option.max,
                          number)
            : fmt::format("{} must be one of {}, got {}", keyword, fmt::join(option.choices, ", "),
                          number));
  }
  return std::to_string(number);
}

// The transports' settings from the keywords Engine() did not name itself:
// each must be "<transport>_<key>" of a built-in transport's option
// (xfer.transport_options()); anything else is Python's "unexpected keyword
// argument" TypeError.
std::map<std::string, TransportOptions, std::less<>> TransportOptionsFromKeywords(
    const py::kwargs& keywords) {
  static const std::vector<TransportOptionInfo> table = BuiltinTransportOptions();
  std::map<std::string, TransportOptions, std::less<>> options;
  py::dict unknown;
  for (const auto& [key, value] : keywords) {
    const std::string keyword = py::str(key);
    const auto option = std::find_if(table.begin(), table.end(), [&](const auto& candidate) {
      return KeywordOf(candidate) == keyword;
    });
    if (option == table.end()) {
      unknown[key] = value;
      continue;
    }
    if (!value.is_none()) {
      options[option->transport][option->key] = TransportOptionFromPython(*option, value);
    }
  }
  RefuseUnexpectedKeywords("Engine", py::kwargs(std::move(unknown)));
  return options;
}

EngineOptions OptionsFromPython(const std::string& name, const std::string& listen,
                                const std::optional<std::vector<std::string>>& transports,
                                double connect_timeout, double io_timeout,
                                const std::string& secret, const std::string& device_path,
                                double slice_timeout, uint32_t slice_retries,
                                double rail_rejoin_backoff, double rail_rejoin_max_backoff,
                                const py::kwargs& keywords) {
  EngineOptions options;
  auto path = ParseDevicePath(device_path);
  if (!path.ok()) throw py::value_error(path.status().message());
  options.device_path = *path;
  options.name = name;
  options.listen_address = listen;
  if (transports) options.transports = *transports;
  options.connect_timeout = SecondsToMilliseconds(connect_timeout, "connect_timeout");
  options.io_timeout = SecondsToMilliseconds(io_timeout, "io_timeout");
  options.slice_timeout = SecondsToMilliseconds(slice_timeout, "slice_timeout");
  options.slice_retries = slice_retries;
  options.rail_rejoin_backoff = SecondsToMilliseconds(rail_rejoin_backoff, "rail_rejoin_backoff");
  options.rail_rejoin_max_backoff =
      SecondsToMilliseconds(rail_rejoin_max_backoff, "rail_rejoin_max_backoff");
  options.secret = secret;
  options.transport_options = TransportOptionsFromKeywords(keywords);
  return options;
}

// The lines of Engine's docstring that list the transport keywords, from
// the transports' tables.
std::string TransportKeywordLines() {
  std::string lines;
  for (const TransportOptionInfo& option : BuiltinTransportOptions()) {
    const std::string range =
        !option.integer ? "str"
        : option.choices.empty()
            ? fmt::format("int in [{}, {}]", option.min, option.max)
            : fmt::format("int, one of {}", fmt::join(option.choices, ", "));
    lines += fmt::format("  {:<16} {} ({}); default: {}\n", KeywordOf(option), option.doc, range,
                         option.default_text);
  }
  return lines.empty() ? "  (none in this build)\n" : lines;
}

// write(), read(), write_async(), read_async(): transfer() and submit()
// with the OpCode fixed.
void WriteBatch(PythonEngine& engine, PeerId peer, const py::iterable& entries, double timeout) {
  engine.Transfer(peer, OpCode::kWrite, entries, timeout);
}
void ReadBatch(PythonEngine& engine, PeerId peer, const py::iterable& entries, double timeout) {
  engine.Transfer(peer, OpCode::kRead, entries, timeout);
}
Request WriteAsync(PythonEngine& engine, PeerId peer, const py::iterable& entries,
                   uint32_t stream, const Bytes& notification, double timeout) {
  return engine.Submit(peer, OpCode::kWrite, entries, stream, notification, timeout);
}
Request ReadAsync(PythonEngine& engine, PeerId peer, const py::iterable& entries, uint32_t stream,
                  const Bytes& notification, double timeout) {
  return engine.Submit(peer, OpCode::kRead, entries, stream, notification, timeout);
}

constexpr const char* kEngineDocHead =
    R"(A libxfer engine: memory registration, peer connections and one-sided
transfers over shm, tcp or RDMA verbs.

Engine(name="xfer", listen="127.0.0.1:0", transports=None,
       connect_timeout=5.0, io_timeout=10.0, secret=b"", device_path="auto",
       slice_timeout=0.0, slice_retries=8, rail_rejoin_backoff=0.25,
       rail_rejoin_max_backoff=3.0, **transport_options)

  name             shown in logs and sent to peers in the handshake
  listen           "host:port" to accept peers on; port 0 picks a free port
                   (see listen_address); "" accepts no peers
  transports       names this engine may use (see builtin_transports());
                   None or [] means all built in
  connect_timeout  seconds (float): bound on establishing a connection
  io_timeout       seconds (float): bound on any single blocking step of a
                   transport; a peer silent for longer is declared dead and
                   its requests fail with CONNECTION_LOST or TIMEOUT
  secret           bytes shared with the peers (at least 16): every
                   connection then opens with a mutual HMAC-SHA256
                   challenge-response, and a peer without the same secret is
                   refused (PERMISSION_DENIED) before it learns any region;
                   b"" (the default) authenticates nobody
  device_path      how this engine's buffers move: "auto" (the transport's
                   own path where it has one, else staged), "direct" (its
                   own path only), "staged" (every buffer bounced through
                   pinned host memory); PeerInfo.staged tells
  slice_timeout    seconds (float): over several rails, a rail with slices in
                   flight and none completed for this long has failed
                   silently and is left for the others; 0.0 (the default):
                   half of io_timeout
  slice_retries    how many times one failed slice is dealt again, each
                   time to another rail (int, default 8)
  rail_rejoin_backoff, rail_rejoin_max_backoff
                   seconds (float): a failed rail is set up again in the
                   background, first this long after it failed, the wait
                   doubling after each failed attempt up to the maximum; a
                   returned rail that carries a slice clears it. 0.0: a
                   failed rail stays down

Transport options, as keywords "<transport>_<key>" (the transports' own
tables: xfer.transport_options()); None or absent keeps the default:
)";

constexpr const char* kEngineDocTail = R"(
Errors raise xfer.Error (INVALID_ARGUMENT for a bad listen address, an
unknown transport or a zero timeout; IO_ERROR when binding fails);
ValueError for a negative or non-finite timeout or a transport option
outside its range.

Arguments of the wrong type raise TypeError, and ints out of range (a
negative length, a peer id of 2**64) ValueError, each naming the parameter;
inside a batch of entries likewise, naming the entry and field.
Regions registered before a peer connects are the ones it sees. Blocking
calls release the GIL. Use as a context manager to close it.)";

}  // namespace

void BindEngine(py::module_& module) {
  const auto read_write = Access::kRemoteReadWrite;
  // Static: pybind11 keeps the pointer.
  static const std::string engine_doc =
      std::string(kEngineDocHead) + TransportKeywordLines() + kEngineDocTail;
  py::class_<PythonEngine>(module, "Engine", py::is_final(), engine_doc.c_str())
      .def(py::init([](Arg<std::string, "name"> name, Arg<std::string, "listen"> listen,
                       Arg<std::optional<std::vector<std::string>>, "transports"> transports,
                       Arg<double, "connect_timeout"> connect_timeout,
                       Arg<double, "io_timeout"> io_timeout,
                       Arg<Bytes, "secret"> secret, Arg<std::string, "device_path"> device_path,
                       Arg<double, "slice_timeout"> slice_timeout,
                       Arg<uint32_t, "slice_retries"> slice_retries,
                       Arg<double, "rail_rejoin_backoff"> rail_rejoin_backoff,
                       Arg<double, "rail_rejoin_max_backoff"> rail_rejoin_max_backoff,
                       const py::kwargs& transport_options) {
             // Converted in order, before anything is created.
             EngineOptions options = OptionsFromPython(
                 name.get(), listen.get(), transports.get(), connect_timeout.get(),
                 io_timeout.get(), secret.get().data, device_path.get(), slice_timeout.get(),
                 slice_retries.get(), rail_rejoin_backoff.get(), rail_rejoin_max_backoff.get(),
                 transport_options);
             return std::make_unique<PythonEngine>(options);
           }),
           py::arg("name") = "xfer", py::arg("listen") = "127.0.0.1:0",
           py::arg("transports") = py::none(), py::arg("connect_timeout") = 5.0,
           py::arg("io_timeout") = 10.0, py::arg("secret") = py::bytes(),
           py::arg("device_path") = "auto", py::arg("slice_timeout") = 0.0,
           py::arg("slice_retries") = 8, py::arg("rail_rejoin_backoff") = 0.25,
           py::arg("rail_rejoin_max_backoff") = 3.0)
      .def_property_readonly("listen_address", &PythonEngine::ListenAddress,
                             "The bound 'host:port' (the real port when listen asked for port 0), "
                             "or '' when not listening.")
      .def_property_readonly("closed", &PythonEngine::closed, "True once close() succeeded.")
      .def("connect",
           Checked<"connect", "address", "transport", "streams", "rails", "rail_ends">::Method(&PythonEngine::Connect), py::arg("address"), py::arg("transport") = "",
           py::arg("streams") = 1, py::arg("rails") = 0, py::arg("rail_ends") = std::vector<std::string>{},
           "Connects to the engine listening at `address` ('host:port') and exchanges\n"
           "region tables; returns the peer id (int). `transport` forces one by name\n"
           "('' lets the engine choose: shm on one host, else verbs, else tcp);\n"
           "`streams` (1..64) independent streams; `rails` the paths the connection\n"
           "is striped over (0: the transport's choice, else 1..16; PeerInfo.rails),\n"
           "or `rail_ends` this side's ends by name (tcp: local addresses).\n"
           "Bounded by connect_timeout; GIL released.")
      .def("wait_for_peer", Checked<"wait_for_peer", "timeout">::Method(&PythonEngine::WaitForPeer), py::arg("timeout") = 10.0,
           "Waits up to `timeout` seconds (float) for the next peer to connect; returns\n"
           "its peer id (int). xfer.Error TIMEOUT when none came, NOT_SUPPORTED when not\n"
           "listening. GIL released.")
      .def("disconnect", Checked<"disconnect", "peer">::Method(&PythonEngine::Disconnect), py::arg("peer"),
           "Closes the connection; its in-flight requests finish with CONNECTION_LOST.\n"
           "xfer.Error NOT_FOUND for an unknown peer. GIL released.")
      .def("peer_info", Checked<"peer_info", "peer">::Method(&PythonEngine::GetPeerInfo), py::arg("peer"),
           "What the engine knows of a connected peer (PeerInfo), including the regions\n"
           "it registered before connecting. xfer.Error NOT_FOUND for an unknown peer.")
      .def("close", &PythonEngine::Close,
           "Destroys the engine: disconnects every peer (in-flight requests finish with\n"
           "CONNECTION_LOST), frees the memory it allocated and releases the objects\n"
           "registered with it. Refused with xfer.Error FAILED_PRECONDITION, changing\n"
           "nothing, while buffer views of its regions (memoryview(region),\n"
           "numpy.frombuffer(region)) live: release them first. While other threads are\n"
           "inside blocking calls on this engine, the destruction happens when the last\n"
           "of them returns. Idempotent. Without close(), the engine is destroyed when\n"
           "the Engine object and every buffer view of its memory are gone.")
      // A closed engine is no context to enter: FAILED_PRECONDITION, as
      // every other call on it.
      .def("__enter__",
           [](py::object self) {
             if (self.cast<const PythonEngine&>().closed()) {
               throw StatusError(FailedPrecondition("the engine is closed"));
             }
             return self;
           })
      .def(
          "__exit__",
          [](PythonEngine& engine, const py::args&) {
            engine.Close();
            return false;
          },
          "close(); exceptions from the block propagate.")
      .def("register", Checked<"register", "obj", "access">::Method(&PythonEngine::Register), py::arg("obj"), py::arg("access") = read_write,
           "Registers the memory of `obj`, zero-copy. `obj` must export a writable,\n"
           "C-contiguous buffer (bytearray, writable memoryview, numpy array, ...):\n"
           "a read-only or non-contiguous one raises xfer.Error INVALID_ARGUMENT, an\n"
           "object without the buffer protocol TypeError. The buffer is held until\n"
           "deregister(region) or close(): the object stays alive (del of the last\n"
           "Python reference is safe) and cannot be resized. `access` says what the\n"
           "peer may do (Access). Returns the Region; its memory is also viewable\n"
           "through memoryview(region). xfer.Error INVALID_ARGUMENT for an empty\n"
           "buffer or one overlapping a registered region.")
      .def("register_device",
           Checked<"register_device", "address", "length", "access">::Method(
               &PythonEngine::RegisterDevice), py::arg("address"), py::arg("length"),
           py::arg("access") = read_write,
           "Registers caller-owned CUDA device memory [address, address + length)\n"
           "(cudaMalloc or the VMM API: e.g. tensor.data_ptr(), cupy_array.data.ptr),\n"
           "`length` in bytes. The caller keeps it allocated until deregister(region)\n"
           "or close(). The engine asks the CUDA driver what the memory is: the range\n"
           "must lie inside one device allocation. Anything else - host memory, or any\n"
           "address on a host without a usable CUDA driver - raises xfer.Error\n"
           "INVALID_ARGUMENT and registers nothing, as do a null address, zero length\n"
           "and CUDA managed memory. GIL released.")
      .def("allocate",
           Checked<"allocate", "length", "kind", "access", "device", "numa_node">::Method(
               &PythonEngine::Allocate), py::arg("length"),
           py::arg("kind") = MemoryKind::kHost, py::arg("access") = read_write,
           py::arg("device") = 0, py::arg("numa_node") = py::none(),
           "Allocates `length` bytes owned by the engine, zero-filled and page-aligned,\n"
           "registered with `access`; HOST and HUGEPAGE pages on NUMA node `numa_node`\n"
           "(None: the kernel's choice). HOST and HUGEPAGE memory is exported through the\n"
           "buffer protocol (memoryview(region), numpy.frombuffer(region, dtype=...));\n"
           "CUDA memory (on GPU `device`) has only region.address. Freed by\n"
           "deregister(region) or close(). xfer.Error INVALID_ARGUMENT (length 0, bad\n"
           "device), RESOURCE_EXHAUSTED, and for CUDA FAILED_PRECONDITION (no usable\n"
           "driver or GPU: the message says why) or NOT_SUPPORTED (no CUDA in this\n"
           "build). GIL released.")
      .def("deregister", Checked<"deregister", "region">::Method(&PythonEngine::Deregister), py::arg("region"),
           "Removes `region` and revokes it from every peer; engine memory is freed, a\n"
           "registered object's buffer released. Refused with xfer.Error\n"
           "FAILED_PRECONDITION, changing nothing, while buffer views of it live or an\n"
           "operation in flight uses it. NOT_FOUND if not registered (any more);\n"
           "INVALID_ARGUMENT for another engine's region. May block up to io_timeout\n"
           "for a peer's transfer under way (GIL released); on TIMEOUT or IO_ERROR the\n"
           "region is gone but a registered object's buffer stays held until close().")
      .def(
          "write",
          Checked<"write", "peer", "entries", "timeout">::Free(&WriteBatch),
          py::arg("peer"), py::arg("entries"), py::arg("timeout") = 10.0,
          "Synchronous WRITE of a batch: `entries` is an iterable of\n"
          "(local_address, remote_address, length) int tuples, local_address inside a\n"
          "local region, the remote range inside one region of the peer granting\n"
          "REMOTE_WRITE. Every entry is checked before any byte moves: xfer.Error\n"
          "OUT_OF_RANGE (an address outside registered memory), PERMISSION_DENIED,\n"
          "INVALID_ARGUMENT (empty batch, zero length), NOT_FOUND (peer). Returns once\n"
          "every byte landed in the peer's memory. `timeout` in seconds (float); on\n"
          "TIMEOUT the peer is disconnected and bytes may have partly landed. A\n"
          "malformed entry raises TypeError, a negative value ValueError. GIL\n"
          "released.")
      .def(
          "read",
          Checked<"read", "peer", "entries", "timeout">::Free(&ReadBatch),
          py::arg("peer"), py::arg("entries"), py::arg("timeout") = 10.0,
          "Synchronous READ of a batch of (local_address, remote_address, length)\n"
          "tuples: the remote ranges must grant REMOTE_READ. Otherwise as write().")
      .def("transfer",
           Checked<"transfer", "peer", "op", "entries", "timeout">::Method(&PythonEngine::Transfer), py::arg("peer"), py::arg("op"), py::arg("entries"),
           py::arg("timeout") = 10.0, "write() or read() by OpCode (Engine::Transfer).")
      .def(
          "write_async",
          Checked<"write_async", "peer", "entries", "stream", "notification", "timeout">::Free(
              &WriteAsync),
          py::arg("peer"), py::arg("entries"), py::arg("stream") = 0,
          py::arg("notification") = py::bytes(), py::arg("timeout") = 0.0,
          "Starts a WRITE batch (entries as for write()) on `stream` (modulo the\n"
          "connection's streams) and returns its Request. Validation errors raise\n"
          "xfer.Error at once, with nothing started; failures after that are the\n"
          "Request's. A non-empty `notification` (bytes, at most\n"
          "MAX_NOTIFICATION_BYTES) reaches the peer's get_notifications() after every\n"
          "byte of the batch is in its memory; the Request then also covers sending it.\n"
          "`timeout` (seconds, float; 0: none) is the request's deadline: past it the\n"
          "Request fails with TIMEOUT; a staged request still queued is dropped, and\n"
          "one whose work is with the transport ends by closing its connection.")
      .def(
          "read_async",
          Checked<"read_async", "peer", "entries", "stream", "notification", "timeout">::Free(
              &ReadAsync),
          py::arg("peer"), py::arg("entries"), py::arg("stream") = 0,
          py::arg("notification") = py::bytes(), py::arg("timeout") = 0.0,
          "Starts a READ batch; as write_async(). The notification reaches the peer\n"
          "once every byte was read from its memory (it may then reuse it).")
      .def("submit",
           Checked<"submit", "peer", "op", "entries", "stream", "notification", "timeout">::Method(
               &PythonEngine::Submit),
           py::arg("peer"), py::arg("op"), py::arg("entries"), py::arg("stream") = 0,
           py::arg("notification") = py::bytes(), py::arg("timeout") = 0.0,
           "write_async() or read_async() by OpCode (Engine::Submit).")
      .def("cancel", Checked<"cancel", "peer", "request">::Method(&PythonEngine::Cancel),
           py::arg("peer"), py::arg("request"),
           "Cancels a Request to `peer`: what has not started never runs, and the\n"
           "Request fails with CANCELLED once nothing of it can touch memory. A staged\n"
           "request still queued moves nothing; a running one stops between chunks;\n"
           "a direct one is with the transport already, and ends when its work does\n"
           "(a cancelled WRITE may have written any part of its entries). The\n"
           "connection stays up. xfer.Error NOT_FOUND if the Request is not in flight.")
      .def("notify",
           Checked<"notify", "peer", "message", "stream">::Method(&PythonEngine::Notify),
           py::arg("peer"), py::arg("message"), py::arg("stream") = 0,
           "Sends `message` (bytes, 1..MAX_NOTIFICATION_BYTES) to the peer, behind the\n"
           "data: the peer receives it only after every transfer this engine started\n"
           "to it on the same stream before has reached (WRITE) or been read from\n"
           "(READ) its memory, on every transport. Returns a Request that completes\n"
           "once the message is on its way. xfer.Error INVALID_ARGUMENT (empty, too\n"
           "long), NOT_FOUND (peer).")
      .def("prepare",
           Checked<"prepare", "peer", "entries">::Method(&PythonEngine::Prepare),
           py::arg("peer"), py::arg("entries"),
           "Checks and resolves a list of (local_address, remote_address, length)\n"
           "entries against `peer` once and returns it (PreparedTransfers), for\n"
           "submit_prepared() to take ranges or index lists of many times with no\n"
           "per-entry checks. Raises what write_async() raises for a bad entry.")
      .def("submit_prepared",
           Checked<"submit_prepared", "prepared", "op", "first", "count", "indices", "stream",
                   "notification", "timeout">::Method(&PythonEngine::SubmitPrepared),
           py::arg("prepared"), py::arg("op"), py::arg("first") = 0,
           py::arg("count") = py::none(), py::arg("indices") = py::none(),
           py::arg("stream") = 0, py::arg("notification") = py::bytes(),
           py::arg("timeout") = 0.0,
           "Starts entries [first, first + count) of a prepared list (count None: to\n"
           "its end), or the entries at `indices` in that order, as one READ or WRITE\n"
           "(an empty `indices` or a `count` of 0 selects nothing and is refused with\n"
           "INVALID_ARGUMENT: it never means every entry)\n"
           "(op) and returns its Request; `notification` as write_async(). xfer.Error\n"
           "INVALID_ARGUMENT (outside the list), PERMISSION_DENIED (the op's access),\n"
           "NOT_FOUND (its connection closed), FAILED_PRECONDITION (the list was\n"
           "invalidated: a region of it deregistered here or revoked by the peer).")
      .def("get_notifications",
           Checked<"get_notifications", "timeout", "peer">::Method(
               &PythonEngine::GetNotifications),
           py::arg("timeout") = 0.0, py::arg("peer") = 0,
           "The notifications received and not yet taken (list[Notification]),\n"
           "oldest first per peer; from `peer` only when it is not 0. Waits up to\n"
           "`timeout` seconds (float) for the first when there is none; [] when none\n"
           "came. Notifications stay readable after their sender disconnected. GIL\n"
           "released while waiting.")
      .def("post_send",
           Checked<"post_send", "peer", "address", "length", "stream">::Method(
               &PythonEngine::PostSend), py::arg("peer"), py::arg("address"),
           py::arg("length"), py::arg("stream") = 0,
           "Two-sided: sends `length` bytes at `address` (in a local region) to the\n"
           "peer's oldest posted receive. The Request completes once the bytes have\n"
           "left (the memory may then be reused), before the peer has them.\n"
           "xfer.Error OUT_OF_RANGE (not registered), INVALID_ARGUMENT (zero length),\n"
           "NOT_SUPPORTED (CUDA memory).")
      .def("post_recv",
           Checked<"post_recv", "peer", "address", "capacity">::Method(&PythonEngine::PostRecv), py::arg("peer"), py::arg("address"),
           py::arg("capacity"),
           "Two-sided: posts `capacity` bytes at `address` (in a local region) for the\n"
           "peer's next send; receives fill in posting order. Request.bytes is the\n"
           "received length. A longer message is dropped: the receive fails with\n"
           "INVALID_ARGUMENT naming both lengths, nothing is written, the next message\n"
           "fills the next receive, and the sender is not told (its send succeeds).")
      .def("send",
           Checked<"send", "peer", "address", "length", "timeout">::Method(&PythonEngine::Send), py::arg("peer"), py::arg("address"), py::arg("length"),
           py::arg("timeout") = 10.0,
           "post_send() and wait up to `timeout` seconds (float); returns the bytes\n"
           "sent (int): they left this process, which says nothing of whether the\n"
           "peer's receive could hold them (see post_recv). On TIMEOUT the peer is\n"
           "disconnected, as write() does. GIL released.")
      .def("recv",
           Checked<"recv", "peer", "address", "capacity", "timeout">::Method(&PythonEngine::Recv), py::arg("peer"), py::arg("address"), py::arg("capacity"),
           py::arg("timeout") = 10.0,
           "post_recv() and wait up to `timeout` seconds (float); returns the received\n"
           "length in bytes (int). On TIMEOUT the peer is disconnected: a posted\n"
           "receive cannot be withdrawn, and would otherwise take a later message. GIL\n"
           "released.");
}

}  // namespace xfer::python
