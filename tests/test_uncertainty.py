"""Issue 23, part 3: a scenario's inputs carry their uncertainty, and every headline number gets its 90% range."""


import math

import numpy as np
import pytest

import drmath
from drmath import Scenario
from drmath._uncertainty import PERCENTILES, draw
from drmath.calibrate import fit_events
from drmath.io import fits, links, scenarios
from drmath.quantities import BANDED, QUANTITIES
from drmath.scenario import Spread
from drmath.viz.headline import CARDS, card_title

RATE = "failures.gpu_failure_rate"
HOUR = 3600.0
RATE_SPREAD = (2e-7 / HOUR, 4e-7 / HOUR)  # "between 2e-7 and 4e-7 per GPU-hour"


def uncertain(**extra):
    return Scenario().replace(**{f"uncertainty.{RATE}": RATE_SPREAD}, **extra)


# --------------------------------------------------------------------------- the scenario's spreads


def test_a_scenario_has_no_uncertainty_by_default():
    assert Scenario().uncertainty == {}


def test_replace_sets_a_spread_and_none_removes_it():
    s = uncertain()
    assert s.uncertainty == {RATE: Spread(*RATE_SPREAD, "lognormal", 0.95)}
    assert s.replace(**{f"uncertainty.{RATE}": None}) == Scenario()
    assert hash(s) != hash(Scenario())  # still hashable, and a different scenario


@pytest.mark.parametrize("value, match", [
    ((4e-7 / HOUR, 2e-7 / HOUR), r"uncertainty\.failures\.gpu_failure_rate = .* out of range: low < high"),
    ((0.0, 1e-10), r"uncertainty\.failures\.gpu_failure_rate = \(0\.0, 1e-10\) is out of range.*\[1e-15, 0\.001\]"),
    ((1e-10, 1.0), r"uncertainty\.failures\.gpu_failure_rate = .* out of range"),
    ((float("nan"), 1e-10), r"uncertainty\.failures\.gpu_failure_rate\.low = nan is not a finite number"),
    ({"low": 1e-10, "high": 2e-10, "distribution": "beta"}, r"distribution = 'beta' is not valid: must be one of"),
    ({"low": 1e-10, "high": 2e-10, "confidence": 1.0}, r"confidence = 1\.0 is out of range: must be in \(0, 1\)"),
    ("often", r"uncertainty\.failures\.gpu_failure_rate = 'often' is not a spread"),
])
def test_a_bad_spread_names_the_field_its_value_and_range(value, match):
    with pytest.raises(ValueError, match=match):
        Scenario().replace(**{f"uncertainty.{RATE}": value})


def test_a_spread_on_a_choice_or_an_unknown_field_is_refused():
    with pytest.raises(ValueError, match=r"uncertainty\.failover\.tier is not allowed"):
        Scenario().replace(**{"uncertainty.failover.tier": (1.0, 2.0)})
    with pytest.raises(ValueError, match=r"uncertainty\.failures\.nope: unknown field"):
        Scenario().replace(**{"uncertainty.failures.nope": (1.0, 2.0)})


def test_a_toml_uncertainty_table_reads_units_like_its_field_and_round_trips():
    text = ('[uncertainty]\n"failures.launch_time" = {low = "2 min", high = "10 min", distribution = "uniform"}\n'
            f'"{RATE}" = {{low = 5.5e-11, high = 1.1e-10}}\n')
    s = scenarios.loads(text)
    assert s.uncertainty["failures.launch_time"] == Spread(120.0, 600.0, "uniform", 0.95)
    assert s.uncertainty[RATE].distribution == "lognormal"
    assert scenarios.loads(scenarios.dumps(s)) == s


def test_a_bad_toml_spread_names_the_file_and_the_field():
    text = '[uncertainty]\n"failures.launch_time" = {low = "20 min", high = "10 min"}\n'
    with pytest.raises(scenarios.ScenarioFileError, match=r"^x\.toml: uncertainty\.failures\.launch_time = "):
        scenarios.loads(text, "x.toml")


def test_a_share_link_round_trips_the_spreads():
    s = uncertain(**{"uncertainty.failures.launch_time": {"low": 60.0, "high": 600.0, "distribution": "uniform",
                                                         "confidence": 0.9}})
    query = links.to_query(s)
    assert "uncertainty.failures.gpu_failure_rate=" in query
    assert links.from_query(query) == (s, None)
    back = links.to_query(Scenario(), base=s)  # a link from a scenario with spreads to one without
    assert links.from_query(back, base=s) == (Scenario(), None)


def test_a_bad_spread_in_a_link_falls_back_with_a_notice():
    s, notice = links.from_query("uncertainty.failures.gpu_failure_rate=4e-10,1e-10")
    assert s == Scenario() and "uncertainty.failures.gpu_failure_rate" in notice


# --------------------------------------------------------------------------- the calibration carries it

FIT = fit_events([0.0, 3000.0, 9000.0, 10000.0, 18000.0, 21000.0, 30000.0], 0.0, 36000.0)


def test_a_calibration_applies_its_model_with_its_intervals():
    s = FIT.apply(Scenario())
    assert s.failures.measured_mtbf == FIT.mtbf
    assert s.failures.weibull_shape == pytest.approx(FIT.weibull_shape)
    spread = s.uncertainty["failures.measured_mtbf"]
    assert (spread.low, spread.high, spread.confidence) == (*FIT.mtbf_ci, 0.95)
    assert "failures.weibull_shape" in s.uncertainty


def test_the_fragment_carries_the_same_model_as_apply(tmp_path):
    from drmath import cli

    (tmp_path / "fleet.toml").write_text(fits.fragment(FIT))
    (tmp_path / "base.toml").write_text("[training]\ngpus = 4096\n")
    merged = cli.load_merged([tmp_path / "base.toml", tmp_path / "fleet.toml"])
    assert merged == FIT.apply(Scenario().with_changes({"training.gpus": 4096}))


# --------------------------------------------------------------------------- the bands



def test_without_uncertainty_every_band_is_the_point_plan():
    p = drmath.plan(Scenario())
    bands = drmath.bands(Scenario(), draws=50)
    assert not bands.has_uncertainty
    assert bands.percentiles == {name: (float(getattr(p, name)),) * 3 for name in BANDED}
    assert bands.range("rpo_site") == (p.rpo_site, p.rpo_site)
    assert np.all(bands.samples("ettr") == p.ettr)


def test_an_uncertain_failure_rate_orders_the_bands_the_right_way():
    bands = drmath.bands(uncertain(), draws=400, seed=3)
    assert bands.has_uncertainty
    for name in ("rpo_local", "rpo_site", "ettr", "total_dr_cost"):
        p05, p50, p95 = bands.percentiles[name]
        assert p05 < p50 < p95, name
    rate = bands.inputs[RATE]
    # more failures: checkpoints more often (a smaller RPO) and less goodput
    assert np.corrcoef(rate, bands.samples("rpo_local"))[0, 1] < -0.9
    assert np.corrcoef(rate, bands.samples("ettr"))[0, 1] < -0.9
    p = drmath.plan(uncertain().with_changes({RATE: math.sqrt(RATE_SPREAD[0] * RATE_SPREAD[1])}))  # the median rate
    assert bands.percentiles["rpo_local"][1] == pytest.approx(p.rpo_local, rel=0.02)


def test_the_vectorised_bands_agree_with_a_loop_over_plan():
    s = uncertain(**{"uncertainty.failures.launch_time": {"low": 60.0, "high": 600.0, "distribution": "uniform"},
                     "uncertainty.training.gpus": (6000, 10000)})
    bands = drmath.bands(s, draws=12, seed=7)
    plans = [drmath.plan(s.with_changes({path: float(x[i]) for path, x in bands.inputs.items()}))
             for i in range(12)]
    for name in ("rpo_local", "rpo_site", "rto_local", "rto_site", "ettr", "total_dr_cost", "site_loss_time"):
        looped = np.array([getattr(p, name) for p in plans])
        np.testing.assert_allclose(bands.samples(name), looped, rtol=1e-9, err_msg=name)
        np.testing.assert_allclose(bands.percentiles[name], np.percentile(looped, PERCENTILES), rtol=1e-9,
                                   err_msg=name)


def test_the_model_chooses_which_quantities_get_bands():
    assert BANDED == tuple(name for name, q in QUANTITIES.items() if q.banded)
    assert set(BANDED) == set(CARDS)  # every headline card has its band, and nothing else has one
    bands = drmath.bands(uncertain(), draws=20)
    assert list(bands.percentiles) == list(BANDED)
    with pytest.raises(ValueError, match=r"unknown quantity with bands 'mtbf': choose from time_to_train, ettr"):
        bands.range("mtbf")


def test_the_same_seed_gives_the_same_bands_and_another_seed_others():
    a, b = drmath.bands(uncertain(), draws=50, seed=1), drmath.bands(uncertain(), draws=50, seed=1)
    assert a.percentiles == b.percentiles
    assert drmath.bands(uncertain(), draws=50, seed=2).percentiles != a.percentiles


@pytest.mark.parametrize("distribution", ["lognormal", "normal", "uniform", "loguniform"])
def test_each_distribution_puts_its_confidence_inside_the_interval(distribution):
    x = draw(2.0, 5.0, distribution, 0.9, 200_000, np.random.default_rng(0))
    assert np.mean((x >= 2.0) & (x <= 5.0)) == pytest.approx(0.9, abs=0.005)
    if distribution in ("normal", "uniform"):
        assert np.median(x) == pytest.approx(3.5, abs=0.02)
    else:
        assert np.median(x) == pytest.approx(math.sqrt(10.0), abs=0.02)


def test_the_bands_read_as_text_and_json():
    bands = drmath.bands(uncertain(), draws=200)
    assert bands.format_range("rpo_local").startswith("90% range ") and " – " in bands.format_range("rpo_local")
    data = bands.to_json_dict()
    assert set(data) == {f"{n}_p{q}" for n in BANDED for q in ("05", "50", "95")}
    assert data["rpo_local_p05"] == bands.range("rpo_local")[0]


@pytest.mark.parametrize("kwargs, match", [({"draws": 0}, r"draws = 0 is out of range"),
                                           ({"draws": 2.5}, r"draws = 2\.5 is out of range"),
                                           ({"seed": -1}, r"seed = -1 is not valid")])
def test_bad_draws_or_seed_are_refused(kwargs, match):
    with pytest.raises(ValueError, match=match):
        drmath.bands(Scenario(), **kwargs)


def test_the_report_shows_each_headline_band_and_none_without_uncertainty():
    import html as html_lib
    import re

    from drmath.report import build_report

    s = uncertain()
    page = build_report(s, include_plotlyjs=False)
    bands = drmath.bands(s)
    rows = dict(re.findall(r'<tr data-band="(\w+)"><td>[^<]*</td><td>[^<]*</td><td>([^<]*)</td></tr>', page))
    assert {name: html_lib.unescape(text) for name, text in rows.items()} == {
        name: bands.format_range(name) for name in CARDS if bands.varies(name)}  # a band only where it varies
    steady = [name for name in CARDS if not bands.varies(name)]
    assert steady and all(f"{card_title(name)} ({bands.plan.format(name)})" in html_lib.unescape(page)
                          for name in steady)
    assert 'id="bands"' not in build_report(Scenario(), include_plotlyjs=False)


def test_a_bound_that_is_not_a_number_names_the_spread_and_its_end():
    text = '[uncertainty]\n"failures.launch_time" = {low = "soon", high = "10 min"}\n'
    with pytest.raises(scenarios.ScenarioFileError, match=r"uncertainty\.failures\.launch_time\.low = 'soon' is "
                                                             r"not a number: must be in \[0, 86400\] \[s\]"):
        scenarios.loads(text, "x.toml")
