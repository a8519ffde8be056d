"""Text a reader can read, swept over every shipped scenario and every quantity (issue 34, item 3).

Each test reads what a person gets (``drmath plan``'s table, ``explain()`` of every quantity, the report, the
dashboard's cards, the figures' hover and axis labels) and asserts that none of it holds one class of defect:

- a TeX command turned into a word in plain text ("min_i m_i ≥ 0 wedge neg collapsed");
- scientific notation (``9.77e+12``, ``2e-11``), and for a count any exponent at all;
- a division by a bare 1 (``5.67 TB / 1``) or a symbol the derivation never defines (``c`` in ``S/c``);
- an amount of money multiplied without its unit (``$85.00 × 90.0 days``, an hourly price times days);
- a 90% range for a quantity that does not vary over the draws ("90.0 days – 90.0 days", "0 s – 0 s");
- a hover or axis label that reuses a word the page uses for something else ("target" for the replication
  interval, on a page whose targets are the requirements).
"""

import contextlib
import functools
import html
import io
import re

import pytest

import drmath
from drmath import formatting, quantities
from drmath.io import scenarios

SCENARIOS = {path.stem: path for path in scenarios.shipped_scenarios().values()}

_VARIANTS = {  # designs whose formulas take another form: each must define its own symbols too
    "multi-site": {"failover.tier": "multi-site"},
    "compressed, behind": {"replication.compression": 2.0, "replication.interval": 60.0, "checkpoint.interval": 30.0},
    "newest only": {"replication.policy": "newest", "replication.interval": 60.0, "checkpoint.interval": 30.0},
    "weibull": {"failures.weibull_shape": 0.7},
    "interval set": {"checkpoint.interval": 600.0, "failover.standby_fraction": 0.5},
}
_CASES = [(n, None) for n in SCENARIOS] + [("seed", v) for v in _VARIANTS]


# TeX commands a reader reads as words of mathematics (a function's name), allowed to stand as a word in plain text
_MATH_WORDS = {"max", "min", "ln", "log", "exp", "sup", "inf", "argmax", "argmin", "lim"}

_E_NOTATION = re.compile(r"(?<![\w.])\d+(?:\.\d+)?[eE][+-]?\d+(?!\w)")
_DIVIDED_BY_ONE = re.compile(r"/\s*\\text\{1\}(?![\w.,{])|\{\\text\{1\}\}|/ ?1(?![\w.,])")
# an amount in a product: \text{\$4.92} × … or … × \text{\$4.92}; it must carry its unit (\$4.92/GPU·h)
_BARE_PRICE = re.compile(r"\\text\{\\\$[\d.,]+[kMB]?\}\s*\\times|\\times\s*\\text\{\\\$[\d.,]+[kMB]?\}")


@functools.cache
def _plan(name):
    return drmath.plan(scenarios.load(SCENARIOS[name]))


@functools.cache
def _cli_text(name):
    from drmath import cli

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(["plan", str(SCENARIOS[name])]) == 0
    return out.getvalue()


def _explanations(name, variant=None):
    p = _plan(name) if variant is None else drmath.plan(_plan(name).scenario.with_changes(_VARIANTS[variant]))
    return {q: str(p.explain(q)) for q in list(quantities.QUANTITIES) + ["rto_local_phases", "rto_site_phases"]}


@functools.cache
def _report_text(name):
    from drmath import report

    page = report.build_report(scenarios.load(SCENARIOS[name]), include_plotlyjs=False)
    page = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)
    page = re.sub(r"<annotation\b.*?</annotation>", " ", page, flags=re.S)  # the TeX MathML keeps beside itself
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def _tex_commands(tex):
    return set(re.findall(r"\\([A-Za-z]+)", tex))


# --------------------------------------------------------------------------- TeX words


@pytest.mark.parametrize("name", SCENARIOS)
def test_no_tex_command_is_left_as_a_word_in_plain_text(name):
    # fails on "min_i m_i ≥ 0 wedge neg collapsed": \wedge and \neg were turned into their names
    p = _plan(name)
    for q in quantities.QUANTITIES:
        tex = quantities.QUANTITIES[q].tex(p)
        text = formatting.tex_text(tex)
        words = set(re.findall(r"[A-Za-z]+", text))
        leaked = {c for c in _tex_commands(tex) if c in words and c not in _MATH_WORDS
                  and c not in re.findall(r"\\(?:text|mathrm|operatorname)\{(\w+)\}", tex)}
        assert not leaked, (q, tex, text)
    cli = _cli_text(name)
    assert not re.search(r"\b(wedge|neg|vee|lnot|land|lor|cdot|times|frac|mathrm|text|left|right)\b", cli), cli


def test_logic_reads_as_words():
    assert formatting.tex_text(r"\min_i m_i \ge 0 \;\wedge\; \neg\,\text{collapsed}") == \
        "min_i m_i ≥ 0 and not collapsed"
    assert formatting.tex_text(r"a \vee b") == "a or b"


# --------------------------------------------------------------------------- scientific notation


@pytest.mark.parametrize("value, text", [
    (9.77e12, "9.77T"), (1.68e7, "16.8M"), (2.15e10, "21.5B"), (341.0, "341"), (8000.0, "8,000"),
    (1_500_000.0, "1,500,000"), (2.5, "2.50"),
])
def test_counts_read_without_an_exponent(value, text):
    assert formatting.format_quantity(value, "count") == text


def test_compute_reads_as_a_power_of_ten():
    assert formatting.format_quantity(2.37e25, "flop") == "2.37 × 10²⁵ FLOP"


@pytest.mark.parametrize("name", SCENARIOS)
def test_a_change_against_the_baseline_reads_in_its_unit(name):
    # fails on the dashboard's "tokens +2.15e+10"
    p = _plan(name)
    for q, quantity in quantities.QUANTITIES.items():
        if quantity.table or quantity.kind in ("flag", "hop"):
            continue
        value = float(getattr(p, q))
        text = formatting.change(value * 1.002 + 1.0, value, quantity.kind)
        assert not _E_NOTATION.search(text), (q, text)
    assert formatting.change(9.792e12, 9.77e12, "count") == "+22.0B"


# --------------------------------------------------------------------------- the dashboard's cards


def _page_text(value):
    return html.unescape(re.sub(r"<[^>]+>", " ", value))


@pytest.mark.parametrize("name", SCENARIOS)
@pytest.mark.parametrize("change", ["small", "large"])
def test_cards_and_their_change_against_the_baseline_read_plainly(name, change):
    # fails on the cards' change line "unchanged; tokens +2.15e+10 vs baseline" (a move under 0.5% is written
    # in the quantity's unit, and a count's unit was an exponent)
    from drmath import dashboard

    s = scenarios.load(SCENARIOS[name])
    app = dashboard.Dashboard(s)
    app.pin_baseline()
    changes = ({"failures.gpu_failure_rate": s.failures.gpu_failure_rate * 1.05} if change == "small" else
               {"training.gpus": int(s.training.gpus * 1.1), "failover.tier": "hot"})
    assert app.apply(changes)
    app.compare_view.toggle.value = True
    texts = {card: _page_text(w.value) for card, w in app.cards.items()}
    assert any("vs baseline" in t for t in texts.values())
    texts["compare with baseline"] = _page_text(app.compare_view.table.value)
    for where, text in texts.items():
        assert not _E_NOTATION.search(text), (where, text)


# --------------------------------------------------------------------------- division by 1, prices and units


@pytest.mark.parametrize("name, variant", _CASES)
def test_no_division_by_a_bare_one(name, variant):
    # fails on "5.67 TB / 1": the compression ratio c = 1 substituted
    for q, text in _explanations(name, variant).items():
        assert not _DIVIDED_BY_ONE.search(text), (q, text)
    assert not re.search(r"/1\b", _cli_text(name))


@pytest.mark.parametrize("name, variant", _CASES)
def test_every_price_carries_its_unit_and_is_multiplied_by_its_unit(name, variant):
    # fails on "$22.50 × 90.0 days" (an hourly price times days) and "25.0% × $4.92 × 8,000 × 90.0 days"
    for q, text in _explanations(name, variant).items():
        assert not _BARE_PRICE.search(text), (q, text)
        for term in re.split(r"\s(?:\+|=)\s", text):  # each product of a sum
            if re.search(r"\\text\{\\\$[\d.,]+[kMB]?/(?:GPU·)?h\}", term):
                assert "days" not in term and "min}" not in term, (q, term)


def test_prices_read_in_the_units_they_are_sold_in():
    from drmath.units import GB, Gbit_per_s

    assert formatting.format_quantity(0.02 / GB, "usd_per_byte") == "$0.02/GB"
    assert formatting.format_quantity(0.023 / GB, "usd_per_byte_month") == "$0.023/GB·month"
    assert formatting.format_quantity(0.2125 / Gbit_per_s, "usd_per_bandwidth_hour") == "$0.212/(Gbit/s·h)"
    assert formatting.format_quantity(4.92, "usd_per_gpu_hour") == "$4.92/GPU·h"
    assert formatting.format_quantity(22.5, "usd_per_hour") == "$22.50/h"
    assert formatting.format_quantity(90 * 86400.0, "hours") == "2,160 h"


@pytest.mark.parametrize("name", SCENARIOS)
def test_no_scientific_notation_anywhere_a_reader_reads(name):
    # fails on "9.77e+12" tokens, "2.37e+25 FLOP", "1.68e+07" batch tokens, "2e-11 × 11.8 PB" egress prices
    texts = {"drmath plan": _cli_text(name), **_explanations(name), "report": _report_text(name)}
    for where, text in texts.items():
        found = _E_NOTATION.findall(text)
        assert not found, (where, found)


# --------------------------------------------------------------------------- symbols defined


@pytest.mark.parametrize("name", SCENARIOS)
def test_the_compression_ratio_is_defined_wherever_it_stands(name):
    # fails on "S/c" with c never said: every derivation whose formula divides by c says what c is
    p = _plan(name)
    for q, quantity in quantities.QUANTITIES.items():
        tex = quantity.tex(p)
        if re.search(r"/\s*c\b|\{c\}", tex):
            text = str(p.explain(q))
            assert re.search(r"\$c\$ is|\bc\b is|c, the compression", text), (q, text)


# --------------------------------------------------------------------------- bands only where the quantity varies


def _fleet_fit_scenario():
    """A scenario after a fleet fit: a spread on the failure rate only (the window fixes the run's length)."""
    s = drmath.Scenario()
    rate = s.failures.gpu_failure_rate
    return s.replace(**{"uncertainty.failures.gpu_failure_rate": (0.7 * rate, 1.4 * rate)})


def test_a_band_is_shown_only_where_the_quantity_varies():
    # fails on "90.0 days – 90.0 days" and "0 s – 0 s": every card showed a 90% range after a fleet fit
    s = _fleet_fit_scenario()
    b = drmath.bands(s, draws=200)
    assert not b.varies("time_to_train") and not b.varies("reduced_capacity_time")
    assert b.varies("ettr") and b.varies("rpo_local")
    from drmath.cli import render_table

    table = render_table(b.plan, b)
    assert not re.search(r"90% range (\S+ \S+) – \1(?!\S)", table), table
    assert "90% range" in table  # where the quantity varies, its band is still there
    from drmath.dashboard.bands import band_html

    for name in quantities.BANDED:
        assert bool(band_html(b, name)) == b.varies(name), name
    from drmath import report

    rows = report._bands(s, draws=200)["rows"]
    assert {r["field"] for r in rows} == {n for n in quantities.BANDED if b.varies(n)}
    for r in rows:
        assert not re.search(r"90% range (\S+ \S+) – \1$", r["range"]), r


def test_cards_after_a_fleet_fit_show_a_band_only_where_the_quantity_varies():
    from drmath import dashboard

    s = _fleet_fit_scenario()
    app = dashboard.Dashboard(s)
    texts = {card: _page_text(w.value) for card, w in app.cards.items()}
    assert any("90% range" in t for t in texts.values())
    for card, text in texts.items():
        assert not re.search(r"90% range (\S+ \S+) – \1(?!\S)", text), (card, text)


# --------------------------------------------------------------------------- figures' words


def _labels(spec):
    layout = spec["layout"]
    texts = [t.get("hovertemplate", "") for t in spec["data"]]
    texts += [v["title"]["text"] for k, v in layout.items() if k.startswith(("xaxis", "yaxis")) and "title" in v]
    return texts


@pytest.mark.parametrize("figure", ["rpo", "rpo_link"])
def test_figure_labels_never_call_the_replication_interval_a_target(figure):
    # fails on the RPO chart's hover "target 232 min / worst 242 min": "target" on this page is a requirement
    from drmath import viz

    for text in _labels(viz.figure_spec(figure, drmath.plan())):
        assert "target" not in text.lower(), text


def test_the_comparison_never_calls_the_replication_interval_a_target():
    from drmath import viz
    from drmath.viz.comparison import compare_spec

    plans = [drmath.plan(drmath.Scenario().with_changes({"failover.tier": t})) for t in ("cold", "hot")]
    spec = compare_spec(plans, ["cold", "hot"])
    layout = spec["layout"]
    titles = [v["title"]["text"] for k, v in layout.items() if k.startswith(("xaxis", "yaxis")) and "title" in v]
    titles += [a.get("text", "") for a in layout.get("annotations", [])]
    assert not [t for t in titles if "target" in t.lower()], titles
    assert not [c for c in (f.caption for f in viz.registry.FIGURES.values()) if "replication target" in c]
    from drmath.scenario import FIELDS

    assert "target" not in FIELDS["replication.interval"].doc.lower()  # its slider's tooltip and the report's row


# --------------------------------------------------------------------------- every symbol defined

_NOT_SYMBOLS = {  # TeX commands that are operators, functions, spacing or layout, not quantities
    "frac", "tfrac", "dfrac", "sqrt", "max", "min", "exp", "ln", "log", "sup", "inf", "sum", "left", "right", "big",
    "bigl", "bigr", "Big", "cdot", "times", "le", "leq", "ge", "geq", "lceil", "rceil", "lfloor", "rfloor", "infty",
    "quad", "qquad", "text", "operatorname", "wedge", "neg", "vee", "to", "approx", "ne", "pm", "mathrm"}
_TOKEN = re.compile(r"(\\mathrm\{[A-Za-z]+\}|\\[A-Za-z]+|[A-Za-z])((?:_\{[^{}]*\}|_[A-Za-z0-9])?)"
                    r"((?:\^\{[A-Za-z*]+\}|\^[A-Za-z0-9*])?)")


def _symbols(tex):
    """The symbols of a formula, as TeX: ``t_{rep}``, ``\\mathrm{RPO}_{site}``, ``\\tau^*``; numbers, operators,
    words in ``\\text{}``, Euler's e and the indices i and j left out, a power (``\\delta^2``) read as its base."""
    tex = re.sub(r"\\(?:text|operatorname)\s*\{[^{}]*\}", " ", tex)
    found = set()
    for m in _TOKEN.finditer(tex):
        base, sub, sup = m.groups()
        if base.startswith("\\") and not base.startswith("\\mathrm") and base[1:] in _NOT_SYMBOLS:
            continue
        if base in ("i", "j", "e"):  # indices, and Euler's number
            continue
        if re.fullmatch(r"\^\{?\d+\}?", sup):
            sup = ""  # a power, not another symbol
        found.add(base + sub + sup)
    return found


def test_the_symbol_reader_reads_symbols():
    assert _symbols(r"\mathrm{RPO}_{site} = k\tau + W + t_{rep}") == {r"\mathrm{RPO}_{site}", "k", r"\tau", "W",
                                                                     "t_{rep}"}
    assert _symbols(r"\tau_A = \delta + \sqrt{2\,(M + u_0)\,\delta + \delta^2}") == {r"\tau_A", r"\delta", "M", "u_0"}
    assert _symbols(r"P = 1 - e^{-n_s\,\lambda_s T} \quad \text{month}") == {"P", "n_s", r"\lambda_s", "T"}


@pytest.mark.parametrize("name, variant", _CASES)
def test_every_symbol_of_every_formula_is_defined_in_its_derivation(name, variant):
    # fails on "c in S/c never defined": each derivation's where line says what each of its formula's symbols is
    p = _plan(name) if variant is None else drmath.plan(_plan(name).scenario.with_changes(_VARIANTS[variant]))
    missing = {}
    for q, quantity in quantities.QUANTITIES.items():
        text = str(p.explain(q))
        where = next((line for line in text.split("\n\n") if line.startswith("Where ")), "")
        defined = set().union(*(_symbols(s) for s in re.findall(r"\$([^$]+)\$ is", where))) if where else set()
        undefined = _symbols(quantity.tex(p)) - defined
        if undefined:
            missing[q] = sorted(undefined)
    assert not missing, missing
