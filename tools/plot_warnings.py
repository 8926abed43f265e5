#!/usr/bin/env python3
"""Plots of `cits evaluate --seeds 1-10 --sweep DIR`: recall, and the median lead, against
clearly false warnings per 10 minutes for every warning policy swept (one curve per maximum TTC;
the lead also per early tier added to the chosen first tier), the chosen operating point
marked; and the calibration of predicted route probabilities (predicted against observed
frequency per bin).
Usage: plot_warnings.py DIR [min_probability max_ttc_s [early_min_probability early_max_ttc_s]]"""
import csv
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main() -> None:
    folder = Path(sys.argv[1])
    chosen = (float(sys.argv[2]), float(sys.argv[3])) if len(sys.argv) > 3 else None
    early = (float(sys.argv[4]), float(sys.argv[5])) if len(sys.argv) > 5 else None
    # Curves are policies without persistence (a risk warned on its first frame); one tier (the
    # early one the same as the first) or the chosen first tier with an early one.
    every = [r for r in csv.DictReader(open(folder / "sweep.csv")) if r["frames"] == "1"]
    one_tier = [
        r
        for r in every
        if (r["early_min_probability"], r["early_max_ttc_s"]) == (r["min_probability"], r["max_ttc_s"])
    ]
    two_tiers = [r for r in every if r not in one_tier]
    plot_recall(folder, one_tier, chosen, early, two_tiers)
    plot_lead(folder, one_tier, two_tiers, chosen, early)
    plot_calibration(folder)


def false_per_10min(r: dict) -> float:
    return float(r["clearly_false_per_10min"])


def recall_pct(r: dict) -> float:
    return 100.0 * int(r["warned"]) / int(r["conflicts"])


def lead_s(r: dict) -> float:
    return float(r["lead_median_s"])


def chosen_row(two_tiers: list, chosen, early):
    for r in two_tiers:
        if early and (float(r["early_min_probability"]), float(r["early_max_ttc_s"])) == early:
            if (float(r["min_probability"]), float(r["max_ttc_s"])) == chosen:
                return r
    return None


def policy_label(chosen, early) -> str:
    label = f"p ≥ {chosen[0]:g} to TTC {chosen[1]:g} s"
    return label + (f", p ≥ {early[0]:g} to {early[1]:g} s" if early else "")


def curve(ax, line: list, y, **style) -> None:
    """One policy curve: `y` of each row against its clearly false warnings."""
    ax.plot([false_per_10min(r) for r in line], [y(r) for r in line], **style)


def mark_operating_point(ax, row, y, chosen, early) -> None:
    if row:
        ax.plot([false_per_10min(row)], [y(row)], "k*", markersize=16, label=f"operating point ({policy_label(chosen, early)})")


def false_alarm_axis(ax) -> None:
    """The x axis both policy plots share, with the target of ≤ 1 clearly false per 10 min."""
    ax.axvline(1.0, color="grey", linestyle="--", linewidth=1)
    ax.set_xscale("symlog", linthresh=1.0)
    ax.set_xlim(left=0)
    ax.set_xlabel("clearly false warnings (true PET ≥ 3 s) per 10 min")


def plot_recall(folder: Path, rows: list, chosen, early, two_tiers: list) -> None:
    fig, ax = plt.subplots(figsize=(8, 5.5))
    for ttc in sorted({float(r["max_ttc_s"]) for r in rows}):
        line = sorted((r for r in rows if float(r["max_ttc_s"]) == ttc), key=lambda r: float(r["min_probability"]))
        curve(ax, line, recall_pct, marker="o", markersize=3, label=f"TTC ≤ {ttc:g} s")
        if chosen and not early and ttc == chosen[1]:
            for r in line:
                if float(r["min_probability"]) == chosen[0]:
                    mark_operating_point(ax, r, recall_pct, chosen, None)
    mark_operating_point(ax, chosen_row(two_tiers, chosen, early), recall_pct, chosen, early)
    false_alarm_axis(ax)
    ax.axhline(100.0, color="grey", linestyle="--", linewidth=1)
    ax.text(1.1, 2, "target: ≤ 1 clearly false / 10 min", color="grey", fontsize=8)
    ax.set_ylabel("recall of conflicts with true PET < 1.5 s (%)")
    ax.set_ylim(0, 105)
    ax.set_title("Warning policy sweep, simulator seeds 1–10 (points: min. probability 0.1 … 0.95)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="center right")
    fig.tight_layout()
    fig.savefig(folder / "recall_vs_false_alarms.png", dpi=110)


def plot_lead(folder: Path, one_tier: list, two_tiers: list, chosen, early) -> None:
    """Median lead against clearly false warnings: what warning earlier costs, per maximum TTC of
    one tier (points: min. probability 0.5 … 0.95) and per early tier's TTC added to the chosen
    first tier (points: its min. probability)."""
    fig, ax = plt.subplots(figsize=(8, 5.5))
    for ttc in sorted({float(r["max_ttc_s"]) for r in one_tier}):
        line = sorted(
            (r for r in one_tier if float(r["max_ttc_s"]) == ttc and float(r["min_probability"]) >= 0.5),
            key=lambda r: float(r["min_probability"]),
        )
        curve(ax, line, lead_s, marker="o", markersize=3, alpha=0.5, label=f"one tier, TTC ≤ {ttc:g} s")
    if chosen:
        for ttc in sorted({float(r["early_max_ttc_s"]) for r in two_tiers}):
            line = sorted(
                (
                    r
                    for r in two_tiers
                    if float(r["early_max_ttc_s"]) == ttc
                    and (float(r["min_probability"]), float(r["max_ttc_s"])) == chosen
                ),
                key=lambda r: float(r["early_min_probability"]),
            )
            label = f"{policy_label(chosen, None)} + early tier to {ttc:g} s"
            curve(ax, line, lead_s, marker="s", markersize=5, linewidth=2, label=label)
            for r in line:
                ax.annotate(
                    f"{float(r['early_min_probability']):g}",
                    (false_per_10min(r), lead_s(r)),
                    textcoords="offset points",
                    xytext=(4, 4),
                    fontsize=7,
                )
    mark_operating_point(ax, chosen_row(two_tiers, chosen, early), lead_s, chosen, early)
    false_alarm_axis(ax)
    ax.axhline(2.5, color="grey", linestyle="--", linewidth=1)
    ax.text(1.1, 3.4, "targets: ≤ 1 clearly false / 10 min, median lead ≥ 2.5 s", color="grey", fontsize=8)
    ax.set_ylim(1.0, 3.5)
    ax.set_ylabel("median lead of warned conflicts (s)")
    ax.set_title("Lead against false alarms, simulator seeds 1–10 (labels: early tier's min. probability)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(folder / "lead_vs_false_alarms.png", dpi=110)


def plot_calibration(folder: Path) -> None:
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
