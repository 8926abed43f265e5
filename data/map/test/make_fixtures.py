#!/usr/bin/env python3
"""Writes the loader's test maps (Python standard library only; deterministic):

* t-junction.osm        a small T-junction, every lanelet bound one way;
* t-junction-split.osm  the same nodes and lanelets, with some bounds made of several ways
                        in a row (one stored reversed, one listed far part first), as public
                        inD-style maps have them.

Arms: north (the stem), east, west; one approach and one exit lane per arm, 3.5 m wide, from
10 m to 60 m from the centre; a connector from every approach to every other arm's exit.
Lanelet ids: approach 100k+1, exit 100k+2 (k = 1 north, 2 east, 3 west), connector 1000+10k+j.

    python3 data/map/test/make_fixtures.py data/map/test
"""
import math
import sys
from pathlib import Path

LAT0, LON0 = 48.0, 11.0
BOX_M, ARM_M, LANE_M = 10.0, 60.0, 3.5
ARMS = {1: 0.0, 2: 90.0, 3: 270.0}  # arm -> bearing, degrees clockwise from north


def lat_lon(x, y):
    return LAT0 + y / 111_320.0, LON0 + x / (111_320.0 * math.cos(math.radians(LAT0)))


class Map:
    def __init__(self):
        self.nodes, self.ways, self.lanelets = [], [], []
        self.next_node, self.next_way = 10_000, 20_000

    def node(self, x, y):
        self.next_node += 1
        self.nodes.append((self.next_node, *lat_lon(x, y)))
        return self.next_node

    def way(self, refs):
        self.next_way += 1
        self.ways.append((self.next_way, list(refs)))
        return self.next_way


def unit(bearing):
    return math.sin(math.radians(bearing)), math.cos(math.radians(bearing))


def build():
    """Nodes and, per lanelet, its left and right bound as node lists."""
    m = Map()
    arm_lines = {}
    for k, b in ARMS.items():
        u = unit(b)
        r_in = (-u[1], u[0])  # right of the inbound direction -u
        lines = {}
        for name, offset in (("centre", 0.0), ("approach_kerb", LANE_M), ("exit_kerb", -LANE_M)):
            lines[name] = [
                m.node(u[0] * d + r_in[0] * offset, u[1] * d + r_in[1] * offset)
                for d in range(int(BOX_M), int(ARM_M) + 1, 10)
            ]
        arm_lines[k] = lines
    xy = {n: (0.0, 0.0) for n, _, _ in m.nodes}
    for n, lat, lon in m.nodes:
        xy[n] = ((lon - LON0) * 111_320.0 * math.cos(math.radians(LAT0)), (lat - LAT0) * 111_320.0)
    bounds = {}
    for k in ARMS:
        lines = arm_lines[k]
        bounds[100 * k + 1] = (lines["centre"], lines["approach_kerb"])
        bounds[100 * k + 2] = (lines["centre"], lines["exit_kerb"])
    for k, bk in ARMS.items():
        for j, bj in ARMS.items():
            if j == k:
                continue
            uk, uj = unit(bk), unit(bj)

            def curve(start, end):
                p0, p3 = xy[start], xy[end]
                c = 0.4 * math.dist(p0, p3)
                p1 = (p0[0] - c * uk[0], p0[1] - c * uk[1])
                p2 = (p3[0] - c * uj[0], p3[1] - c * uj[1])
                inner = []
                for i in range(1, 8):
                    t = i / 8
                    w = ((1 - t) ** 3, 3 * t * (1 - t) ** 2, 3 * t * t * (1 - t), t**3)
                    x = w[0] * p0[0] + w[1] * p1[0] + w[2] * p2[0] + w[3] * p3[0]
                    y = w[0] * p0[1] + w[1] * p1[1] + w[2] * p2[1] + w[3] * p3[1]
                    inner.append(m.node(x, y))
                return [start, *inner, end]

            left = curve(arm_lines[k]["centre"][0], arm_lines[j]["centre"][0])
            right = curve(arm_lines[k]["approach_kerb"][0], arm_lines[j]["exit_kerb"][0])
            bounds[1000 + 10 * k + j] = (left, right)
    return m, bounds


def write(path, m, members):
    lines = ["<?xml version='1.0' encoding='UTF-8'?>", "<osm version='0.6' generator='make_fixtures.py'>"]
    for n, lat, lon in m.nodes:
        lines.append(f"  <node id='{n}' visible='true' version='1' lat='{lat:.9f}' lon='{lon:.9f}' />")
    for w, refs in m.ways:
        lines.append(f"  <way id='{w}' visible='true' version='1'>")
        lines += [f"    <nd ref='{r}' />" for r in refs]
        lines += ["    <tag k='type' v='line_thin' />", "    <tag k='subtype' v='solid' />", "  </way>"]
    for lanelet, (left, right) in sorted(members.items()):
        lines.append(f"  <relation id='{lanelet}' visible='true' version='1'>")
        lines += [f"    <member type='way' ref='{w}' role='left' />" for w in left]
        lines += [f"    <member type='way' ref='{w}' role='right' />" for w in right]
        lines += [
            "    <tag k='type' v='lanelet' />",
            "    <tag k='subtype' v='road' />",
            "    <tag k='location' v='urban' />",
            "    <tag k='one_way' v='yes' />",
            "  </relation>",
        ]
    lines.append("</osm>")
    Path(path).write_text("\n".join(lines) + "\n")


def main(out):
    # One way per bound; a line two lanelets share is one way.
    m, bounds = build()
    way_of = {}
    members = {}
    for lanelet, (left, right) in bounds.items():
        ids = []
        for line in (left, right):
            key = tuple(line)
            if key not in way_of:
                way_of[key] = m.way(line)
            ids.append([way_of[key]])
        members[lanelet] = tuple(ids)
    write(Path(out) / "t-junction.osm", m, members)

    # The same nodes; some bounds split.
    m, bounds = build()
    east_centre = bounds[201][0]  # shared by the east approach (201) and exit (202)
    north_kerb = bounds[101][1]  # the north approach's right bound
    left_turn = bounds[1012][0]  # the north-to-east left turn's left bound (a curve)
    split = {
        # three ways, the middle one stored reversed
        tuple(east_centre): [
            m.way(east_centre[:3]),
            m.way(list(reversed(east_centre[2:5]))),
            m.way(east_centre[4:]),
        ],
        # two ways, listed far part first
        tuple(north_kerb): [m.way(north_kerb[3:]), m.way(north_kerb[:4])],
        # two ways, the first stored reversed
        tuple(left_turn): [m.way(list(reversed(left_turn[:5]))), m.way(left_turn[4:])],
    }
    way_of = dict(split)
    members = {}
    for lanelet, (left, right) in bounds.items():
        ids = []
        for line in (left, right):
            key = tuple(line)
            if key not in way_of:
                way_of[key] = [m.way(line)]
            ids.append(way_of[key])
        members[lanelet] = tuple(ids)
    write(Path(out) / "t-junction-split.osm", m, members)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parent)
