#!/usr/bin/env python3
"""Generate the Lanelet2 map of the intersection Weiserstraße x Gabelsbergerstraße, Salzburg.

    python3 data/map/make_map.py > data/map/weiser-gabelsberger.osm
    python3 data/map/make_map.py data/map/weiser-gabelsberger.osm      # same, writes the file

The map is authored, not surveyed: the geometry is built from the few parameters below
(centre, arm bearings, lane layout, widths).  data/map/README.md lists the facts they rest on,
the assumptions, the id scheme and the `cits:*` tags.  Standard library only; the output is
deterministic, so a regenerated file must equal the committed one (tests/python/test_map.py
checks this).

Geometry conventions
--------------------
* Local metric frame: x east, y north, origin at the intersection centre.  Geographic
  coordinates come from a local tangent-plane approximation of WGS84 (error < 1 cm at 100 m).
* Every arm has a bearing (degrees clockwise from north) and a unit vector `u` pointing away
  from the centre.  `r` is `u` turned 90 degrees clockwise.  A point of an arm is
  `d * u + s * r` (d: distance from the centre, s: lateral offset).  Traffic keeps right, so
  the exit (outbound) side of an arm is s > 0 and the approach (inbound) side is s < 0.
* The arms are listed clockwise (north, east, south, west), so from approach arm k the
  left turn leaves on arm k+1, straight on arm k+2 and the right turn on arm k-1.
"""
from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from xml.sax.saxutils import quoteattr

# ---------------------------------------------------------------------------------------------
# Parameters (see README.md for where they come from)
# ---------------------------------------------------------------------------------------------
# Intersection centre, WGS84: the RSU reference position the platform already uses
# (crates/cits-client/src/demo.rs CENTER, wadm/cits-pipeline.yaml), so CPM objects and the map share
# one frame.  Not surveyed (see README).
CENTRE_LAT = 47.81010
CENTRE_LON = 13.05180

LANE_WIDTH = 3.25  # car lane [m]
BIKE_WIDTH = 1.75  # bicycle lane (Radfahrstreifen) [m]
CURB_RADIUS = 6.0  # corner (curb return) radius; crosswalks start just beyond it [m]
CROSSWALK_WIDTH = 4.0  # [m]
STOP_GAP = 1.0  # crosswalk outer edge -> stop line [m]
ARM_END = 75.0  # centre -> outer end of the modelled arms [m]
ARM_STEP = 10.0  # spacing of intermediate points along the arms [m]
CURVE_SEGMENTS = 12  # segments per connector boundary through the box
SPEED_LIMIT = "50 km/h"  # Austrian urban limit (StVO section 20)
SIGNAL_HEIGHT = 0.9  # height of a traffic-light head [m] (Lanelet2 `height` tag)

TURN_CODE = {"left": 1, "straight": 2, "right": 3}
BIKE_TURNS = ("straight", "right")


@dataclass(frozen=True)
class Arm:
    key: str  # north / east / south / west
    code: int  # 1..4, the leading digit of every id on this arm
    bearing: float  # degrees clockwise from north, pointing away from the centre
    street: str
    approach_lanes: tuple  # per car approach lane, inner (leftmost) first: the turns it serves

    @property
    def u(self):
        b = math.radians(self.bearing)
        return (math.sin(b), math.cos(b))

    @property
    def r(self):
        b = math.radians(self.bearing)
        return (math.cos(b), -math.sin(b))

    def at(self, d, s):
        u, r = self.u, self.r
        return (d * u[0] + s * r[0], d * u[1] + s * r[1])

    @property
    def approach_offsets(self):
        """Lateral offsets of the approach-side lines: centre, lane dividers, bike line, curb."""
        n = len(self.approach_lanes)
        return [-i * LANE_WIDTH for i in range(n + 1)] + [-(n * LANE_WIDTH + BIKE_WIDTH)]

    @property
    def exit_offsets(self):
        return [0.0, LANE_WIDTH, LANE_WIDTH + BIKE_WIDTH]


# Clockwise order matters (turn arithmetic).  Bearings: the cardinal axes, as in the demo
# dataset's frame (an assumption; the real arms deviate by some degrees, see README).
ARMS = (
    Arm("north", 1, 0.0, "Weiserstraße (Nord) / Lastenstraße", (("left", "straight", "right"),)),
    Arm("east", 2, 90.0, "Gabelsbergerstraße", (("left",), ("straight", "right"))),
    Arm("south", 3, 180.0, "Weiserstraße (Süd)", (("left", "straight", "right"),)),
    Arm("west", 4, 270.0, "Saint-Julien-Straße (Nelböck-Viadukt)",
        (("left",), ("straight", "right"))),
)


def target_arm(k, turn):
    return ARMS[(k + {"left": 1, "straight": 2, "right": -1}[turn]) % len(ARMS)]


def approach_half_width(arm):
    return len(arm.approach_lanes) * LANE_WIDTH + BIKE_WIDTH


def exit_half_width(arm):
    return LANE_WIDTH + BIKE_WIDTH


def crosswalk_near(arm):
    """Centre -> inner edge of the arm's crosswalk: beyond the curb lines of the two
    neighbouring arms (the next arm's approach side and the previous arm's exit side border
    this arm) plus the corner radius."""
    k = ARMS.index(arm)
    nxt, prv = ARMS[(k + 1) % len(ARMS)], ARMS[k - 1]
    reach = 0.0
    for other, half in ((nxt, approach_half_width(nxt)), (prv, exit_half_width(prv))):
        angle = math.radians(abs(other.bearing - arm.bearing) % 360.0)
        reach = max(reach, half / abs(math.sin(angle)))
    return reach + CURB_RADIUS


def stop_line(arm):
    """Centre -> stop line: the arm lanelets start (exit) or end (approach) here."""
    return crosswalk_near(arm) + CROSSWALK_WIDTH + STOP_GAP


# ---------------------------------------------------------------------------------------------
# Id scheme (see README): lanelets and regulatory elements 1000-4999, ways 10000-49999,
# nodes 100000-499999; the leading digit is the arm (for connectors: the approach arm).
# ---------------------------------------------------------------------------------------------
WAY_BLOCK = {"arm": 0, "connector": 5000, "pedestrian": 8000, "signal": 9000}
NODE_BLOCK = {"arm": 0, "connector": 50000, "pedestrian": 80000, "signal": 90000}


def lanelet_id(arm, kind, lane=0, turn=None):
    base = arm.code * 1000
    return {
        "approach": base + 100 + lane,
        "exit": base + 200 + lane,
        "bike_approach": base + 300,
        "bike_exit": base + 400,
        "crosswalk": base + 500,
        "walkway": base + 600,
        "connector": base + 700 + 10 * lane + (TURN_CODE[turn] if turn else 0),
        "bike_connector": base + 800 + (TURN_CODE[turn] if turn else 0),
        "traffic_light": base + 900,
    }[kind]


# ---------------------------------------------------------------------------------------------
# Map model
# ---------------------------------------------------------------------------------------------
A_WGS84 = 6378137.0
F_WGS84 = 1 / 298.257223563


def to_latlon(x, y):
    """Local tangent-plane metres -> WGS84 degrees (meridional / prime-vertical radii)."""
    e2 = F_WGS84 * (2 - F_WGS84)
    phi = math.radians(CENTRE_LAT)
    w = math.sqrt(1 - e2 * math.sin(phi) ** 2)
    m = A_WGS84 * (1 - e2) / w**3
    n = A_WGS84 / w
    return CENTRE_LAT + math.degrees(y / m), CENTRE_LON + math.degrees(x / (n * math.cos(phi)))


class MapBuilder:
    def __init__(self):
        self.nodes = {}  # id -> (x, y, tags)
        self.ways = {}  # id -> (node ids, tags)
        self.relations = {}  # id -> (members [(type, ref, role)], tags)
        self._next = {}
        self._node_at = {}  # (arm key, d, s) -> node id, so coincident points are shared
        self._curves = {}  # (start node, end node) -> way id, so coincident curves are shared

    def _new_id(self, table, arm, block, base):
        key = (table, arm.code, block)
        self._next[key] = self._next.get(key, 0) + 1
        return base + self._next[key]

    def node(self, arm, block, xy, tags=None):
        nid = self._new_id("node", arm, block, arm.code * 100000 + NODE_BLOCK[block])
        self.nodes[nid] = (xy[0], xy[1], dict(tags or {}))
        return nid

    def arm_node(self, arm, d, s, block="arm"):
        key = (arm.key, round(d, 6), round(s, 6))
        if key not in self._node_at:
            self._node_at[key] = self.node(arm, block, arm.at(d, s))
        return self._node_at[key]

    def way(self, arm, block, node_ids, tags):
        wid = self._new_id("way", arm, block, arm.code * 10000 + WAY_BLOCK[block])
        self.ways[wid] = (list(node_ids), dict(tags))
        return wid

    def relation(self, rid, members, tags):
        assert rid not in self.relations, rid
        self.relations[rid] = (members, dict(tags))

    def lanelet(self, rid, left, right, tags, regulatory=()):
        members = [("way", left, "left"), ("way", right, "right")]
        members += [("relation", reg, "regulatory_element") for reg in regulatory]
        self.relation(rid, members, {"type": "lanelet", **tags})

    def curve(self, arm, start, end, d_in, d_out, tags, block="connector", pre=0.0, post=0.0):
        """A boundary through the box from node `start` (heading d_in) to node `end` (heading
        d_out): straight for `pre` metres (through the crosswalk), a cubic Bezier (a
        degree-elevated quadratic whose control point is where the two tangents meet, or thirds
        of the chord when they are parallel), straight for the last `post` metres.  Coincident
        curves are built once and shared, e.g. between a car and a bicycle connector."""
        if (start, end) in self._curves:
            return self._curves[(start, end)]
        a0 = self.nodes[start][:2]
        a3 = self.nodes[end][:2]
        p0 = (a0[0] + pre * d_in[0], a0[1] + pre * d_in[1])
        p3 = (a3[0] - post * d_out[0], a3[1] - post * d_out[1])
        dx, dy = p3[0] - p0[0], p3[1] - p0[1]
        det = d_in[0] * d_out[1] - d_in[1] * d_out[0]
        chord = math.hypot(dx, dy)
        ctrl = None
        if abs(det) > 1e-3:
            t = (dx * d_out[1] - dy * d_out[0]) / det  # p0 + t*d_in == p3 - s*d_out
            s = (d_in[0] * dy - d_in[1] * dx) / det
            if t > 0.5 and s > 0.5:
                ctrl = (p0[0] + t * d_in[0], p0[1] + t * d_in[1])
        if ctrl:
            p1 = (p0[0] + 2 / 3 * (ctrl[0] - p0[0]), p0[1] + 2 / 3 * (ctrl[1] - p0[1]))
            p2 = (p3[0] + 2 / 3 * (ctrl[0] - p3[0]), p3[1] + 2 / 3 * (ctrl[1] - p3[1]))
        else:
            p1 = (p0[0] + chord / 3 * d_in[0], p0[1] + chord / 3 * d_in[1])
            p2 = (p3[0] - chord / 3 * d_out[0], p3[1] - chord / 3 * d_out[1])
        ids = [start]
        if pre > 0:
            ids.append(self.node(arm, block, p0))
        for i in range(1, CURVE_SEGMENTS):
            t = i / CURVE_SEGMENTS
            a, b, c, e = (1 - t) ** 3, 3 * (1 - t) ** 2 * t, 3 * (1 - t) * t**2, t**3
            xy = tuple(a * p0[j] + b * p1[j] + c * p2[j] + e * p3[j] for j in range(2))
            ids.append(self.node(arm, block, xy))
        if post > 0:
            ids.append(self.node(arm, block, p3))
        ids.append(end)
        wid = self.way(arm, block, ids, tags)
        self._curves[(start, end)] = wid
        return wid

    # -- output ----------------------------------------------------------------------------
    def to_osm(self):
        out = ['<?xml version="1.0" encoding="UTF-8"?>']
        out.append('<osm version="0.6" generator="data/map/make_map.py">')
        out.append(
            f"  <!-- Lanelet2 map of Weiserstraße x Gabelsbergerstraße, Salzburg (authored, not"
            f" surveyed; see data/map/README.md). Origin for projection: lat {CENTRE_LAT:.5f}"
            f" lon {CENTRE_LON:.5f}. Generated by data/map/make_map.py - do not edit by hand. -->"
        )
        lat_lon = {nid: to_latlon(x, y) for nid, (x, y, _) in self.nodes.items()}
        lats = [p[0] for p in lat_lon.values()]
        lons = [p[1] for p in lat_lon.values()]
        out.append(
            f'  <bounds minlat="{min(lats):.9f}" minlon="{min(lons):.9f}"'
            f' maxlat="{max(lats):.9f}" maxlon="{max(lons):.9f}"/>'
        )
        for nid in sorted(self.nodes):
            lat, lon = lat_lon[nid]
            tags = self.nodes[nid][2]
            head = f'  <node id="{nid}" visible="true" version="1" lat="{lat:.9f}" lon="{lon:.9f}"'
            if not tags:
                out.append(head + "/>")
                continue
            out.append(head + ">")
            out += _tags(tags)
            out.append("  </node>")
        for wid in sorted(self.ways):
            nds, tags = self.ways[wid]
            out.append(f'  <way id="{wid}" visible="true" version="1">')
            out += [f'    <nd ref="{n}"/>' for n in nds]
            out += _tags(tags)
            out.append("  </way>")
        for rid in sorted(self.relations):
            members, tags = self.relations[rid]
            out.append(f'  <relation id="{rid}" visible="true" version="1">')
            out += [f'    <member type="{t}" ref="{ref}" role="{role}"/>'
                    for t, ref, role in members]
            out += _tags(tags)
            out.append("  </relation>")
        out.append("</osm>")
        return "\n".join(out) + "\n"


def _tags(tags):
    return [f"    <tag k={quoteattr(k)} v={quoteattr(str(v))}/>" for k, v in tags.items()]


# ---------------------------------------------------------------------------------------------
# Tags
# ---------------------------------------------------------------------------------------------
SOLID = {"type": "line_thin", "subtype": "solid"}
DASHED = {"type": "line_thin", "subtype": "dashed"}
CURB = {"type": "curbstone", "subtype": "high"}
VIRTUAL = {"type": "virtual"}
BIKE_MARKING = {"type": "bike_marking"}  # Radfahrerueberfahrt edge; no lane change
ZEBRA = {"type": "pedestrian_marking"}

ROAD = {
    "subtype": "road",
    "location": "urban",
    "one_way": "yes",
    "participant:vehicle": "yes",
    "participant:bicycle": "yes",  # bicycles may use the carriageway (Lanelet2 default for road)
    "speed_limit": SPEED_LIMIT,
}
BICYCLE_LANE = {
    "subtype": "bicycle_lane",
    "location": "urban",
    "one_way": "yes",
    "participant:bicycle": "yes",
    "speed_limit": SPEED_LIMIT,
}
PEDESTRIAN = {"location": "urban", "one_way": "no", "participant:pedestrian": "yes"}


def approach_line_tags(arm, s):
    """Line type of an approach-side longitudinal line at offset s."""
    offsets = arm.approach_offsets
    if s == offsets[0]:
        return SOLID  # centre line (Sperrlinie), shared with the exit lane
    if s == offsets[-1]:
        return CURB
    if s == offsets[-2]:
        return SOLID  # car lane | bicycle lane
    return DASHED  # between car approach lanes


def exit_line_tags(s):
    return CURB if s == LANE_WIDTH + BIKE_WIDTH else SOLID


# ---------------------------------------------------------------------------------------------
# Construction
# ---------------------------------------------------------------------------------------------
def build():
    m = MapBuilder()
    approach_line = {}  # (arm key, s) -> way (oriented inbound)
    exit_line = {}  # (arm key, s) -> way (oriented outbound); s = 0 is the shared centre line
    signal = {}

    # 1. Arms: longitudinal lines, then the lanelets between them.
    for arm in ARMS:
        stop_d = stop_line(arm)
        distances = [stop_d]
        while distances[-1] + ARM_STEP < ARM_END - 1e-9:
            distances.append(distances[-1] + ARM_STEP)
        distances.append(ARM_END)
        road = {"road_name": arm.street, "cits:arm": arm.key}
        for s in arm.exit_offsets:
            nodes = [m.arm_node(arm, d, s) for d in distances]
            exit_line[(arm.key, s)] = m.way(arm, "arm", nodes, exit_line_tags(s))
        for s in arm.approach_offsets[1:]:
            nodes = [m.arm_node(arm, d, s) for d in reversed(distances)]
            approach_line[(arm.key, s)] = m.way(arm, "arm", nodes, approach_line_tags(arm, s))
        approach_line[(arm.key, 0.0)] = exit_line[(arm.key, 0.0)]

        # Signal: stop line across the approach side + one signal head at the right curb.
        stop = m.way(arm, "signal", [m.arm_node(arm, stop_d, s) for s in arm.approach_offsets],
                     {"type": "stop_line"})
        curb = arm.approach_offsets[-1]
        head = [m.node(arm, "signal", arm.at(stop_d - 0.5, curb - d), {"ele": "2.5"})
                for d in (0.8, 0.2)]
        light = m.way(arm, "signal", head, {"type": "traffic_light", "subtype": "red_yellow_green",
                                            "height": f"{SIGNAL_HEIGHT}"})
        signal[arm.key] = lanelet_id(arm, "traffic_light")
        m.relation(signal[arm.key], [("way", light, "refers"), ("way", stop, "ref_line")],
                   {"type": "regulatory_element", "subtype": "traffic_light", "cits:arm": arm.key})

        offs = arm.approach_offsets
        for i, turns in enumerate(arm.approach_lanes):
            m.lanelet(
                lanelet_id(arm, "approach", i),
                approach_line[(arm.key, offs[i])], approach_line[(arm.key, offs[i + 1])],
                {**ROAD, **road, "name": f"{arm.key} approach lane {i}", "cits:role": "approach",
                 "cits:mode": "car", "cits:approach": arm.key, "cits:lane": i,
                 "cits:turns": ";".join(turns)},
                [signal[arm.key]],
            )
        m.lanelet(
            lanelet_id(arm, "bike_approach"),
            approach_line[(arm.key, offs[-2])], approach_line[(arm.key, offs[-1])],
            {**BICYCLE_LANE, **road, "name": f"{arm.key} approach bicycle lane",
             "cits:role": "approach", "cits:mode": "bicycle", "cits:approach": arm.key,
             "cits:lane": 0, "cits:turns": ";".join(BIKE_TURNS)},
            [signal[arm.key]],
        )
        ex = arm.exit_offsets
        m.lanelet(
            lanelet_id(arm, "exit"), exit_line[(arm.key, ex[0])], exit_line[(arm.key, ex[1])],
            {**ROAD, **road, "name": f"{arm.key} exit lane 0", "cits:role": "exit",
             "cits:mode": "car", "cits:exit": arm.key, "cits:lane": 0},
        )
        m.lanelet(
            lanelet_id(arm, "bike_exit"), exit_line[(arm.key, ex[1])], exit_line[(arm.key, ex[2])],
            {**BICYCLE_LANE, **road, "name": f"{arm.key} exit bicycle lane", "cits:role": "exit",
             "cits:mode": "bicycle", "cits:exit": arm.key, "cits:lane": 0},
        )

    # 2. Connectors through the box.  Their bounds start at the approach lane's stop-line nodes
    #    and end at the exit lane's first nodes, so successors follow by construction.  Bicycle
    #    connectors are built first so the boundary they share with a car connector carries the
    #    bicycle crossing marking.
    def connect(arm, k, turn, left_s, right_s, exit_left_s, exit_right_s, rid, tags, line, name):
        out = target_arm(k, turn)
        d_in = (-arm.u[0], -arm.u[1])
        d_out = out.u
        pre, post = stop_line(arm) - crosswalk_near(arm), stop_line(out) - crosswalk_near(out)
        left = m.curve(arm, m.arm_node(arm, stop_line(arm), left_s),
                       m.arm_node(out, stop_line(out), exit_left_s), d_in, d_out, line,
                       pre=pre, post=post)
        right = m.curve(arm, m.arm_node(arm, stop_line(arm), right_s),
                        m.arm_node(out, stop_line(out), exit_right_s), d_in, d_out, line,
                        pre=pre, post=post)
        m.lanelet(rid, left, right,
                  {**tags, "name": name, "cits:role": "connector", "cits:approach": arm.key,
                   "cits:exit": out.key, "cits:turn": turn})

    for k, arm in enumerate(ARMS):
        offs = arm.approach_offsets
        for turn in BIKE_TURNS:
            connect(arm, k, turn, offs[-2], offs[-1], LANE_WIDTH, LANE_WIDTH + BIKE_WIDTH,
                    lanelet_id(arm, "bike_connector", turn=turn),
                    {**BICYCLE_LANE, "cits:mode": "bicycle", "cits:lane": 0}, BIKE_MARKING,
                    f"{arm.key} bicycle {turn} to {target_arm(k, turn).key}")
    for k, arm in enumerate(ARMS):
        offs = arm.approach_offsets
        for i, turns in enumerate(arm.approach_lanes):
            for turn in turns:
                connect(arm, k, turn, offs[i], offs[i + 1], 0.0, LANE_WIDTH,
                        lanelet_id(arm, "connector", i, turn),
                        {**ROAD, "cits:mode": "car", "cits:lane": i}, VIRTUAL,
                        f"{arm.key} lane {i} {turn} to {target_arm(k, turn).key}")

    # 3. Pedestrians: a crosswalk across every arm (curb to curb, travelling in +r) and a
    #    walkway round every corner linking the end of one crosswalk to the start of the next.
    cw_ends = {}
    for arm in ARMS:
        s0, s1 = arm.approach_offsets[-1], arm.exit_offsets[-1]
        near_d = crosswalk_near(arm)
        far_d = near_d + CROSSWALK_WIDTH
        near = [m.arm_node(arm, near_d, s, "pedestrian") for s in (s0, s1)]
        far = [m.arm_node(arm, far_d, s, "pedestrian") for s in (s0, s1)]
        m.lanelet(
            lanelet_id(arm, "crosswalk"),
            m.way(arm, "pedestrian", far, ZEBRA), m.way(arm, "pedestrian", near, ZEBRA),
            {"subtype": "crosswalk", **PEDESTRIAN, "road_name": arm.street,
             "name": f"{arm.key} crosswalk", "cits:role": "crosswalk", "cits:mode": "pedestrian",
             "cits:arm": arm.key},
        )
        cw_ends[arm.key] = {"start": (far[0], near[0]), "end": (far[1], near[1])}
    for k, arm in enumerate(ARMS):
        nxt = ARMS[(k + 1) % len(ARMS)]
        (l0, r0), (l1, r1) = cw_ends[arm.key]["end"], cw_ends[nxt.key]["start"]
        left = m.curve(arm, l0, l1, arm.r, nxt.r, VIRTUAL, "pedestrian")
        right = m.curve(arm, r0, r1, arm.r, nxt.r, VIRTUAL, "pedestrian")
        m.lanelet(
            lanelet_id(arm, "walkway"), left, right,
            {"subtype": "walkway", **PEDESTRIAN, "name": f"{arm.key}-{nxt.key} corner walkway",
             "cits:role": "walkway", "cits:mode": "pedestrian",
             "cits:corner": f"{arm.key}-{nxt.key}"},
        )
    return m


def main(argv):
    text = build().to_osm()
    if len(argv) > 1:
        with open(argv[1], "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main(sys.argv)
