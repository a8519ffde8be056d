"""Side by side: compare_rows/text/html/figure and ``drmath compare``."""

import json
import re

import pytest

from drmath import Scenario, comparison, plan, quantities, viz
from drmath.cli import main
from drmath.io import scenarios

SEED, L405, L70, BIG = (str(scenarios.SCENARIO_DIR / n) for n in
                        ("seed.toml", "llama3-405b.toml", "llama3-70b-2048.toml", "frontier-100k-rsc1.toml"))


def test_rows_mark_what_differs_from_the_first():
    a = plan()
    b = plan(Scenario().with_changes({"failover.tier": "hot"}))
    rows = {r["field"]: r for r in comparison.compare_rows([a, b, a])}
    assert rows["rto_site"]["differs"] == [False, True, False]
    assert rows["rto_site"]["texts"] == [a.format("rto_site"), b.format("rto_site"), a.format("rto_site")]
    assert rows["mtbf"]["differs"] == [False, False, False]
    assert rows["ettr"]["values"] == [a.ettr, b.ettr, a.ettr]


def test_rows_are_the_compare_frame():
    import drmath

    a, b = plan(), plan(Scenario().with_changes({"replication.link_bandwidth": 1e8}))
    rows = comparison.compare_rows([a, b])
    frame = drmath.compare([a, b], ["a", "b"])
    assert [r["field"] for r in rows] == list(frame.index) == list(quantities.COMPARED)
    for r in rows:
        assert r["title"] == frame.loc[r["field"], "title"]
        assert r["values"] == [frame.loc[r["field"], "a"], frame.loc[r["field"], "b"]]
        assert all(type(v) in (bool, int, float) for v in r["values"])  # plain Python, ready for JSON


@pytest.mark.parametrize("n", [1, 5])
def test_two_to_four(n):
    with pytest.raises(ValueError, match="compare needs 2 to 4 scenarios"):
        comparison.compare_rows([plan()] * n)


def test_unbounded_values_compare_equal():
    slow = plan(Scenario().with_changes({"replication.link_bandwidth": 1e8}))
    row = comparison.compare_rows([slow, slow], ["rpo_site"])[0]
    assert row["texts"] == ["no bound", "no bound"] and row["differs"] == [False, False]


def test_html_and_figure():
    a, b = plan(), plan(Scenario().with_changes({"training.gpus": 16_384}))
    html = comparison.compare_html([a, b], ["seed", "<b>16k</b>"])
    assert html.count('class="differs"') >= 5 and "&lt;b&gt;16k" in html
    fig = viz.compare_figure([a, b], ["seed", "16k"])
    assert len(fig.data) == 12 and {t.name for t in fig.data if t.showlegend} == {"seed", "16k"}


def _highlighted(html):
    """The (row, column) of each cell the Styler's CSS highlights."""
    tint = viz.PALETTE["amber-tint"]
    cells = set()
    for selectors in re.findall(r"((?:#T_\w+_row\d+_col\d+(?:, )?)+) \{\n  background-color: " + tint, html):
        cells |= {(int(r), int(c)) for r, c in re.findall(r"_row(\d+)_col(\d+)", selectors)}
    return cells


def test_style_is_the_compare_frame_formatted_and_highlighted():
    import drmath

    a = plan()
    b = plan(Scenario().with_changes({"failover.tier": "hot", "replication.link_bandwidth": 1e8}))
    plans, names = [a, b, a], ["warm", "<b>hot</b>", "warm again"]
    style = comparison.compare_style(plans, names)
    frame = drmath.compare(plans, names)
    assert style.data.equals(frame[names])  # the numbers underneath stay the SI values of drmath.compare
    lines = style.to_string(delimiter="\t").splitlines()
    assert lines[0].split("\t")[1:] == ["warm", "&lt;b&gt;hot&lt;/b&gt;", "warm again"]  # a name is never markup
    rows = comparison.compare_rows(plans)
    assert [line.split("\t")[0] for line in lines[1:]] == [r["title"] for r in rows]
    for line, row in zip(lines[1:], rows, strict=True):
        # each cell as Plan.format writes it; a cell that differs carries its change, as compare_text shows it
        want = [t + (comparison._change(v, row["values"][0]) if d else "")
                for t, v, d in zip(row["texts"], row["values"], row["differs"], strict=True)]
        assert line.split("\t")[1:] == want, row["field"]
    differs = {(i, j) for i, row in enumerate(rows) for j, d in enumerate(row["differs"]) if d}
    assert differs and _highlighted(style.to_html()) == differs
    rto = next(r for r in rows if r["field"] == "rto_site")
    assert lines[1 + rows.index(rto)].split("\t")[2] == f"{b.format('rto_site')} (-50%)"


def test_style_of_chosen_fields():
    a, b = plan(), plan(Scenario().with_changes({"training.gpus": 16_384}))
    style = comparison.compare_style([a, b], ["seed", "16k"], ["mtbf", "checkpoint_size"])
    assert list(style.data.index) == ["mtbf", "checkpoint_size"]
    assert _highlighted(style.to_html()) == {(0, 1)}  # more GPUs fail more often; the checkpoint is the same
    with pytest.raises(ValueError, match="compare needs 2 to 4 scenarios, got 1"):
        comparison.compare_style([a], ["seed"])
    with pytest.raises(ValueError, match="unknown plan field 'nope'"):
        comparison.compare_style([a, b], ["seed", "16k"], ["nope"])


def test_cli_compare(capsys):
    assert main(["compare", SEED, L405, L70, BIG]) == 0
    out = capsys.readouterr().out
    # the inputs that differ come first, in readable units, a preset by its name
    assert out.index("input that differs") < out.index("training.gpus") < out.index("quantity")
    assert "dx-400g · 400 Gbit/s *" in out and "hot *" in out and "rsc-1 · " in out
    assert "Llama 3 405B: 16,384 H100s" in out and "*" in out
    assert plan(scenarios.load(BIG)).format("mtbf") in out


def test_cli_compare_json(capsys):
    assert main(["compare", SEED, L405, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    mtbf = next(r for r in data["rows"] if r["field"] == "mtbf")
    assert data["scenarios"] == ["seed", "llama3-405b"]
    assert mtbf["values"][1] == pytest.approx(plan(scenarios.load(L405)).mtbf) and mtbf["differs"] == [False, True]
    assert list(data) == ["scenarios", "files", "inputs", "rows"]  # the inputs that differ come first
    inputs = {r["field"]: r for r in data["inputs"]}
    assert inputs["training.gpus"]["values"] == [8000, 16384] and inputs["training.gpus"]["differs"] == [False, True]
    assert inputs["training.gpus"]["texts"] == ["8,000", "16,384"]
    assert "failover.tier" not in inputs  # the same in both
    assert all(set(r) == {"field", "title", "texts", "differs", "values"} for r in data["inputs"])
    assert [r["field"] for r in data["rows"]] == list(quantities.COMPARED)
    assert all(set(r) == {"field", "title", "texts", "differs", "values"} for r in data["rows"])


@pytest.mark.parametrize("argv, match", [
    (["compare", SEED], "compare needs 2 to 4 scenario files, got 1"),
    (["compare", SEED, SEED, SEED, SEED, SEED], "got 5"),
    (["compare", SEED, "nope.toml"], "nope.toml: cannot read"),
])
def test_cli_compare_errors(argv, match, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and match in err


def test_compare_inputs_lists_what_differs():
    from drmath.units import Gbit_per_s

    a = plan()
    b = plan(a.scenario.with_changes({"replication.link_bandwidth": 200 * Gbit_per_s, "training.mfu": 0.35,
                                      "checkpoint.interval": 600.0}))
    rows = comparison.compare_inputs([a, b, a])
    assert [r["field"] for r in rows] == ["training.mfu", "checkpoint.interval", "replication.link_bandwidth"]
    by = {r["field"]: r for r in rows}
    assert by["replication.link_bandwidth"]["texts"][1] == "200 Gbit/s"
    assert by["training.mfu"]["texts"] == ["40%", "35%", "40%"]
    assert by["training.mfu"]["differs"] == [False, True, False]
    assert by["checkpoint.interval"]["values"] == [None, 600.0, None]
    assert by["checkpoint.interval"]["texts"][0] == "unset"
    assert comparison.compare_inputs([a, a]) == []
    text = comparison.compare_text([a, a], ["x", "y"])
    assert "input that differs" not in text and text.startswith("quantity")
