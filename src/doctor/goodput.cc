#include "doctor/goodput.h"

#include <cmath>

namespace xfer::doctor {
namespace {

struct PcieGen {
  double gigatransfers_per_s;
  int generation;
  double lane_data_gbps;
};

constexpr double k128b130b = 128.0 / 130.0;

constexpr PcieGen kPcieGens[] = {
    {2.5, 1, 2.0},
    {5.0, 2, 4.0},
    {8.0, 3, 8.0 * k128b130b},
    {16.0, 4, 16.0 * k128b130b},
    {32.0, 5, 32.0 * k128b130b},
    {64.0, 6, 64.0},
};

const PcieGen* FindGen(double gigatransfers_per_s) {
  for (const PcieGen& gen : kPcieGens) {
    if (std::fabs(gen.gigatransfers_per_s - gigatransfers_per_s) < 0.01) return &gen;
  }
  return nullptr;
}

}  // namespace

std::optional<int> PcieGeneration(double gigatransfers_per_s) {
  const PcieGen* gen = FindGen(gigatransfers_per_s);
  return gen ? std::optional<int>(gen->generation) : std::nullopt;
}

std::optional<double> PcieLaneDataGbps(double gigatransfers_per_s) {
  const PcieGen* gen = FindGen(gigatransfers_per_s);
  return gen ? std::optional<double>(gen->lane_data_gbps) : std::nullopt;
}

double TlpEfficiency(int generation, int max_payload_bytes) {
  const double overhead = generation <= 2 ? 24.0 : 26.0;
  const double mps = max_payload_bytes;
  return 4.0 * mps / (4.0 * (mps + overhead) + 16.0);
}

std::optional<double> PcieGoodputBytesPerSec(double gigatransfers_per_s, int width,
                                             int max_payload_bytes) {
  const PcieGen* gen = FindGen(gigatransfers_per_s);
  if (gen == nullptr || width < 1) return std::nullopt;
  return gen->lane_data_gbps * 1e9 / 8.0 * width * TlpEfficiency(gen->generation, max_payload_bytes);
}

int RocePacketOverheadBytes(topology::RoceEncapsulation encapsulation, bool vlan) {
  // wire 20 (preamble+SFD 8, IFG 12) + Ethernet 14 + FCS 4 + BTH 12 + ICRC 4 = 54,
  // plus the network header: IPv4 20 + UDP 8, IPv6 40 + UDP 8, or a GRH 40.
  constexpr int kCommon = 54;
  int network = 28;
  if (encapsulation == topology::RoceEncapsulation::kV2Ipv6) network = 48;
  if (encapsulation == topology::RoceEncapsulation::kV1) network = 40;
  return kCommon + network + (vlan ? 4 : 0);
}

std::string_view RoceEncapsulationName(topology::RoceEncapsulation encapsulation) {
  switch (encapsulation) {
    case topology::RoceEncapsulation::kV2Ipv4: return "RoCEv2/IPv4";
    case topology::RoceEncapsulation::kV2Ipv6: return "RoCEv2/IPv6";
    case topology::RoceEncapsulation::kV1: return "RoCEv1";
  }
  return "RoCE";
}

double PacketEfficiency(int payload_bytes, int overhead_bytes) {
  return static_cast<double>(payload_bytes) / static_cast<double>(payload_bytes + overhead_bytes);
}

std::optional<int> RoceActiveMtu(int64_t netdev_mtu, bool soft_roce) {
  const int64_t room = netdev_mtu - (soft_roce ? 80 : 96);
  for (int mtu = 4096; mtu >= 256; mtu /= 2) {
    if (room >= mtu) return mtu;
  }
  return std::nullopt;
}

std::optional<double> IbLaneDataGbps(std::string_view speed_name) {
  struct Speed {
    std::string_view name;
    double lane_data_gbps;
  };
  static constexpr Speed kSpeeds[] = {
      {"SDR", 2.0},   {"DDR", 4.0},   {"QDR", 8.0},    {"FDR10", 10.0},
      {"FDR", 14.0625 * 64.0 / 66.0}, {"EDR", 25.0},   {"HDR", 50.0},
      {"NDR", 100.0}, {"XDR", 200.0},
  };
  for (const Speed& speed : kSpeeds) {
    if (speed.name == speed_name) return speed.lane_data_gbps;
  }
  return std::nullopt;
}

int IbPacketOverheadBytes(bool unreliable_datagram, bool grh) {
  return 26 + (unreliable_datagram ? 8 : 0) + (grh ? 40 : 0);
}

}  // namespace xfer::doctor
