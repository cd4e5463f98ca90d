// perftest-format text output (../shared/reference/perftest.md §3.1): the
// header block, the BW and latency tables, and the fixed banners. Every
// function returns the exact bytes to print, each line ending in '\n', so
// golden-file tests can lock the format. Stateless and thread-safe.
//
// Deliberate differences from ib_*_bw 4.5-0.17 (Debian 12):
//   * The default BW unit is labelled "MiB/sec", as perftest >= 24.07 does;
//     4.5 prints "MB/sec" for the same 2^20-byte unit.
//   * On the engine's transports (shm, tcp) the header names the xfer
//     transport (" Transport       : shm") and leaves out the verbs-only
//     lines (Dual-port, Device, Transport type, Using SRQ, PCIe relax order,
//     ibv_wr* API, Mtu, Link type, GID index, Max inline data, Outstand
//     reads, rdma_cm QPs, Data ex. method). RDMA verbs runs (TestInfo::verbs
//     set) print 4.5's own verbs block instead, QP addresses included.
// Rows use 4.5's exact printf formats (REPORT_FMT with 3 spaces before the
// message rate, REPORT_FMT_EXT, REPORT_FMT_LAT, REPORT_FMT_LAT_DUR).
#ifndef XFER_REPORT_PERFTEST_TABLE_H_
#define XFER_REPORT_PERFTEST_TABLE_H_

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "bench/model/bench_params.h"
#include "bench/model/results.h"
#include "report/run_header.h"

namespace xfer::report {

// How perftest's header and --out_json say a switch: "ON" or "OFF".
inline std::string_view OnOff(bool on) { return on ? "ON" : "OFF"; }

// perftest's RESULT_LINE: 87 '-' and a newline.
std::string ResultLine();

// " WARNING: BW peak won't be measured in this run.\n"
std::string PeakWarningLine();

// The server's banner, with perftest's leading empty line:
// "\n" + 36 '*' + "\n* Waiting for client to connect... *\n" + 36 '*' + "\n".
std::string ServerBanner();

// The header block from the opening to the closing RESULT_LINE: the title
// line (20 spaces + TestTitle()) and " %-16s: %s" rows for Transport,
// Number of qps, TX depth (ShowsTxDepth), Post List (post_list > 1), RX
// depth (ShowsRxDepth) and CQ Moderation (BW only), in perftest's order.
// There is no "Connection type" row: it names a verbs QP type, which the
// engine's transports do not have. When info.verbs is set, returns
// VerbsTestHeader(info).
std::string TestHeader(const TestInfo& info);

// "2 (10.0.1.1->10.0.1.2, 10.0.2.1->10.0.2.2)": the header's Rails field.
std::string RailEnds(std::span<const RailInfo> rails);
// " rails: 51% 10.0.1.1->10.0.1.2, 49% 10.0.2.1->10.0.2.2\n": each rail's
// share of the bytes its slices carried, as UCX_PROTO_INFO says a split.
std::string RailSplitLine(std::span<const RailInfo> rails);

// perftest 4.5's header for an RDMA verbs run (ctx_print_test_info, then
// ctx_print_pingpong_data per QP, then RESULT_LINE), every value from info
// and info.verbs:
//   RESULT_LINE, 20 spaces + TestTitle(),
//   " Dual-port       : OFF\t\tDevice         : <device>"
//   " Number of qps   : <qps>\t\tTransport type : <IB|IW>"
//   " Connection type : <RC|UC|UD>\t\tUsing SRQ      : OFF"
//   " PCIe relax order: <ON|OFF>", " ibv_wr* API     : <ON|OFF>",
//   TX depth / Post List / RX depth / CQ Moderation as TestHeader,
//   " Mtu             : <n>[B]", " Link type       : <Ethernet|IB>",
//   " GID index       : <n>" (gid_index != -1),
//   " Max inline data : <n>[B]" or " Outstand reads  : <n>" (shows_out_reads),
//   " rdma_cm QPs\t : OFF", " Data ex. method : Ethernet", RESULT_LINE,
//   QpAddressLines("local", ...) per local QP, then ("remote", ...) per
//   remote QP, RESULT_LINE.
// REQUIRES: info.verbs is set.
std::string VerbsTestHeader(const TestInfo& info);

// One QP's lines of ctx_print_pingpong_data: side ("local" or "remote"),
// " %s address: LID %#04x QPN %#06x PSN %#06x", then " OUT %#04x"
// (AddressShowsOutReads) and " RKey %#08x VAddr %#016llx"
// (AddressShowsRemoteKey), a newline, and " GID: " + GidText() + newline
// when address.gid is set. Numbers are formatted exactly as C's printf does
// (so 0 prints as "0000" with %#04x but 1 as "0x01").
std::string QpAddressLines(std::string_view side,
                           const bench::QpAddress& address, bench::Verb verb);

// The 16 GID bytes in decimal, "%02d" each, joined by ':'
// ("00:00:...:255:255:10:00:00:05"), as perftest prints them.
std::string GidText(const std::array<uint8_t, 16>& gid);

// bytes/s in the table's unit: MiB/s = bytes/s / 2^20; Gb/s = bytes/s /
// 125,000,000 (10^9 bit/s).
double ToReportUnits(double bytes_per_s, bench::BwUnits units);

// "MiB/sec" or "Gb/sec".
std::string_view BwUnitLabel(bench::BwUnits units);

// " #bytes     #iterations    BW peak[MiB/sec]    BW average[MiB/sec]
// MsgRate[Mpps]\n" (one line), or the [Gb/sec] variant.
std::string BwColumnHeader(bench::BwUnits units);

// One BW row: REPORT_FMT, or REPORT_FMT_EXT (6 decimals everywhere) when the
// unit is Gb/s and the average is below 0.1 Gb/s, exactly as perftest picks.
std::string BwRow(const bench::BwResult& result, bench::BwUnits units);

// BwColumnHeader + one BwRow per result + ResultLine.
std::string BwTable(std::span<const bench::BwResult> results,
                    bench::BwUnits units);

// RESULT_FMT_LAT (with its trailing space) and a newline.
std::string LatColumnHeader();

// perftest's -H/-U list (print_report_lat): "#, usec" ("#, cycles" with
// -C), then "i, value" per sample, 1-based, value as printf's %g.
std::string LatSampleLines(std::span<const double> samples, std::string_view units = "usec");

// One REPORT_FMT_LAT row; iterations is printed as perftest's iters.
std::string LatRow(const bench::LatResult& result);

// LatColumnHeader + one LatRow per result + ResultLine.
std::string LatTable(std::span<const bench::LatResult> results);

// " #bytes        #iterations       t_avg[usec]    tps average\n"
std::string LatDurationColumnHeader();

// One REPORT_FMT_LAT_DUR row.
std::string LatDurationRow(const bench::LatDurationResult& result);

// LatDurationColumnHeader + one LatDurationRow per result + ResultLine.
std::string LatDurationTable(std::span<const bench::LatDurationResult> results);

}  // namespace xfer::report

#endif  // XFER_REPORT_PERFTEST_TABLE_H_
