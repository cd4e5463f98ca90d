"""The GPU check's ratios (issue 29, "Measured against the limits"): each
device cell of an `xfer matrix --json` file set beside the figure it is
judged by, with its goal. Local anchors are the initiator GPU's own copies
(H2D, D2H, D2D) at the same block size; tcp's device cells are judged by
tcp's host control, H2rH. GB/s = 10^9 B/s.

    python3 ratios.py MATRIX.json     prints one line per ratio

A ratio below its goal is reported, not failed: the goal is what the next
work aims at, and the note says by how much it was missed.
"""

import json
import sys

K = 1024
M = 1024 * 1024

# (transport, directions, (kind, name) of the reference, {block: goal})
GOALS = [
    ("shm", ("H2rD", "rH2D"), ("anchor", "H2D"), {64 * K: 0.7, 2 * M: 0.9}),
    ("shm", ("D2rH", "rD2H"), ("anchor", "D2H"), {64 * K: 0.7, 2 * M: 0.9}),
    ("shm", ("D2rD", "rD2D"), ("anchor", "D2D"), {16 * K: 0.5, 64 * K: 0.7, 2 * M: 0.9, 8 * M: 0.9}),
    ("tcp", ("H2rD", "rH2D", "D2rH", "rD2H", "D2rD", "rD2D"), ("cell", "H2rH"), {2 * M: 0.95}),
]


def label(block):
    return f"{block // M}M" if block % M == 0 else f"{block // K}K"


def ok_median(entry):
    if entry is None or entry.get("status") != "ok":
        return None
    return entry.get("median_gbps")


def ratios(doc):
    """One dict per (transport, direction, block) the goals name."""
    cells = {(c["transport"], c["direction"], c["block_size"]): c for c in doc.get("cells", [])}
    anchors = {(a["copy"], a["block_size"]): a
               for a in (doc.get("anchors") or {}).get("cells", [])}
    rows = []
    for transport, directions, (kind, reference), goals in GOALS:
        for direction in directions:
            for block, goal in sorted(goals.items()):
                value = ok_median(cells.get((transport, direction, block)))
                if kind == "anchor":
                    base = ok_median(anchors.get((reference, block)))
                    base_name = f"local {reference}"
                else:
                    base = ok_median(cells.get((transport, reference, block)))
                    base_name = f"{transport} {reference}"
                row = {"cell": f"{transport} {direction} {label(block)}", "value": value,
                       "reference": base_name, "reference_value": base, "goal": goal,
                       "ratio": None, "met": None}
                if value is not None and base:
                    row["ratio"] = value / base
                    row["met"] = row["ratio"] >= goal
                rows.append(row)
    return rows


def render(row):
    if row["value"] is None or not row["reference_value"]:
        missing = row["cell"] if row["value"] is None else row["reference"]
        return f"{row['cell']:<16} against {row['reference']}: not measured ({missing})"
    verdict = ("met" if row["met"]
               else f"NOT MET by {row['goal'] - row['ratio']:.2f}")
    return (f"{row['cell']:<16} {row['value']:9.3f} GB/s against {row['reference']} "
            f"{row['reference_value']:9.3f} GB/s: ratio {row['ratio']:.2f}, "
            f"goal >= {row['goal']:.2f}, {verdict}")


def main(argv):
    with open(argv[1], encoding="utf-8") as source:
        doc = json.load(source)
    rows = ratios(doc)
    for row in rows:
        print(render(row))
    met = sum(1 for row in rows if row["met"])
    print(f"{met} of {len(rows)} goals met")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
