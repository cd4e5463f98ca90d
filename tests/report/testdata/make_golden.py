#!/usr/bin/env python3
"""Writes the *.golden files of tests/report from perftest's own printf
formats (perftest_parameters.h of 4.5-0.17), independently of the C++ code
under test. Python's %-formatting follows C printf (length modifiers such as
'l' are accepted and ignored), so these are the bytes ib_*_bw would print.
The inputs mirror the ones in perftest_table_test.cc; keep them in sync.

Usage: python3 make_golden.py   (writes next to this script)
"""
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
    (4, 1000, 1.05, 3.2, 1.1, 1.125, 0.0, 1.5, 3.2),
    (8388608, 1000, 712.345, 1024.5, 800.125, 801.0, 12.0, 1000.0, 1024.5),
]
LAT_DUR_ROWS = [(2, 62078352, 2.42, 413812.77), (64, 151456, 99.03, 5048.78)]


def header(title, fields):
    out = RESULT_LINE + " " * 20 + title + "\n"
    for label, value in fields:
        out += " %-16s: %s\n" % (label, value)
    return out + RESULT_LINE


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
            ("Transport", "shm"), ("Number of qps", 1),
            ("Connection type", "RC"), ("TX depth", 128),
            ("CQ Moderation", 100)]),
        "bw_table_gbps.golden": bw_table(GBPS, "Gb/sec", True),
        "bw_table_mib.golden": bw_table(MIB, "MiB/sec", False),
        "send_bw_server.golden": WARNING + BANNER + header("Send BW Test", [
            ("Transport", "tcp"), ("Number of qps", 2),
            ("Connection type", "RC"), ("RX depth", 512),
            ("CQ Moderation", 1)]),
        "lat_write_shm.golden": header("RDMA_Write Latency Test", [
            ("Transport", "shm"), ("Number of qps", 1),
            ("Connection type", "RC"), ("TX depth", 1)])
            + RESULT_FMT_LAT + "\n"
            + "".join(REPORT_FMT_LAT % row + "\n" for row in LAT_ROWS)
            + RESULT_LINE,
        "lat_duration_table.golden": RESULT_FMT_LAT_DUR + "\n"
            + "".join(REPORT_FMT_LAT_DUR % row + "\n" for row in LAT_DUR_ROWS)
            + RESULT_LINE,
    }
    for name, text in files.items():
        with open(os.path.join(here, name), "w", newline="") as f:
            f.write(text)


if __name__ == "__main__":
    main()
