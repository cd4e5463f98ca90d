#include "report/registration_json.h"

#include <chrono>

namespace xfer::report {

nlohmann::json RegistrationJson(const bench::RegistrationTiming& timing) {
  const double gib =
      static_cast<double>(timing.bytes) / static_cast<double>(uint64_t{1} << 30);
  auto per_gib = [gib](double seconds) { return gib > 0 ? seconds / gib : 0.0; };
  nlohmann::json out{{"memory", MemoryKindName(timing.kind)},
                     {"bytes", timing.bytes},
                     {"register_s", timing.register_s},
                     {"register_s_per_GiB", per_gib(timing.register_s)}};
  if (timing.deregister_s >= 0) {
    out["deregister_s"] = timing.deregister_s;
    out["deregister_s_per_GiB"] = per_gib(timing.deregister_s);
  }
  if (timing.nic.bytes > 0) out["nic"] = NicRegistrationJson(timing.nic);
  return out;
}

nlohmann::json NicRegistrationJson(const DeviceRegistration& registration) {
  const double gib =
      static_cast<double>(registration.bytes) / static_cast<double>(uint64_t{1} << 30);
  const double seconds = std::chrono::duration<double>(registration.duration).count();
  return {{"bytes", registration.bytes},
          {"memory_registrations", registration.memory_registrations},
          {"register_s", seconds},
          {"register_s_per_GiB", gib > 0 ? seconds / gib : 0.0}};
}

}  // namespace xfer::report
