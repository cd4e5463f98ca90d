#!/usr/bin/env python3
"""Writes the *.golden files of tests/report from perftest's own printf
formats (perftest_parameters.h of 4.5-0.17), independently of the C++ code
under test. Python's %-formatting follows C printf (length modifiers such as
'l' are accepted and ignored), so these are the bytes ib_*_bw would print.
The inputs mirror the ones in perftest_table_test.cc; keep them in sync.

The verbs_*.golden headers follow ctx_print_test_info and
ctx_print_pingpong_data of 4.5-0.17; their address lines go through the C
library's snprintf (ctypes), because Python's "%#04x" prints 0 as "0x00"
where C prints "0000".

Usage: python3 make_golden.py   (writes next to this script)
"""
import ctypes
import os

RESULT_LINE = "-" * 87 + "\n"
REPORT_FMT = " %-7lu    %-10lu       %-7.2lf            %-7.2lf\t\t   %-7.6lf"
REPORT_FMT_EXT = " %-7lu    %lu           %-7.6lf            %-7.6lf            %-7.6lf"
RESULT_FMT = " #bytes     #iterations    BW peak[%s]    BW average[%s]   MsgRate[Mpps]"
RESULT_FMT_LAT = (" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]"
                  "    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   "
                  "99.9% percentile[usec] ")
REPORT_FMT_LAT = (" %-7lu %d          %-7.2f        %-7.2f      %-7.2f  \t       "
                  "%-7.2f     \t%-7.2f\t\t%-7.2f \t\t%-7.2f")
RESULT_FMT_LAT_DUR = " #bytes        #iterations       t_avg[usec]    tps average"
REPORT_FMT_LAT_DUR = " %-7lu       %d            %-7.2f        %-7.2f"
BANNER = ("\n************************************\n"
          "* Waiting for client to connect... *\n"
          "************************************\n")
WARNING = " WARNING: BW peak won't be measured in this run.\n"

# ib_write_bw -a --report_gbits -n 1000 -q 4 (../shared/seeds/000_*.txt):
# size, BW peak [Gb/s], BW average [Gb/s], MsgRate [Mpps]; 4000 iterations.
SEED_ROWS = [
    (2, 0.033927, 0.033892, 2.118248), (4, 0.070985, 0.070915, 2.216091),
    (8, 0.14, 0.14, 2.234199), (16, 0.29, 0.29, 2.234982),
    (32, 0.57, 0.57, 2.209364), (64, 1.12, 1.12, 2.188613),
    (128, 2.25, 2.25, 2.200081), (256, 4.38, 4.37, 2.134911),
    (512, 9.18, 9.18, 2.240921), (1024, 17.72, 17.71, 2.162261),
    (2048, 35.40, 35.39, 2.160306), (4096, 64.66, 64.64, 1.972775),
    (8192, 84.32, 84.29, 1.286178), (16384, 90.10, 90.09, 0.687295),
    (32768, 91.44, 91.43, 0.348786), (65536, 91.89, 91.89, 0.175265),
    (131072, 92.11, 92.11, 0.087845), (262144, 92.17, 92.16, 0.043948),
    (524288, 92.20, 92.20, 0.021983), (1048576, 92.21, 92.21, 0.010992),
    (2097152, 92.25, 92.25, 0.005499), (4194304, 92.24, 92.24, 0.002749),
    (8388608, 92.29, 92.29, 0.001375),
]
SEED_ITERS = 4000
GBPS = 125e6       # bytes/s per Gb/s
MIB = 1048576.0    # bytes per MiB

LAT_ROWS = [  # size, iters, t_min, t_max, typical, avg, stdev, 99%, 99.9%
    (2, 1000, 6.64, 725.77, 7.92, 10.23, 24.62, 25.91, 725.77),
    (4, 1000, 1.05, 3.2, 1.1, 1.125, 0.41, 1.5, 3.2),  # sub-us jitter: not 0.00
    (8388608, 1000, 712.345, 1024.5, 800.125, 801.0, 12.0, 1000.0, 1024.5),
]
LAT_DUR_ROWS = [(2, 62078352, 2.42, 413812.77), (64, 151456, 99.03, 5048.78)]


def header(title, fields):
    out = RESULT_LINE + " " * 20 + title + "\n"
    for label, value in fields:
        out += " %-16s: %s\n" % (label, value)
    return out + RESULT_LINE


# ---- RDMA verbs header (perftest 4.5-0.17 ctx_print_test_info) ----------

LIBC = ctypes.CDLL(None)
BASIC_ADDR_FMT = " %s address: LID %#04x QPN %#06x PSN %#06x"
READ_FMT = " OUT %#04x"
RDMA_FMT = " RKey %#08x VAddr %#016llx"
PERF_GID_FMT = " %s: " + ":".join(["%02d"] * 16) + "\n"


def c_printf(fmt, *args):
    """C's snprintf: str -> char*, int -> unsigned long long if wide."""
    buf = ctypes.create_string_buffer(512)
    conv = []
    for a in args:
        if isinstance(a, str):
            conv.append(a.encode())
        elif a > 0xFFFFFFFF:
            conv.append(ctypes.c_ulonglong(a))
        else:
            conv.append(ctypes.c_uint(a))
    LIBC.snprintf(buf, len(buf), fmt.encode(), *conv)
    return buf.value.decode()


def pingpong(side, qp, verb):
    """ctx_print_pingpong_data: verb 1 = WRITE, 2 = READ (falls through)."""
    out = c_printf(BASIC_ADDR_FMT, side, qp["lid"], qp["qpn"], qp["psn"])
    if verb == 2:
        out += c_printf(READ_FMT, qp["out"])
    if verb in (1, 2):
        out += c_printf(RDMA_FMT, qp["rkey"], qp["vaddr"])
    out += "\n"
    if "gid" in qp:
        out += PERF_GID_FMT % (("GID",) + tuple(qp["gid"]))
    return out


def verbs_header(title, v):
    out = RESULT_LINE + " " * 20 + title + "\n"
    out += " Dual-port       : %s\t\t" % "OFF"
    out += "Device         : %s\n" % v["device"]
    out += " Number of qps   : %d\t\t" % v["qps"]
    out += "Transport type : %s\n" % v["transport_type"]
    out += " Connection type : %s\t\t" % v["connection"]
    out += "Using SRQ      : %s\n" % "OFF"
    out += " PCIe relax order: %s\n" % "OFF"
    out += " ibv_wr* API     : %s\n" % "OFF"
    if "tx_depth" in v:
        out += " TX depth        : %d\n" % v["tx_depth"]
    if "cq_mod" in v:
        out += " CQ Moderation   : %d\n" % v["cq_mod"]
    out += " Mtu             : %lu[B]\n" % v["mtu"]
    out += " Link type       : %s\n" % v["link"]
    if v["gid_index"] != -1:
        out += " GID index       : %d\n" % v["gid_index"]
    if v["verb"] == 2:
        out += " Outstand reads  : %d\n" % v["out_reads"]
    else:
        out += " Max inline data : %d[B]\n" % v["inline"]
    out += " rdma_cm QPs\t : %s\n" % "OFF"
    out += " Data ex. method : %s" % "Ethernet"
    out += "\n" + RESULT_LINE
    for qp in v["local"]:
        out += pingpong("local", qp, v["verb"])
    for qp in v["remote"]:
        out += pingpong("remote", qp, v["verb"])
    return out + RESULT_LINE


# Mirrors the RunInfo values in verbs_header_test.cc; keep them in sync.
GID_LOCAL = [0] * 10 + [255, 255, 10, 0, 0, 5]
GID_REMOTE = [0] * 10 + [255, 255, 10, 0, 0, 4]
VERBS_WRITE_BW = dict(
    verb=1, device="rxe0", qps=2, transport_type="IB", connection="RC",
    tx_depth=128, cq_mod=100, mtu=1024, link="Ethernet", gid_index=1,
    inline=0,
    local=[dict(lid=0, qpn=0x11, psn=0x6B1A2C, rkey=0x123D,
                vaddr=0x7F3A5C000000, gid=GID_LOCAL),
           dict(lid=0, qpn=0x12, psn=0x1B2C3D, rkey=0x123D,
                vaddr=0x7F3A5C010000, gid=GID_LOCAL)],
    remote=[dict(lid=0, qpn=0x21, psn=0xA0B0C, rkey=0x4567,
                 vaddr=0x7FBB4C981000, gid=GID_REMOTE),
            dict(lid=0, qpn=0x22, psn=0, rkey=0x4567,
                 vaddr=0x7FBB4C991000, gid=GID_REMOTE)])
VERBS_READ_BW = dict(
    verb=2, device="mlx5_0", qps=1, transport_type="IB", connection="RC",
    tx_depth=128, cq_mod=100, mtu=4096, link="IB", gid_index=-1,
    out_reads=16,
    local=[dict(lid=1, qpn=0x108, psn=0x63AD7D, out=16, rkey=0x17EEDF,
                vaddr=0x7F760C947000)],
    remote=[dict(lid=2, qpn=0x76, psn=0xF3810C, out=16, rkey=0x201600,
                 vaddr=0x7FBB4C981000)])
VERBS_SEND_LAT = dict(
    verb=0, device="mlx5_1", qps=1, transport_type="IB", connection="UD",
    tx_depth=1, mtu=2048, link="IB", gid_index=-1, inline=236,
    local=[dict(lid=0x1A, qpn=0x3F1, psn=0x12)],
    remote=[dict(lid=0x1B, qpn=0x3F2, psn=0xABCDEF)])


def bw_table(divisor, unit, gbps):
    out = RESULT_FMT % (unit, unit) + "\n"
    for size, peak, avg, mpps in SEED_ROWS:
        peak_units = peak * GBPS / divisor
        avg_units = avg * GBPS / divisor
        fmt = REPORT_FMT_EXT if gbps and avg_units < 0.1 else REPORT_FMT
        out += fmt % (size, SEED_ITERS, peak_units, avg_units, mpps) + "\n"
    return out + RESULT_LINE


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    files = {
        "bw_header_write_shm.golden": header("RDMA_Write BW Test", [
            ("Transport", "shm"), ("Number of qps", 1), ("TX depth", 128),
            ("CQ Moderation", 100)]),
        "bw_table_gbps.golden": bw_table(GBPS, "Gb/sec", True),
        "bw_table_mib.golden": bw_table(MIB, "MiB/sec", False),
        "send_bw_server.golden": WARNING + BANNER + header("Send BW Test", [
            ("Transport", "tcp"), ("Number of qps", 2), ("RX depth", 512),
            ("CQ Moderation", 1)]),
        "lat_write_shm.golden": header("RDMA_Write Latency Test", [
            ("Transport", "shm"), ("Number of qps", 1), ("TX depth", 1)])
            + RESULT_FMT_LAT + "\n"
            + "".join(REPORT_FMT_LAT % row + "\n" for row in LAT_ROWS)
            + RESULT_LINE,
        "lat_duration_table.golden": RESULT_FMT_LAT_DUR + "\n"
            + "".join(REPORT_FMT_LAT_DUR % row + "\n" for row in LAT_DUR_ROWS)
            + RESULT_LINE,
        "verbs_write_bw.golden": verbs_header("RDMA_Write BW Test",
                                              VERBS_WRITE_BW),
        "verbs_read_bw.golden": verbs_header("RDMA_Read BW Test",
                                             VERBS_READ_BW),
        "verbs_send_lat.golden": verbs_header("Send Latency Test",
                                              VERBS_SEND_LAT),
    }
    for name, text in files.items():
        with open(os.path.join(here, name), "w", newline="") as f:
            f.write(text)


if __name__ == "__main__":
    main()
