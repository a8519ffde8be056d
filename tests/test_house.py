"""The house drawing (``docs/house.svg``, drawn by ``tests/house.py`` from the import graph) is current, every
module stands on a floor, and no import climbs a floor: the model core below the I/O package, the views and the
server, with no arrow back up, not even through ``import drmath`` (issue 33)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # pytest runs with --import-mode=importlib
from house import DRAWING, FLOORS, arrows, climbing, draw, floor_of  # noqa: E402
from test_imports import import_graph  # noqa: E402


def test_every_module_stands_on_a_floor():
    unplaced = sorted(m for m in import_graph() if floor_of(m) is None)
    assert not unplaced, f"modules on no floor of tests/house.py's FLOORS: {unplaced}"


def test_no_import_climbs_a_floor():
    up = climbing(arrows(import_graph()))
    assert not up, "imports that climb a floor: " + ", ".join(f"{a} -> {b} ({n})" for (a, b), n in sorted(up.items()))


def test_a_climbing_arrow_is_found_and_drawn_red():
    graph = {"drmath.units": {"drmath.io.links": 1}, "drmath.io.links": {"drmath.units": 2}}
    assert floor_of("drmath.units") == "core" and floor_of("drmath.io.links") == "io"
    assert climbing(arrows(graph)) == {("core", "io"): 1}
    assert 'stroke="#c0392b"' in draw(graph) and "Climbing a floor: 1." in draw(graph)


def test_the_committed_drawing_is_what_the_code_draws():
    assert [name for name, _, _ in FLOORS] == ["serve", "views", "io", "core"]  # the core at the bottom
    assert DRAWING.read_text() == draw(import_graph()), "docs/house.svg is stale: run python tests/house.py"
