#!/usr/bin/env python3
"""Plots of `cits evaluate --seeds 1-10 --sweep DIR`: recall against clearly false warnings per
10 minutes for every warning policy swept (one curve per maximum TTC), the chosen operating
point marked; and the calibration of predicted route probabilities (predicted against observed
frequency per bin). Usage: plot_warnings.py DIR [min_probability max_ttc_s]"""
import csv
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main() -> None:
    folder = Path(sys.argv[1])
    chosen = (float(sys.argv[2]), float(sys.argv[3])) if len(sys.argv) > 3 else None
    # The curve is the policy without persistence (a risk warned on its first frame).
    rows = [r for r in csv.DictReader(open(folder / "sweep.csv")) if r.get("frames", "1") == "1"]
    fig, ax = plt.subplots(figsize=(8, 5.5))
    for ttc in sorted({float(r["max_ttc_s"]) for r in rows}):
        line = sorted((r for r in rows if float(r["max_ttc_s"]) == ttc), key=lambda r: float(r["min_probability"]))
        x = [float(r["clearly_false_per_10min"]) for r in line]
        y = [100.0 * int(r["warned"]) / int(r["conflicts"]) for r in line]
        ax.plot(x, y, marker="o", markersize=3, label=f"TTC ≤ {ttc:g} s")
        if chosen and ttc == chosen[1]:
            for r, xi, yi in zip(line, x, y):
                if float(r["min_probability"]) == chosen[0]:
                    ax.plot([xi], [yi], "k*", markersize=16, label=f"operating point (p ≥ {chosen[0]:g}, TTC ≤ {ttc:g} s)")
    ax.axvline(1.0, color="grey", linestyle="--", linewidth=1)
    ax.axhline(100.0, color="grey", linestyle="--", linewidth=1)
    ax.text(1.1, 2, "target: ≤ 1 clearly false / 10 min", color="grey", fontsize=8)
    ax.set_xscale("symlog", linthresh=1.0)
    ax.set_xlim(left=0)
    ax.set_xlabel("clearly false warnings (true PET ≥ 3 s) per 10 min")
    ax.set_ylabel("recall of conflicts with true PET < 1.5 s (%)")
    ax.set_ylim(0, 105)
    ax.set_title("Warning policy sweep, simulator seeds 1–10 (points: min. probability 0.1 … 0.95)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(folder / "recall_vs_false_alarms.png", dpi=110)

    bins = list(csv.DictReader(open(folder / "calibration.csv")))
    fig, ax = plt.subplots(figsize=(6, 5.5))
    mids, observed, counts = [], [], []
    for b in bins:
        n = int(b["routes"])
        if n == 0:
            continue
        mids.append((float(b["bin_low"]) + float(b["bin_high"])) / 2)
        observed.append(int(b["taken"]) / n)
        counts.append(n)
    ax.plot([0, 1], [0, 1], color="grey", linestyle="--", label="perfect calibration")
    ax.plot(mids, observed, marker="o", label="predicted routes")
    for m, o, n in zip(mids, observed, counts):
        ax.annotate(f"{n}", (m, o), textcoords="offset points", xytext=(4, -10), fontsize=7)
    ax.set_xlabel("predicted route probability (bin centre)")
    ax.set_ylabel("share of those routes the road user took")
    ax.set_title("Route probability calibration, seeds 1–10\n(vehicles with ≥ 2 routes; labels: routes per bin)")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(folder / "route_calibration.png", dpi=110)


if __name__ == "__main__":
    main()
