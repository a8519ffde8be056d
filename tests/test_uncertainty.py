"""Issue 23, part 3: a scenario's inputs carry their uncertainty, and every headline number gets its 90% range."""


import pytest

from drmath import Scenario, scenario_io
from drmath.calibrate import fit_events
from drmath.scenario import Spread

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
    s = scenario_io.loads(text)
    assert s.uncertainty["failures.launch_time"] == Spread(120.0, 600.0, "uniform", 0.95)
    assert s.uncertainty[RATE].distribution == "lognormal"
    assert scenario_io.loads(scenario_io.dumps(s)) == s


def test_a_bad_toml_spread_names_the_file_and_the_field():
    text = '[uncertainty]\n"failures.launch_time" = {low = "20 min", high = "10 min"}\n'
    with pytest.raises(scenario_io.ScenarioFileError, match=r"^x\.toml: uncertainty\.failures\.launch_time = "):
        scenario_io.loads(text, "x.toml")


def test_a_share_link_round_trips_the_spreads():
    s = uncertain(**{"uncertainty.failures.launch_time": {"low": 60.0, "high": 600.0, "distribution": "uniform",
                                                         "confidence": 0.9}})
    query = scenario_io.to_query(s)
    assert "uncertainty.failures.gpu_failure_rate=" in query
    assert scenario_io.from_query(query) == (s, None)
    back = scenario_io.to_query(Scenario(), base=s)  # a link from a scenario with spreads to one without
    assert scenario_io.from_query(back, base=s) == (Scenario(), None)


def test_a_bad_spread_in_a_link_falls_back_with_a_notice():
    s, notice = scenario_io.from_query("uncertainty.failures.gpu_failure_rate=4e-10,1e-10")
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

    (tmp_path / "fleet.toml").write_text(FIT.fragment())
    (tmp_path / "base.toml").write_text("[training]\ngpus = 4096\n")
    merged = cli.load_merged([tmp_path / "base.toml", tmp_path / "fleet.toml"])
    assert merged == FIT.apply(Scenario().with_changes({"training.gpus": 4096}))
