"""tests/gpu/ratios.py on a matrix document written here: the GPU check's
ratios are computed and judged correctly before a GPU host ever runs them."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ratios  # noqa: E402

M = 1024 * 1024
K = 1024


def cell(transport, direction, block, median, status="ok"):
    return {"transport": transport, "direction": direction, "block_size": block,
            "status": status, "median_gbps": median if status == "ok" else None}


def anchor(copy, block, median):
    return {"copy": copy, "block_size": block, "status": "ok", "median_gbps": median}


DOC = {
    "cells": [
        cell("shm", "H2rD", 2 * M, 47.0),      # 47 / 52 = 0.90: met
        cell("shm", "D2rH", 2 * M, 12.0),      # no D2H anchor to judge it by
        cell("shm", "H2rD", 64 * K, 20.0),     # 20 / 40 = 0.50: missed by 0.20
        cell("shm", "D2rD", 8 * M, 612.0),     # 612 / 1128 = 0.54: missed by 0.36
        cell("shm", "D2rD", 16 * K, 0.0, status="failed"),
        cell("tcp", "D2rD", 2 * M, 5.0),       # 5.0 / 3.9 > 0.95: met
        cell("tcp", "H2rH", 2 * M, 3.9),
    ],
    "anchors": {"device": 0, "cells": [
        anchor("H2D", 2 * M, 52.0), anchor("H2D", 64 * K, 40.0), anchor("D2D", 8 * M, 1128.0),
        anchor("D2D", 16 * K, 4.2)]},
}


class RatiosTest(unittest.TestCase):
    def rows(self):
        return {row["cell"]: row for row in ratios.ratios(DOC)}

    def test_every_goal_has_a_row(self):
        self.assertEqual(len(ratios.ratios(DOC)), 4 + 4 + 8 + 6)

    def test_met_and_missed_goals_with_the_gap(self):
        rows = self.rows()
        self.assertTrue(rows["shm H2rD 2M"]["met"])
        self.assertAlmostEqual(rows["shm H2rD 64K"]["ratio"], 0.5)
        self.assertFalse(rows["shm H2rD 64K"]["met"])
        self.assertIn("NOT MET by 0.20", ratios.render(rows["shm H2rD 64K"]))
        self.assertIn("ratio 0.54, goal >= 0.90, NOT MET by 0.36", ratios.render(rows["shm D2rD 8M"]))
        self.assertTrue(rows["tcp D2rD 2M"]["met"])
        self.assertEqual(rows["tcp D2rD 2M"]["reference"], "tcp H2rH")

    def test_cells_or_references_not_measured_say_so(self):
        rows = self.rows()
        self.assertIsNone(rows["shm D2rD 16K"]["ratio"])  # the cell failed
        self.assertEqual(ratios.render(rows["shm D2rD 16K"]),
                         "shm D2rD 16K     against local D2D: not measured (shm D2rD 16K)")
        self.assertIn("not measured (local D2H)", ratios.render(rows["shm D2rH 2M"]))


if __name__ == "__main__":
    unittest.main()
