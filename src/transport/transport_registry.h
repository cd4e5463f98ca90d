// The transports built into this libxfer, by name.
#ifndef XFER_TRANSPORT_TRANSPORT_REGISTRY_H_
#define XFER_TRANSPORT_TRANSPORT_REGISTRY_H_

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "transport/option_table.h"
#include "transport/transport.h"
#include "xfer/engine.h"

namespace xfer::transport {

struct TransportEntry {
  std::string name;         // "shm", "tcp"
  std::string description;  // one line for --help and errors
  // The keys it takes in EngineOptions::transport_options[name]; static
  // storage.
  std::span<const OptionSpec> options;
  // Builds the transport with its settings (EngineOptions::
  // transport_options[name], empty when none were given), reading them
  // through an OptionReader over `options`. Errors: kInvalidArgument
  // naming the key.
  std::function<Result<std::unique_ptr<Transport>>(const TransportOptions&)> create;
};

// Not thread-safe to mutate; the engine fills it once at creation.
class TransportRegistry {
 public:
  void Add(TransportEntry entry);
  const TransportEntry* Find(std::string_view name) const;
  std::vector<std::string> Names() const;
  std::span<const TransportEntry> entries() const { return entries_; }

 private:
  std::vector<TransportEntry> entries_;
};

// Adds every transport this build contains (generated from CMake's list).
void RegisterBuiltinTransports(TransportRegistry& registry);

}  // namespace xfer::transport

#endif  // XFER_TRANSPORT_TRANSPORT_REGISTRY_H_
