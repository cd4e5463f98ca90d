#include "verbs/gid_selection.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace xfer::verbs {
namespace {

const GidEntry* FindGid(const PortInfo& port, int index) {
  for (const GidEntry& gid : port.gids) {
    if (gid.index == index && !gid.IsZero()) return &gid;
  }
  return nullptr;
}

std::string ValidIndices(const PortInfo& port) {
  std::vector<int> indices;
  for (const GidEntry& gid : port.gids) {
    if (!gid.IsZero()) indices.push_back(gid.index);
  }
  std::sort(indices.begin(), indices.end());
  if (indices.empty()) return "none";
  return fmt::format("{}", fmt::join(indices, ", "));
}

Result<std::optional<GidEntry>> RequestedGid(const std::string& device_name,
                                             const PortInfo& port, int index) {
  const std::string where =
      fmt::format("port {} of {}", port.number, device_name);
  if (port.gid_table_len <= 0) {
    return InvalidArgument(fmt::format("-x/--gid-index {}: {} has no GID table",
                                       index, where));
  }
  if (index < 0 || index >= port.gid_table_len) {
    return InvalidArgument(
        fmt::format("-x/--gid-index {}: {} has GID indices 0..{}", index,
                    where, port.gid_table_len - 1));
  }
  const GidEntry* gid = FindGid(port, index);
  if (gid == nullptr) {
    return InvalidArgument(fmt::format(
        "-x/--gid-index {}: GID {} on {} is empty (valid indices: {})", index,
        index, where, ValidIndices(port)));
  }
  return std::optional<GidEntry>(*gid);
}

}  // namespace

int GidScore(const GidEntry& entry, const GidPreference& preference) {
  int score = 0;
  const bool ipv4 = entry.IsIpv4Mapped();
  if (ipv4 && preference.local_ipv4.has_value() &&
      std::equal(preference.local_ipv4->begin(), preference.local_ipv4->end(),
                 entry.raw.begin() + 12)) {
    score += 1000;
  }
  if (ipv4 != preference.prefer_ipv6) score += 100;
  if (!entry.IsLinkLocal()) score += 10;
  if (entry.type == GidType::kRoceV2) score += 2;
  if (entry.type == GidType::kRoceV1) score += 1;
  return score;
}

Result<std::optional<GidEntry>> ChooseGid(const std::string& device_name,
                                          const PortInfo& port,
                                          std::optional<int> requested,
                                          const GidPreference& preference) {
  if (requested.has_value()) return RequestedGid(device_name, port, *requested);
  if (port.link_layer != LinkLayer::kEthernet) {
    return std::optional<GidEntry>();
  }
  const GidEntry* best = nullptr;
  int best_score = -1;
  for (const GidEntry& gid : port.gids) {
    if (gid.IsZero()) continue;
    const int score = GidScore(gid, preference);
    if (score > best_score || (score == best_score && gid.index < best->index)) {
      best = &gid;
      best_score = score;
    }
  }
  if (best == nullptr) {
    return FailedPrecondition(fmt::format(
        "port {} of {} (RoCE) has no usable GID: its GID table is empty (is "
        "the netdev up with an IP address?)",
        port.number, device_name));
  }
  return std::optional<GidEntry>(*best);
}

}  // namespace xfer::verbs
