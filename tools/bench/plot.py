"""Plots for `make bench`. In the research's style, end-to-end latency of every CPM over its index in
the recording, one figure per speed factor, one series per system; and for the many-intersections
runs, p95 latency and CPU per object update over the number of intersections N, one line per system.

    python plot.py <results folder>     (reads frames-<system>-<factor>x.csv and run-*.json, writes
                                         latency-<factor>x.png and intersections.png)
"""

import csv
import json
import re
import sys
from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402

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


def load_intersections(results: Path):
    """{system: [(N, p95 ms or None, CPU ms per object update)]} of the runs with N RSUs, by N."""
    systems = defaultdict(list)
    for path in sorted(results.glob("run-*.json")):
        run = json.loads(path.read_text())
        if run.get("rsus") is None:
            continue
        p95 = (run.get("end_to_end") or {}).get("p95_ms")
        systems[run["system"]].append((run["rsus"], p95, run["cpu_ms_per_object_update"]))
    return {system: sorted(points) for system, points in systems.items()}


def plot_intersections(results: Path) -> Path | None:
    systems = load_intersections(results)
    if not systems:
        return None
    fig, (latency, cpu) = plt.subplots(1, 2, figsize=(11, 4.2), dpi=110)
    for system, points in systems.items():
        ns = [n for n, _, _ in points]
        latency.plot(ns, [p95 if p95 is not None else float("nan") for _, p95, _ in points], marker="o", label=system)
        cpu.plot(ns, [c for _, _, c in points], marker="o", label=system)
    latency.set_yscale("log")
    latency.set_ylabel("end-to-end p95, ms (log)")
    latency.axhline(500, color="grey", linestyle="--", linewidth=0.8)
    latency.text(0.01, 500, " 500 ms requirement", va="bottom", fontsize=8, color="grey", transform=latency.get_yaxis_transform())
    latency.axhline(100, color="tab:red", linestyle=":", linewidth=0.8)
    latency.text(0.01, 100, " 100 ms target", va="bottom", fontsize=8, color="tab:red", transform=latency.get_yaxis_transform())
    cpu.set_ylabel("CPU ms per object update")
    cpu.set_ylim(bottom=0)
    for ax in (latency, cpu):
        ax.set_xscale("log", base=2)
        ax.set_xticks(sorted({n for points in systems.values() for n, _, _ in points}))
        ax.get_xaxis().set_major_formatter(matplotlib.ticker.ScalarFormatter())
        ax.set_xlabel("intersections N (RSUs at once)")
        ax.grid(True, which="both", linewidth=0.3)
        ax.legend(loc="upper left", fontsize=8)
    fig.suptitle("Many intersections: one recording at 1x as N RSUs, each its own station and intersection")
    fig.tight_layout()
    out = results / "intersections.png"
    fig.savefig(out)
    plt.close(fig)
    return out


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
    intersections = plot_intersections(results)
    if intersections:
        written.append(intersections)
    return written


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    for path in plot(Path(sys.argv[1])):
        print(f"plot {path}")
