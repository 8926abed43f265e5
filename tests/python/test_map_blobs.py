"""Cross-check of the map blobs the actors read (`cits map`, crates/cits-map/src/lib.rs) against the
lanelet2 library's own reading of the same Lanelet2 map: centerline direction, length and
successors must agree, lanelet by lanelet.

The `cits` binary comes from $CITS_TOOL (set by `make test-python`) or `cargo run`.
"""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import lanelet2
import pytest
from lanelet2 import traffic_rules
from lanelet2.core import GPSPoint
from lanelet2.io import Origin
from lanelet2.projection import UtmProjector
from lanelet2.routing import RoutingGraph

REPO = Path(__file__).resolve().parents[2]
MAP_PATH = REPO / "data" / "map" / "weiser-gabelsberger.osm"
ORIGIN = (47.81010, 13.05180)


def cits(*args: str) -> str:
    tool = os.environ.get("CITS_TOOL")
    cmd = [tool, *args] if tool else ["cargo", "run", "-q", "-p", "cits-cli", "--bin", "cits", "--", *args]
    return subprocess.run(cmd, cwd=REPO, check=True, capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def ours() -> dict[int, dict]:
    return {l["id"]: l for l in json.loads(cits("map", "--osm", str(MAP_PATH), "--json"))}


@pytest.fixture(scope="module")
def projector():
    return UtmProjector(Origin(*ORIGIN))


@pytest.fixture(scope="module")
def lmap(projector):
    return lanelet2.io.load(str(MAP_PATH), projector)


def xy(projector, lon_lat):
    p = projector.forward(GPSPoint(lon_lat[1], lon_lat[0], 0.0))
    return p.x, p.y


def test_same_lanelets(ours, lmap):
    assert set(ours) == {ll.id for ll in lmap.laneletLayer}


def test_centerlines_agree_in_direction_and_length(ours, lmap, projector):
    for ll in lmap.laneletLayer:
        mine = ours[ll.id]
        center = ll.centerline
        theirs_len = lanelet2.geometry.length2d(ll)  # length of its centerline
        # Both sample the midline of the same bounds; they differ only in sampling.
        assert mine["length_m"] == pytest.approx(theirs_len, rel=0.02, abs=0.3), ll.id
        for ours_end, theirs in ((mine["start"], center[0]), (mine["end"], center[-1])):
            x, y = xy(projector, ours_end)
            assert ((x - theirs.x) ** 2 + (y - theirs.y) ** 2) ** 0.5 < 0.3, (ll.id, (x, y), (theirs.x, theirs.y))


@pytest.mark.parametrize(
    "participant,mode",
    [(lanelet2.traffic_rules.Participants.Vehicle, "TRAVEL_MODE_CAR"), (lanelet2.traffic_rules.Participants.Bicycle, "TRAVEL_MODE_BICYCLE")],
)
def test_successors_match_the_routing_graph(ours, lmap, participant, mode):
    rules = traffic_rules.create(traffic_rules.Locations.Germany, participant)
    graph = RoutingGraph(lmap, rules)
    checked = 0
    for ll in lmap.laneletLayer:
        if ours[ll.id]["mode"] != mode:
            continue
        theirs = {f.id for f in graph.following(ll, False)}
        # lanelet2 lets bicycles use road lanelets too; our lane graph keeps modes apart.
        theirs = {i for i in theirs if ours[i]["mode"] == mode}
        assert set(ours[ll.id]["successors"]) == theirs, ll.id
        checked += 1
    assert checked >= 16
