#include "transport/transport_registry.h"

#include <utility>

namespace xfer::transport {

void TransportRegistry::Add(TransportEntry entry) { entries_.push_back(std::move(entry)); }

const TransportEntry* TransportRegistry::Find(std::string_view name) const {
  for (const auto& entry : entries_) {
    if (entry.name == name) return &entry;
  }
  return nullptr;
}

std::vector<std::string> TransportRegistry::Names() const {
  std::vector<std::string> names;
  for (const auto& entry : entries_) names.push_back(entry.name);
  return names;
}

}  // namespace xfer::transport
