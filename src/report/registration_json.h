// A RegistrationTiming as JSON, for every report that records one (the
// perftest tests' test_info.registration, the matrix's registration).
#ifndef XFER_REPORT_REGISTRATION_JSON_H_
#define XFER_REPORT_REGISTRATION_JSON_H_

#include <nlohmann/json.hpp>

#include "bench/model/registration_timing.h"
#include "xfer/device_registration.h"

namespace xfer::report {

// {"memory", "bytes", "register_s", "register_s_per_GiB", and, once
// deregistered, "deregister_s", "deregister_s_per_GiB"}; per GiB (2^30
// bytes) scaled from the region's size: small regions are dominated by
// fixed costs, which the bytes beside them show. Where the connection
// registered this side's memory with a NIC (verbs), "nic": {"bytes",
// "memory_registrations", "register_s", "register_s_per_GiB"}.
nlohmann::json RegistrationJson(const bench::RegistrationTiming& timing);

// {"bytes", "memory_registrations", "register_s", "register_s_per_GiB"}:
// what a connection registered with its NIC (PeerInfo::registration).
nlohmann::json NicRegistrationJson(const DeviceRegistration& registration);

}  // namespace xfer::report

#endif  // XFER_REPORT_REGISTRATION_JSON_H_
