"""The incident log's figures (drmath.viz.fleet): what a reader sees is the fit's numbers, drawn right."""

import dataclasses
import html
import re

import numpy as np
import pytest
from scipy import stats

from drmath import _resources, viz
from drmath.calibrate import fit_events
from drmath.io.incidents import read_incidents
from drmath.units import day, hour
from drmath.viz import fleet


@pytest.fixture(scope="module")
def example():
    """The shipped example log, its primary cluster."""
    return read_incidents(_resources.shipped_file("incidents_example.csv"), start_column="start", end_column="end",
                          where=["cluster=primary"], gpus=16384)


def test_the_fit_keeps_the_gaps_and_failure_times_it_was_fitted_to():
    starts = [100.0, 3100.0, 9100.0, 10100.0, 18100.0]
    fit = fit_events(starts, 100.0, 20100.0, opens_window=True)
    assert fit.gaps.tolist() == [3000.0, 6000.0, 1000.0, 8000.0]
    assert fit.failure_times.tolist() == [3000.0, 9000.0, 10000.0, 18000.0]  # the first event only opens it
    assert fit.failure_times.size == fit.events


def test_gaps_histogram_is_a_density_against_scipys_fitted_densities(example):
    spec = viz.gaps_spec(example)
    bars, weibull, expon = spec["data"]
    assert [t["type"] for t in spec["data"]] == ["bar", "scatter", "scatter"]
    assert {t["type"] for t in spec["data"]} <= viz.BASIC_TRACES  # the dashboard's bundle draws them
    assert spec["layout"]["xaxis"]["title"]["text"] == "time between failures [h]"
    width, y = np.array(bars["width"]), np.array(bars["y"])
    assert (width * y).sum() == pytest.approx(1.0, rel=1e-4)  # area 1, in the axis' unit
    x = np.array(weibull["x"]) * hour
    assert np.array(weibull["y"]) == pytest.approx(
        stats.weibull_min.pdf(x, example.weibull_shape, scale=example.weibull_scale) * hour, rel=1e-4, abs=1e-9)
    assert np.array(expon["y"]) == pytest.approx(stats.expon.pdf(x, scale=example.mtbf) * hour, rel=1e-4)
    assert f"Weibull shape {example.weibull_shape:.3g}" in spec["layout"]["title"]["text"]
    assert len(bars["x"]) == np.histogram_bin_edges(example.gaps, "auto").size - 1


def test_the_weibull_curve_follows_the_fitted_shape(example):
    other = dataclasses.replace(example, weibull_shape=0.6, gaps=example.gaps, failure_times=example.failure_times)
    assert viz.gaps_spec(other)["data"][1]["y"] != viz.gaps_spec(example)["data"][1]["y"]
    assert viz.gaps_spec(other)["data"][2]["y"] == viz.gaps_spec(example)["data"][2]["y"]


def test_a_long_tail_draws_at_most_MOST_BINS_bars():
    gaps = np.random.default_rng(7).weibull(0.5, 100_000) * hour
    starts = np.cumsum(gaps)
    fit = fit_events(starts, starts[0], starts[-1] + hour, opens_window=True)
    bars = viz.gaps_spec(fit)["data"][0]
    assert 10 <= len(bars["x"]) <= fleet.MOST_BINS


def test_trend_counts_every_failure_against_the_constant_rate_line(example):
    spec = viz.trend_spec(example)
    steps, line = spec["data"]
    assert steps["y"][-1] == example.events and len(steps["x"]) == example.events
    assert steps["x"] == sorted(steps["x"]) and steps["line"]["shape"] == "hv"
    assert line["x"] == [0.0, pytest.approx(example.window / day)] and line["y"] == [0.0, example.events]
    # the unit and the window's start, to the minute: short enough for a phone's axis
    assert spec["layout"]["xaxis"]["title"]["text"] == "days since 2024-05-01 00:07 UTC"
    # the legend at the figure's foot (the house's), not over the title at its top
    assert spec["layout"]["legend"]["y"] == 0 and spec["layout"]["legend"]["yanchor"] == "bottom"
    title = html.unescape(re.sub(r"<[^>]+>", " ", spec["layout"]["title"]["text"]))
    assert " ".join(example.trend["sentence"].split()) in " ".join(title.split())
    assert example.trend["direction"] == "falling"  # the example burns in: early steps run above the line
    half = np.searchsorted(np.array(steps["x"]), example.window / day / 2)
    assert half > example.events / 2


def test_figures_validate_as_plotly(example):
    for figure in (viz.gaps_figure(example), viz.trend_figure(example)):
        assert len(figure.data) >= 2
    assert list(viz.fleet_specs(example)) == list(viz.FLEET_FIGURES) == ["gaps", "trend"]


def test_cause_table_shows_every_cause_escaped(example):
    table = viz.cause_table_html(example)
    assert table.count("<tr>") == len(example.causes) + 1
    assert "<th>Faulty GPU</th>" in table and f"{example.causes[0][2]:.1%}" in table
    hostile = fit_events([0.0, 10.0, 30.0], 0.0, 40.0, causes=["<script>alert(1)</script>", "GPU", "GPU"])
    assert "<script>" not in viz.cause_table_html(hostile)
    assert "drmath-cause-none" in viz.cause_table_html(fit_events([0.0, 10.0, 30.0], 0.0, 40.0))


def test_a_calibration_without_its_data_is_refused_by_name(example):
    bare = dataclasses.replace(example, gaps=None, failure_times=None)
    with pytest.raises(ValueError, match="carries no gaps"):
        viz.gaps_spec(bare)
    with pytest.raises(ValueError, match="carries no failure_times"):
        viz.trend_spec(bare)
