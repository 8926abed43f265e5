#!/usr/bin/env python3
"""Plots of `cits evaluate --seeds 1-10 --sweep DIR`: recall, and the median lead, against
clearly false warnings per 10 minutes for every decision rule swept (the harm ratio along each
curve, one curve per `full_avoid_s`; risks warned on their first frame, `no_avoid_s` and the
information bar as chosen), the chosen rule marked; and the calibration of predicted route
probabilities (predicted against observed frequency per bin).
Usage: plot_warnings.py DIR [harm_ratio full_avoid_s [no_avoid_s info_min_probability]]"""
import csv
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main() -> None:
    folder = Path(sys.argv[1])
    chosen = (float(sys.argv[2]), float(sys.argv[3])) if len(sys.argv) > 3 else None
    no_avoid, info = (float(sys.argv[4]), float(sys.argv[5])) if len(sys.argv) > 5 else (0.5, 0.5)
    rows = [
        r
        for r in csv.DictReader(open(folder / "sweep.csv"))
        if r["frames"] == "1" and float(r["no_avoid_s"]) == no_avoid and float(r["info_min_probability"]) == info
    ]
    fig, (recall_ax, lead_ax) = plt.subplots(1, 2, figsize=(12, 5))
    for full in sorted({float(r["full_avoid_s"]) for r in rows}):
        curve = sorted((r for r in rows if float(r["full_avoid_s"]) == full), key=lambda r: float(r["harm_ratio"]))
        false = [float(r["clearly_false_per_10min"]) for r in curve]
        recall = [100.0 * float(r["warned"]) / max(float(r["conflicts"]), 1.0) for r in curve]
        lead = [float(r["lead_median_s"]) for r in curve]
        recall_ax.plot(false, recall, marker="o", label=f"full_avoid_s {full}")
        lead_ax.plot(false, lead, marker="o", label=f"full_avoid_s {full}")
        for r, x, y in zip(curve, false, recall):
            recall_ax.annotate(r["harm_ratio"], (x, y), fontsize=7, xytext=(3, -9), textcoords="offset points")
        if chosen:
            for r, x, y, z in zip(curve, false, recall, lead):
                if (float(r["harm_ratio"]), full) == chosen:
                    recall_ax.plot([x], [y], "k*", markersize=16, label="chosen")
                    lead_ax.plot([x], [z], "k*", markersize=16, label="chosen")
    recall_ax.set(xlabel="clearly false warnings / 10 min", ylabel="conflicts warned (%)",
                  title="recall (labels: harm ratio H/C)")
    lead_ax.set(xlabel="clearly false warnings / 10 min", ylabel="median lead (s)", title="lead time")
    for ax in (recall_ax, lead_ax):
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(folder / "sweep.png", dpi=110)

    bins = list(csv.DictReader(open(folder / "calibration.csv")))
    fig, ax = plt.subplots(figsize=(5, 5))
    mid = [(float(b["bin_low"]) + float(b["bin_high"])) / 2 for b in bins if int(b["routes"]) > 0]
    observed = [int(b["taken"]) / int(b["routes"]) for b in bins if int(b["routes"]) > 0]
    ax.plot([0, 1], [0, 1], "k--", alpha=0.4)
    ax.plot(mid, observed, marker="o")
    ax.set(xlabel="predicted route probability", ylabel="routes taken", title="route calibration")
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(folder / "calibration.png", dpi=110)


if __name__ == "__main__":
    main()
