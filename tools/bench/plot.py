"""Latency-over-time plots for `make bench`, in the research's style: end-to-end latency of every
CPM over its index in the recording, one figure per speed factor, one series per system.

    python plot.py <results folder>     (reads frames-<system>-<factor>x.csv, writes latency-<factor>x.png)
"""

import csv
import re
import sys
from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402

FRAMES = re.compile(r"^frames-(?P<system>.+)-(?P<factor>[0-9.]+)x\.csv$")


def load(results: Path):
    """{factor: {system: [(index, end_to_end_ms)]}} in the order the systems ran."""
    runs = defaultdict(dict)
    for path in sorted(results.glob("frames-*.csv"), key=lambda p: p.stat().st_mtime):
        m = FRAMES.match(path.name)
        if not m:
            continue
        with path.open() as f:
            points = [
                (int(row["index"]), int(row["end_to_end_us"]) / 1000.0)
                for row in csv.DictReader(f)
                if row["end_to_end_us"]
            ]
        runs[m["factor"]][m["system"]] = sorted(points)
    return runs


def plot(results: Path) -> list[Path]:
    written = []
    for factor, systems in sorted(load(results).items(), key=lambda kv: float(kv[0])):
        fig, ax = plt.subplots(figsize=(10, 4.5), dpi=110)
        for system, points in systems.items():
            if not points:
                continue
            xs, ys = zip(*points)
            ax.plot(xs, ys, linewidth=0.6, marker=".", markersize=1.5, label=f"{system} ({len(points)} CPMs)")
        ax.set_yscale("log")
        ax.set_xlabel("CPM index in the recording")
        ax.set_ylabel("end-to-end latency, ms (log)")
        ax.set_title(f"Replay at {factor}x: MQTT publish → DENM sender out, all seven stages")
        ax.axhline(500, color="grey", linestyle="--", linewidth=0.8)
        ax.text(0, 500, " 500 ms requirement", va="bottom", fontsize=8, color="grey")
        ax.grid(True, which="both", linewidth=0.3)
        ax.legend(loc="upper left", fontsize=8)
        fig.tight_layout()
        out = results / f"latency-{factor}x.png"
        fig.savefig(out)
        plt.close(fig)
        written.append(out)
    return written


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    for path in plot(Path(sys.argv[1])):
        print(f"plot {path}")
