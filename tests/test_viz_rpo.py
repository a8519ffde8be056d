"""The site-RPO figures keep the current-point marker whole: it sits inside the axes, not on their edge."""

import math

import pytest

from drmath import plan, viz
from drmath.io import scenarios

MARKER_ROOM = 0.02
"""Least share of the x-axis between the current point's centre and either end: a 12 px marker on a plot
area of at least 300 px needs 6 px (0.02) to show whole. [1]"""


@pytest.mark.parametrize("name", ["rpo_link", "rpo"])
@pytest.mark.parametrize("changes", [{}, {"replication.link_bandwidth": 400e9 / 8}, {"replication.interval": 3600.0},
                                     {"replication.interval": 60.0}])
def test_the_current_point_is_drawn_whole(name, changes):
    p = plan(scenarios.seed().with_changes(changes))
    fig = viz.plan_figure(name, p)
    current = [t for t in fig.data if t.name == "current"]
    if not current:
        pytest.skip("no finite current point (a line marks it instead)")
    x = current[0].x[0]
    lo, hi = fig.layout.xaxis.range
    at = math.log10(x) if fig.layout.xaxis.type == "log" else x
    room = min(at - lo, hi - at) / (hi - lo)
    assert room >= MARKER_ROOM or current[0].cliponaxis is False, (name, x, (lo, hi))
