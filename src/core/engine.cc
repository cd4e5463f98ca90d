// Engine::Create: validates options, instantiates the enabled transports and
// binds the listener. Plus the synchronous Transfer convenience.
#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "core/engine_impl.h"
#include "core/prepared_list.h"
#include "transport/transport_registry.h"
#include "xfer/engine.h"

namespace xfer {
namespace {

// Every entry of options.transport_options names a built-in transport, and
// that transport accepts its settings; those of a transport the engine
// leaves out are checked too, since a mistyped key is an error either way.
Status CheckTransportOptions(const EngineOptions& options,
                             const transport::TransportRegistry& registry) {
  const std::vector<std::string>& wanted = options.transports;
  for (const auto& [name, settings] : options.transport_options) {
    const auto* entry = registry.Find(name);
    if (entry == nullptr) {
      return InvalidArgument(fmt::format("options for unknown transport '{}' (this build has: {})",
                                         name, fmt::join(registry.Names(), ", ")));
    }
    // The enabled ones are checked when EnabledTransports creates them.
    if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), name) == wanted.end()) {
      auto checked = entry->create(settings);
      if (!checked.ok()) return checked.status();
    }
  }
  return Status::Ok();
}

Result<core::TransportList> EnabledTransports(const EngineOptions& options) {
  const std::vector<std::string>& wanted = options.transports;
  transport::TransportRegistry registry;
  transport::RegisterBuiltinTransports(registry);
  XFER_RETURN_IF_ERROR(CheckTransportOptions(options, registry));
  static const TransportOptions kNoOptions;
  auto settings_of = [&](std::string_view name) -> const TransportOptions& {
    auto it = options.transport_options.find(name);
    return it == options.transport_options.end() ? kNoOptions : it->second;
  };
  core::TransportList list;
  const std::vector<std::string> names = wanted.empty() ? registry.Names() : wanted;
  for (const auto& name : names) {
    const auto* entry = registry.Find(name);
    if (entry == nullptr) {
      return InvalidArgument(fmt::format("unknown transport '{}' (this build has: {})", name,
                                         fmt::join(registry.Names(), ", ")));
    }
    auto transport = entry->create(settings_of(name));
    if (!transport.ok()) return transport.status();
    list.push_back(std::move(transport.value()));
  }
  if (list.empty()) return InvalidArgument("no transport enabled");
  std::stable_sort(list.begin(), list.end(), [](const auto& a, const auto& b) {
    return a->capabilities().preference > b->capabilities().preference;
  });
  return list;
}

}  // namespace

std::vector<std::string> BuiltinTransports() {
  transport::TransportRegistry registry;
  transport::RegisterBuiltinTransports(registry);
  return registry.Names();
}

std::vector<TransportOptionInfo> BuiltinTransportOptions() {
  transport::TransportRegistry registry;
  transport::RegisterBuiltinTransports(registry);
  std::vector<TransportOptionInfo> options;
  for (const transport::TransportEntry& entry : registry.entries()) {
    for (const transport::OptionSpec& spec : entry.options) {
      options.push_back({.transport = entry.name,
                         .key = std::string(spec.key),
                         .integer = spec.integer,
                         .min = spec.min,
                         .max = spec.max,
                         .choices = {spec.choices.begin(), spec.choices.end()},
                         .default_text = std::string(spec.default_text),
                         .doc = std::string(spec.doc),
                         .flag = std::string(spec.flag)});
    }
  }
  return options;
}

Result<std::unique_ptr<Engine>> Engine::Create(const EngineOptions& options) {
  if (options.connect_timeout.count() <= 0 || options.io_timeout.count() <= 0) {
    return InvalidArgument("timeouts must be positive");
  }
  if (options.slice_timeout.count() < 0) {
    return InvalidArgument(fmt::format("EngineOptions::slice_timeout is {} ms; give 0 (half of "
                                       "io_timeout) or more",
                                       options.slice_timeout.count()));
  }
  if (options.rail_rejoin_backoff.count() < 0 ||
      (options.rail_rejoin_backoff.count() > 0 &&
       options.rail_rejoin_max_backoff < options.rail_rejoin_backoff)) {
    return InvalidArgument(fmt::format(
        "EngineOptions::rail_rejoin_backoff is {} ms and rail_rejoin_max_backoff {} ms; give 0 "
        "(failed rails stay down), or a first wait above 0 and a maximum no shorter",
        options.rail_rejoin_backoff.count(), options.rail_rejoin_max_backoff.count()));
  }
  std::optional<core::SharedSecret> secret;
  if (!options.secret.empty()) {
    auto created = core::SharedSecret::Create(options.secret);
    if (!created.ok()) return created.status().WithContext("EngineOptions::secret");
    secret.emplace(std::move(created.value()));
  }
  auto transports = EnabledTransports(options);
  if (!transports.ok()) return transports.status();
  std::unique_ptr<Listener> listener;
  if (!options.listen_address.empty()) {
    auto where = ParseHostPort(options.listen_address);
    if (!where.ok()) return where.status().WithContext("listen address");
    auto bound = Listener::Bind(*where);
    if (!bound.ok()) return bound.status();
    listener = std::make_unique<Listener>(std::move(bound.value()));
  }
  return std::unique_ptr<Engine>(
      new core::EngineImpl(options, std::move(secret), std::move(transports.value()),
                           std::move(listener)));
}

PeerId PreparedTransfers::peer() const { return list_ ? list_->peer() : 0; }

uint32_t PreparedTransfers::size() const {
  return list_ ? static_cast<uint32_t>(list_->entries().size()) : 0;
}

Status Engine::Transfer(PeerId peer, OpCode op, std::span<const TransferEntry> entries,
                        std::chrono::nanoseconds timeout) {
  TransferRequest request;
  XFER_RETURN_IF_ERROR(Submit(peer, op, entries, request));
  Status status = request.Wait(timeout);
  if (status.code() == StatusCode::kTimeout) {
    // The request object dies here, so the peer must not complete it later.
    (void)Disconnect(peer);
    return Timeout("transfer did not complete within the timeout; the peer was disconnected");
  }
  return status;
}

}  // namespace xfer
