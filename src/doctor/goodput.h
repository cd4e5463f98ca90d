// Goodput formulas (../shared/reference/doctor.md §2). Pure functions of
// their arguments; every rate here is in bit/s (Gb/s = 10^9 bit/s) or byte/s
// as its name says.
#ifndef XFER_DOCTOR_GOODPUT_H_
#define XFER_DOCTOR_GOODPUT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "topology/rdma_port.h"

namespace xfer::doctor {

// --- PCIe (§2.1, §2.2) ---

// The PCIe generation (1..6) for a link speed in GT/s (2.5, 5, 8, 16, 32,
// 64); nullopt for any other speed.
std::optional<int> PcieGeneration(double gigatransfers_per_s);

// Data rate per lane and direction after line encoding, Gb/s: 2.0, 4.0,
// 7.877, 15.754, 31.508, 64 (Gen6 FLIT, raw). nullopt for an unknown speed.
std::optional<double> PcieLaneDataGbps(double gigatransfers_per_s);

// TLP/DLLP efficiency eff(MPS) = 4·MPS / (4·(MPS + overhead) + 16), overhead
// 24 B on Gen1/2 and 26 B on Gen3+ (UCX's model, no ECRC).
double TlpEfficiency(int generation, int max_payload_bytes);

// Goodput of a link, bytes/s: lane data rate × width × eff(MPS). nullopt for
// an unknown speed or a width < 1.
std::optional<double> PcieGoodputBytesPerSec(double gigatransfers_per_s, int width,
                                             int max_payload_bytes);

// --- RoCE (§2.3) ---

// Bytes per packet outside the payload, wire included: RoCEv2/IPv4 82,
// RoCEv2/IPv6 102, RoCEv1 94; +4 with an 802.1Q tag.
int RocePacketOverheadBytes(topology::RoceEncapsulation encapsulation, bool vlan = false);
std::string_view RoceEncapsulationName(topology::RoceEncapsulation encapsulation);

// eff(P) = P / (P + overhead).
double PacketEfficiency(int payload_bytes, int overhead_bytes);

// The active RoCE MTU (256..4096) a netdev MTU allows: the largest IB MTU
// <= netdev MTU − 96 on hardware (iboe_get_mtu), − 80 on rxe
// (RXE_MAX_HDR_LENGTH); nullopt below 256.
std::optional<int> RoceActiveMtu(int64_t netdev_mtu, bool soft_roce);

// --- InfiniBand (§2.4) ---

// Data rate of one lane, Gb/s, for a speed name as the port's rate file
// writes it: SDR 2, DDR 4, QDR 8 (8b/10b), FDR10 10, FDR 13.636, EDR 25
// (64b/66b), HDR 50, NDR 100, XDR 200 (about nominal). nullopt otherwise.
std::optional<double> IbLaneDataGbps(std::string_view speed_name);

// Per-packet overhead on native IB: RC (and UC) 26 B, UD 34 B; +40 with a
// GRH.
int IbPacketOverheadBytes(bool unreliable_datagram, bool grh = false);

}  // namespace xfer::doctor

#endif  // XFER_DOCTOR_GOODPUT_H_
