import json
import re
import subprocess
import sys

import pytest

import drmath
from drmath import Scenario, plan, quantities
from drmath.cli import _GROUPS, main, shipped_names
from drmath.io import fits, scenarios


def test_table(capsys):
    assert main(["plan"]) == 0
    out = capsys.readouterr().out
    assert "Site RPO (worst)" in out and plan().format("rpo_site") in out
    assert "RPO_site = kτ + W + t_rep" in out  # each number with its formula


def test_table_groups_are_the_registry_groups(capsys):
    # fails if a quantity is listed by hand again (the old list lacked fleet_cost_rate and two more)
    assert list(_GROUPS) == [g.title for g in quantities.GROUPS.values()]
    assert [n for names in _GROUPS.values() for n in names] == list(quantities.SCALARS)
    assert main(["plan"]) == 0
    out, p = capsys.readouterr().out, plan()
    for name in ("checkpoint_interval_floor", "fleet_cost_rate", "replication_bandwidth_needed"):
        assert re.search(rf"\n  {re.escape(quantities.QUANTITIES[name].title)} +{re.escape(p.format(name))} ", out)


def test_json_matches_plan(capsys):
    assert main(["plan", "--json", "--set", "training.gpus=16384", "--set", "failover.tier=hot"]) == 0
    data = json.loads(capsys.readouterr().out)
    p = plan(Scenario().with_changes({"training.gpus": 16_384, "failover.tier": "hot"}))
    assert data["mtbf"] == pytest.approx(p.mtbf) and data["rto_site"] == pytest.approx(p.rto_site)


def test_units_and_presets_in_set(capsys):
    assert main(["plan", "--json", "--set", "replication.link_bandwidth=1 Gbps",
                 "--set", "failures.gpu_failure_rate=rsc-1", "--set", "checkpoint.interval=10 min"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["rpo_site"] is None and data["rpo_site_unbounded"] is True
    assert data["checkpoint_interval"] == pytest.approx(600.0)


def test_scenario_file(tmp_path, capsys):
    f = tmp_path / "s.toml"
    f.write_text('[training]\ngpus = 2048\nparams = 70.55e9\n\n[failover]\ntier = "cold"\n')
    assert main(["plan", str(f), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["checkpoint_size"] == pytest.approx(70.55e9 * 14)


@pytest.mark.parametrize("argv, match", [
    (["plan", "--set", "training.mfu=1.5"], r"training.mfu = 1.5 is out of range"),
    (["plan", "--set", "training.gpus=lots"], r"training.gpus = 'lots' is not a number"),
    (["plan", "--set", "nosuch.x=1"], r"unknown field 'nosuch.x'"),
    (["plan", "--set", "training.gpus"], r"must look like section.field=value"),
    (["plan", "missing.toml"], r"missing.toml: cannot read"),
    (["plan", "--bogus"], r"unrecognized arguments: --bogus"),
])
def test_errors_exit_2_with_one_line(argv, match, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("drmath: error: ")
    assert __import__("re").search(match, err)


def test_bad_toml_names_file_field_and_line(tmp_path, capsys):
    f = tmp_path / "bad.toml"
    f.write_text('[training]\ngpus = 4096\nmfu = 2\n')
    assert main(["plan", str(f)]) == 2
    err = capsys.readouterr().err
    assert "bad.toml: training.mfu = 2 is out of range" in err and "(line 3)" in err
    f.write_text('[training]\ngpus = 1\n[cost\n')  # the syntax error is on line 3
    assert main(["plan", str(f)]) == 2
    err = capsys.readouterr().err
    assert "bad.toml: not valid TOML" in err and "line 3" in err, err


def test_console_script_no_traceback():
    proc = subprocess.run([sys.executable, "-m", "drmath", "plan", "--set", "training.mfu=nan"],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and "training.mfu = nan is not finite" in proc.stderr


def test_a_closed_pipe_is_not_an_error(monkeypatch):
    # `drmath plan | head -1`: the reader leaves early; no traceback, exit 0
    class ClosedPipe:
        def write(self, text):
            raise BrokenPipeError(32, "Broken pipe")

        def flush(self):
            raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    assert main(["plan"]) == 0


# --------------------------------------------------------------------------- shipped scenarios by name


def test_shipped_names_are_the_shipped_files():
    assert shipped_names() == sorted(p.stem for p in scenarios.SCENARIO_DIR.glob("*.toml"))
    assert "seed" in shipped_names() and "llama3-405b" in shipped_names()


def test_plan_takes_a_shipped_name(capsys):
    assert main(["plan", "llama3-405b", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    want = plan(scenarios.load(scenarios.SCENARIO_DIR / "llama3-405b.toml"))
    assert want.scenario != Scenario()  # fails if the name fell back to the default scenario
    assert data["mtbf"] == pytest.approx(want.mtbf) and data["checkpoint_size"] == pytest.approx(want.checkpoint_size)


def test_compare_takes_shipped_names(capsys):
    assert main(["compare", "seed", "llama3-405b", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["scenarios"] == ["seed", "llama3-405b"]
    assert data["files"] == [str(scenarios.SCENARIO_DIR / f"{name}.toml") for name in ("seed", "llama3-405b")]
    mtbf = next(r for r in data["rows"] if r["field"] == "mtbf")
    assert mtbf["values"][1] == pytest.approx(plan(scenarios.load(scenarios.SCENARIO_DIR / "llama3-405b.toml")).mtbf)
    assert main(["compare", "seed", "llama3-405b"]) == 0
    assert "Llama 3 405B: 16,384 H100s" in capsys.readouterr().out  # the column is the file's [scenario] name


def test_report_takes_a_shipped_name(tmp_path):
    out = tmp_path / "plan.html"
    assert main(["report", "llama3-70b-2048", "-o", str(out), "--quiet"]) == 0
    from markupsafe import escape

    description = scenarios.read_meta(scenarios.SCENARIO_DIR / "llama3-70b-2048.toml")["description"]
    assert description and f'<p class="lead">{escape(description)}</p>' in out.read_text()
    gpus = scenarios.load(scenarios.SCENARIO_DIR / "llama3-70b-2048.toml").training.gpus
    assert f"<title>Disaster-recovery plan: {gpus:,} GPUs" in out.read_text()


def test_an_existing_file_wins_over_a_shipped_name(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "seed").write_text("[training]\ngpus = 2048\n")
    assert main(["plan", "seed", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["mtbf"] == pytest.approx(
        plan(Scenario().with_changes({"training.gpus": 2048})).mtbf)


@pytest.mark.parametrize("argv", [["plan", "llama4"], ["compare", "seed", "llama4"],
                                  ["report", "llama4", "-o", "x.html"]])
def test_an_unknown_name_lists_the_shipped_ones(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err == (f"drmath: error: 'llama4' is neither a file nor a shipped scenario: choose from "
                   f"{', '.join(shipped_names())}\n")


@pytest.mark.parametrize("arg", ["seed.toml", "sub/seed"])
def test_a_path_is_never_taken_for_a_name(arg, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # neither exists here: read as a path, and the read fails
    assert main(["plan", arg]) == 2
    assert f"{arg}: cannot read" in capsys.readouterr().err


# --------------------------------------------------------------------------- issue 23: the bands


SPREAD = "--set", "uncertainty.failures.gpu_failure_rate=4e-09,7e-09"


def test_plan_json_adds_each_headline_band_when_the_scenario_is_uncertain(capsys):
    assert main(["plan", "--json", *SPREAD, "--draws", "300", "--seed", "4"]) == 0
    data = json.loads(capsys.readouterr().out)
    import drmath

    s = Scenario().replace(**{"uncertainty.failures.gpu_failure_rate": (4e-9, 7e-9)})
    bands = drmath.bands(s, draws=300, seed=4)
    for name in quantities.BANDED:
        assert [data[f"{name}_p{q}"] for q in ("05", "50", "95")] == pytest.approx(bands.percentiles[name])
    assert data["rpo_local_p05"] < data["rpo_local_p50"] < data["rpo_local_p95"]
    assert data["rpo_local"] == pytest.approx(plan(s).rpo_local)  # the point plan is still there


def test_plan_json_has_no_bands_without_uncertainty(capsys):
    assert main(["plan", "--json"]) == 0
    assert not [key for key in json.loads(capsys.readouterr().out) if key.endswith("_p05")]


def test_plan_text_shows_the_90_percent_range_under_each_headline(capsys):
    assert main(["plan", *SPREAD]) == 0
    lines = capsys.readouterr().out.splitlines()
    title = quantities.QUANTITIES["rpo_local"].title
    at = next(i for i, line in enumerate(lines) if line.strip().startswith(title))
    assert re.fullmatch(r" +90% range [\d.]+ min – [\d.]+ min", lines[at + 1])
    b = drmath.bands(Scenario().replace(**{"uncertainty.failures.gpu_failure_rate": (4e-09, 7e-09)}))
    varying = [n for n in quantities.BANDED if b.varies(n) and quantities.QUANTITIES[n].kind != "flag"]
    assert 0 < len(varying) < len(quantities.BANDED)  # the window fixes the run's length: not every one varies
    assert sum("90% range" in line for line in lines) == len(varying)  # a band only where the quantity varies


@pytest.mark.parametrize("argv, match", [
    (["plan", "--draws", "5"], "--draws 5 is out of range"),
    (["plan", "--seed", "-2"], "--seed -2 must be >= 0"),
    (["plan", "--set", "uncertainty.failures.gpu_failure_rate=7e-09,4e-09"],
     r"uncertainty\.failures\.gpu_failure_rate = .* out of range"),
])
def test_bad_draws_seed_or_spread_exit_2(argv, match, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert re.search(match, err) and len(err.strip().splitlines()) == 1


def test_solve_merges_a_calibrated_fragment_and_answers_at_a_confidence(tmp_path, capsys):
    from drmath.calibrate import fit_events

    fit = fit_events([0.0, 3000.0, 9000.0, 10000.0, 18000.0, 21000.0, 30000.0], 0.0, 36000.0, gpus=4096)
    (tmp_path / "fleet.toml").write_text(fits.fragment(fit))
    assert main(["solve", "seed", str(tmp_path / "fleet.toml"), "--confidence", "0.9", "--draws", "50",
                 "--json"]) in (0, 1)
    data = json.loads(capsys.readouterr().out)
    assert data["design"]["failures.gpu_failure_rate"] == pytest.approx(fit.gpu_failure_rate)
    assert data["confidence"] == 0.9 and "point_design_miss_probability" in data
