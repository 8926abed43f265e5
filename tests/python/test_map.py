"""Checks of the Lanelet2 map of Weiserstraße x Gabelsbergerstraße (data/map/).

Needs the PyPI packages lanelet2==1.2.3 and pytest:
    python3 -m venv /tmp/map-venv && /tmp/map-venv/bin/pip install lanelet2==1.2.3 pytest
    /tmp/map-venv/bin/python -m pytest tests/python/test_map.py
"""
from __future__ import annotations

import importlib.util
import math
import sys
from collections import Counter
from pathlib import Path

import lanelet2
import pytest
from lanelet2 import traffic_rules
from lanelet2.io import Origin
from lanelet2.projection import UtmProjector
from lanelet2.routing import RoutingGraph

REPO = Path(__file__).resolve().parents[2]
MAP_DIR = REPO / "data" / "map"
MAP_PATH = MAP_DIR / "weiser-gabelsberger.osm"

ARMS = ("north", "east", "south", "west")
CAR_TURNS = {  # approach arm -> {lane index: turns}, as the map declares (cits:turns)
    "north": {0: {"left", "straight", "right"}},
    "east": {0: {"left"}, 1: {"straight", "right"}},
    "south": {0: {"left", "straight", "right"}},
    "west": {0: {"left"}, 1: {"straight", "right"}},
}
BIKE_TURNS = {"straight", "right"}
N_CAR_CONNECTORS = 12
N_BIKE_CONNECTORS = 8
N_CROSSWALKS = 4
N_WALKWAYS = 4


def _load_generator():
    spec = importlib.util.spec_from_file_location("make_map", MAP_DIR / "make_map.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up here
    spec.loader.exec_module(module)
    return module


GEN = _load_generator()


def tag(primitive, key, default=None):
    attrs = primitive.attributes
    return attrs[key] if key in attrs else default


def exit_arm(approach, turn):
    k = ARMS.index(approach)
    return ARMS[(k + {"left": 1, "straight": 2, "right": -1}[turn]) % 4]


@pytest.fixture(scope="module")
def projector():
    return UtmProjector(Origin(GEN.CENTRE_LAT, GEN.CENTRE_LON))


@pytest.fixture(scope="module")
def loaded(projector):
    lanelet_map, errors = lanelet2.io.loadRobust(str(MAP_PATH), projector)
    return lanelet_map, errors


@pytest.fixture(scope="module")
def lmap(loaded):
    return loaded[0]


def rules(participant):
    return traffic_rules.create(traffic_rules.Locations.Germany, participant)


@pytest.fixture(scope="module")
def graphs(lmap):
    p = traffic_rules.Participants
    return {
        name: RoutingGraph(lmap, rules(participant))
        for name, participant in (
            ("car", p.Vehicle), ("bicycle", p.Bicycle), ("pedestrian", p.Pedestrian))
    }


def lanelets(lmap, **tags):
    """Lanelets whose cits:* tags equal the given values (keyword `x` means tag `cits:x`)."""
    found = [
        ll for ll in lmap.laneletLayer
        if all(tag(ll, f"cits:{k}") == str(v) for k, v in tags.items())
    ]
    return sorted(found, key=lambda ll: ll.id)


def one(lmap, **tags):
    found = lanelets(lmap, **tags)
    assert len(found) == 1, (tags, [ll.id for ll in found])
    return found[0]


# ---------------------------------------------------------------------------------------------
# Loading and consistency with the generator
# ---------------------------------------------------------------------------------------------
def test_map_loads_without_errors(loaded):
    lanelet_map, errors = loaded
    assert list(errors) == []
    assert len(lanelet_map.laneletLayer) > 0


def test_committed_map_matches_generator():
    assert MAP_PATH.read_text(encoding="utf-8") == GEN.build().to_osm(), (
        "data/map/weiser-gabelsberger.osm is stale: run "
        "python3 data/map/make_map.py > data/map/weiser-gabelsberger.osm"
    )


def test_every_lanelet_is_tagged(lmap):
    for ll in lmap.laneletLayer:
        assert tag(ll, "type") == "lanelet"
        assert tag(ll, "location") == "urban", ll.id
        assert tag(ll, "one_way") in ("yes", "no"), ll.id
        assert tag(ll, "cits:role") in ("approach", "exit", "connector", "crosswalk", "walkway")
        assert tag(ll, "cits:mode") in ("car", "bicycle", "pedestrian")
        assert any(k.startswith("participant:") for k in ll.attributes.keys()), ll.id
        if tag(ll, "cits:mode") != "pedestrian":
            assert tag(ll, "speed_limit") == "50 km/h", ll.id
            assert tag(ll, "one_way") == "yes", ll.id


# ---------------------------------------------------------------------------------------------
# Counts
# ---------------------------------------------------------------------------------------------
def test_counts(lmap):
    subtypes = Counter(tag(ll, "subtype") for ll in lmap.laneletLayer)
    car_approaches = sum(len(lanes) for lanes in CAR_TURNS.values())
    assert subtypes == {
        "road": car_approaches + 4 + N_CAR_CONNECTORS,
        "bicycle_lane": 4 + 4 + N_BIKE_CONNECTORS,
        "crosswalk": N_CROSSWALKS,
        "walkway": N_WALKWAYS,
    }
    assert len(lanelets(lmap, role="connector", mode="car")) == N_CAR_CONNECTORS
    assert N_CAR_CONNECTORS == sum(len(t) for lanes in CAR_TURNS.values() for t in lanes.values())
    assert len(lanelets(lmap, role="connector", mode="bicycle")) == N_BIKE_CONNECTORS
    assert len(lanelets(lmap, role="crosswalk")) == N_CROSSWALKS
    assert len(lanelets(lmap, role="walkway")) == N_WALKWAYS
    for arm in ARMS:
        assert len(lanelets(lmap, role="approach", mode="car", approach=arm)) == len(CAR_TURNS[arm])
        assert len(lanelets(lmap, role="exit", mode="car", exit=arm)) == 1
        assert len(lanelets(lmap, role="approach", mode="bicycle", approach=arm)) == 1
        assert len(lanelets(lmap, role="exit", mode="bicycle", exit=arm)) == 1
        assert len(lanelets(lmap, role="crosswalk", arm=arm)) == 1
    lights = [re for re in lmap.regulatoryElementLayer if tag(re, "subtype") == "traffic_light"]
    assert len(lights) == 4


def test_id_scheme(lmap):
    codes = {arm: i + 1 for i, arm in enumerate(ARMS)}
    for ll in lmap.laneletLayer:
        arm = tag(ll, "cits:approach") or tag(ll, "cits:arm") or tag(ll, "cits:exit")
        if tag(ll, "cits:role") == "walkway":
            arm = tag(ll, "cits:corner").split("-")[0]
        assert ll.id // 1000 == codes[arm], ll.id
        kind = (ll.id // 100) % 10
        role, mode = tag(ll, "cits:role"), tag(ll, "cits:mode")
        expected = {
            ("approach", "car"): 1, ("exit", "car"): 2, ("approach", "bicycle"): 3,
            ("exit", "bicycle"): 4, ("crosswalk", "pedestrian"): 5, ("walkway", "pedestrian"): 6,
            ("connector", "car"): 7, ("connector", "bicycle"): 8,
        }[(role, mode)]
        assert kind == expected, ll.id
        if role == "connector":
            assert ll.id % 10 == {"left": 1, "straight": 2, "right": 3}[tag(ll, "cits:turn")]


# ---------------------------------------------------------------------------------------------
# Geometry
# ---------------------------------------------------------------------------------------------
def test_all_points_within_150_m_of_centre(lmap):
    far = max(math.hypot(p.x, p.y) for p in lmap.pointLayer)
    assert 60.0 <= far <= 150.0


def test_arms_are_60_to_80_m_long(lmap):
    for ll in lanelets(lmap, role="approach") + lanelets(lmap, role="exit"):
        outer = ll.centerline[0] if tag(ll, "cits:role") == "approach" else ll.centerline[-1]
        assert 60.0 <= math.hypot(outer.x, outer.y) <= 80.0, ll.id


def _width_at(ll, index):
    a, b = ll.leftBound[index], ll.rightBound[index]
    return math.hypot(a.x - b.x, a.y - b.y)


def test_lane_widths(lmap):
    for ll in lanelets(lmap, role="approach") + lanelets(lmap, role="exit"):
        lo, hi = (3.0, 3.5) if tag(ll, "cits:mode") == "car" else (1.5, 2.0)
        for index in (0, -1):
            assert lo <= _width_at(ll, index) <= hi, ll.id
    for ll in lanelets(lmap, role="connector"):
        lo, hi = (3.0, 3.5) if tag(ll, "cits:mode") == "car" else (1.5, 2.0)
        assert lo <= _width_at(ll, 0) <= hi and lo <= _width_at(ll, -1) <= hi, ll.id


def test_left_bound_is_on_the_left(lmap):
    """Driving on the right: every lanelet's left bound lies left of its direction of travel."""
    for ll in lmap.laneletLayer:
        c = ll.centerline
        for i in (0, len(c) - 2):
            dx, dy = c[i + 1].x - c[i].x, c[i + 1].y - c[i].y
            j = 0 if i == 0 else -1
            lx = ll.leftBound[j].x - ll.rightBound[j].x
            ly = ll.leftBound[j].y - ll.rightBound[j].y
            assert dx * ly - dy * lx > 0, ll.id


def test_adjacent_lanelets_share_boundaries(lmap):
    for arm in ARMS:
        approaches = lanelets(lmap, role="approach", mode="car", approach=arm)
        car_exit = one(lmap, role="exit", mode="car", exit=arm)
        # centre line: shared by the innermost approach lane and the exit lane
        assert approaches[0].leftBound.id == car_exit.leftBound.id
        for inner, outer in zip(approaches, approaches[1:]):
            assert inner.rightBound.id == outer.leftBound.id
            assert tag(inner.rightBound, "subtype") == "dashed"
        bike_in = one(lmap, role="approach", mode="bicycle", approach=arm)
        bike_out = one(lmap, role="exit", mode="bicycle", exit=arm)
        assert approaches[-1].rightBound.id == bike_in.leftBound.id
        assert car_exit.rightBound.id == bike_out.leftBound.id
        for ll in (bike_in, bike_out):
            assert tag(ll.rightBound, "type") == "curbstone"
            assert tag(ll.leftBound, "type") == "line_thin"
            assert tag(ll.leftBound, "subtype") == "solid"
        # a car connector and the bicycle connector of the same turn run side by side
        for turn in BIKE_TURNS:
            car = one(lmap, role="connector", mode="car", approach=arm, turn=turn)
            bike = one(lmap, role="connector", mode="bicycle", approach=arm, turn=turn)
            assert car.rightBound.id == bike.leftBound.id


def test_successors_by_construction(lmap):
    """A connector starts at its approach lane's end points and ends at its exit's start points."""
    for conn in lanelets(lmap, role="connector"):
        mode = tag(conn, "cits:mode")
        app = one(lmap, role="approach", mode=mode, approach=tag(conn, "cits:approach"),
                  lane=tag(conn, "cits:lane"))
        ext = one(lmap, role="exit", mode=mode, exit=tag(conn, "cits:exit"))
        assert conn.leftBound[0].id == app.leftBound[-1].id
        assert conn.rightBound[0].id == app.rightBound[-1].id
        assert conn.leftBound[-1].id == ext.leftBound[0].id
        assert conn.rightBound[-1].id == ext.rightBound[0].id


# ---------------------------------------------------------------------------------------------
# Traffic rules and routing
# ---------------------------------------------------------------------------------------------
def test_routing_graphs_are_valid(graphs):
    for name, graph in graphs.items():
        assert list(graph.checkValidity(False)) == [], name


def test_participants(lmap):
    p = traffic_rules.Participants
    car, bike, walk = rules(p.Vehicle), rules(p.Bicycle), rules(p.Pedestrian)
    for ll in lmap.laneletLayer:
        subtype = tag(ll, "subtype")
        assert car.canPass(ll) == (subtype == "road"), ll.id
        assert bike.canPass(ll) == (subtype in ("road", "bicycle_lane")), ll.id
        assert walk.canPass(ll) == (subtype in ("crosswalk", "walkway")), ll.id
        if subtype == "road":
            assert car.speedLimit(ll).speedLimit == pytest.approx(50.0)  # km/h


def test_every_car_turn_is_routable(lmap, graphs):
    graph = graphs["car"]
    for arm, lanes in CAR_TURNS.items():
        for lane, turns in lanes.items():
            app = one(lmap, role="approach", mode="car", approach=arm, lane=lane)
            assert set(tag(app, "cits:turns").split(";")) == turns
            connectors = lanelets(lmap, role="connector", mode="car", approach=arm, lane=lane)
            assert {tag(c, "cits:turn") for c in connectors} == turns
            assert {ll.id for ll in graph.following(app)} == {c.id for c in connectors}
            for conn in connectors:
                turn = tag(conn, "cits:turn")
                assert tag(conn, "cits:exit") == exit_arm(arm, turn)
                ext = one(lmap, role="exit", mode="car", exit=exit_arm(arm, turn))
                route = graph.getRoute(app, ext)
                assert route is not None, (arm, lane, turn)
                assert [ll.id for ll in route.shortestPath()] == [app.id, conn.id, ext.id]


def test_every_car_exit_is_reached_by_its_three_turns(lmap, graphs):
    graph = graphs["car"]
    for arm in ARMS:
        ext = one(lmap, role="exit", mode="car", exit=arm)
        previous = [lmap.laneletLayer[ll.id] for ll in graph.previous(ext)]
        assert sorted(tag(ll, "cits:turn") for ll in previous) == ["left", "right", "straight"]


def test_no_u_turns_for_cars(lmap, graphs):
    graph = graphs["car"]
    for arm in ARMS:
        ext = one(lmap, role="exit", mode="car", exit=arm)
        for app in lanelets(lmap, role="approach", mode="car", approach=arm):
            assert graph.getRoute(app, ext) is None


def test_every_bicycle_turn_is_routable(lmap, graphs):
    graph = graphs["bicycle"]
    for arm in ARMS:
        app = one(lmap, role="approach", mode="bicycle", approach=arm)
        assert set(tag(app, "cits:turns").split(";")) == BIKE_TURNS
        connectors = lanelets(lmap, role="connector", mode="bicycle", approach=arm)
        assert {ll.id for ll in graph.following(app)} == {c.id for c in connectors}
        assert {tag(c, "cits:turn") for c in connectors} == BIKE_TURNS
        for conn in connectors:
            ext = one(lmap, role="exit", mode="bicycle", exit=tag(conn, "cits:exit"))
            assert tag(conn, "cits:exit") == exit_arm(arm, tag(conn, "cits:turn"))
            route = graph.getRoute(app, ext)
            assert route is not None, (arm, tag(conn, "cits:turn"))
            assert [ll.id for ll in route.shortestPath()] == [app.id, conn.id, ext.id]
        # bicycle lanes are fenced off by solid lines: no way onto the carriageway
        left_exit = one(lmap, role="exit", mode="bicycle", exit=exit_arm(arm, "left"))
        assert graph.getRoute(app, left_exit) is None


def test_cars_never_route_over_bicycle_lanes(lmap, graphs):
    graph = graphs["car"]
    for arm in ARMS:
        for app in lanelets(lmap, role="approach", mode="car", approach=arm):
            for ll in graph.reachableSet(app, 1000.0, 0, True):
                assert tag(lmap.laneletLayer[ll.id], "subtype") == "road"


def test_pedestrians_can_walk_round_the_intersection(lmap, graphs):
    graph = graphs["pedestrian"]
    crosswalks = {arm: one(lmap, role="crosswalk", arm=arm) for arm in ARMS}
    for a in ARMS:
        for b in ARMS:
            if a != b:
                route = graph.getRoute(crosswalks[a], crosswalks[b])
                assert route is not None, (a, b)
                path = [ll.id for ll in route.shortestPath()]
                assert all(tag(lmap.laneletLayer[i], "cits:mode") == "pedestrian" for i in path)


def test_crosswalks_conflict_with_the_traffic_crossing_them(lmap, graphs):
    for arm in ARMS:
        cw = one(lmap, role="crosswalk", arm=arm)
        exits_here = lanelets(lmap, role="connector", mode="car", exit=arm)
        from_here = lanelets(lmap, role="connector", mode="car", approach=arm)
        for conn in exits_here + from_here:
            assert lanelet2.geometry.overlaps2d(conn, cw), (arm, conn.id)


def test_approaches_have_a_traffic_light_at_their_stop_line(lmap):
    for app in lanelets(lmap, role="approach"):
        lights = app.trafficLights()
        assert len(lights) == 1, app.id
        stop_points = {p.id for p in lights[0].stopLine}
        assert {app.leftBound[-1].id, app.rightBound[-1].id} <= stop_points, app.id
