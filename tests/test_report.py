"""The standalone report: its content, its safety, and the real page in headless Chromium."""

import json
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest
from latex2mathml.converter import convert
from markupsafe import escape

from drmath import Scenario, comparison, plan, presets, quantities, report
from drmath.cli import main
from drmath.io import scenarios
from drmath.viz import headline

sys.path.insert(0, str(Path(__file__).resolve().parent))  # pytest runs with --import-mode=importlib
from conftest import problems, watch  # noqa: E402

SEED = scenarios.SCENARIO_DIR / "seed.toml"


@pytest.fixture(scope="module")
def report_file(tmp_path_factory):
    """The seed scenario's report, written once through the CLI."""
    out = tmp_path_factory.mktemp("report") / "plan.html"
    assert main(["report", str(SEED), "-o", str(out), "--quiet"]) == 0
    return out


def test_every_quantity_has_its_derivation(report_file):
    html = report_file.read_text()
    p = plan()
    cards = re.findall(r'<div class="card" id="d-(\w+)">', html)
    assert cards == list(quantities.QUANTITIES)  # every quantity of the registry, once, in reading order
    for name in quantities.SCALARS:
        assert f'data-field="{name}"' in html
        assert f">{escape(p.format(name))}</span>" in html
    # formulas are MathML: a display formula per derivation, fractions typeset by the browser
    assert html.count('<div class="math"><math display="block">') >= 2 * len(quantities.SCALARS) - 2
    body = html.split("</head>", 1)[1].rsplit("<script>", 1)[0]  # the page without plotly.js and figure data
    assert "<mfrac>" in body and "$$" not in body and "\\frac" not in body


def test_sections_and_headline_read_the_registry(report_file):
    html = report_file.read_text()
    assert [s[0] for s in report.REPORT_SECTIONS] == list(quantities.GROUPS)
    for sid, title, lead, names, _ in report.REPORT_SECTIONS:
        group = quantities.GROUPS[sid]
        assert (title, lead, names) == (report.SECTION_TITLES[sid], group.lead, quantities.in_group(sid))
        assert title.endswith(f". {group.title}")
        assert f'<section id="{sid}"><h2>{escape(title)}</h2><p class="lead">{escape(lead)}</p>' in html
    assert report.HEADLINE == list(headline.CARDS) and comparison.COMPARE_FIELDS == list(quantities.COMPARED)
    kpis = re.findall(r'<a class="kpi(?: bad)?" href="#d-(\w+)"><span class="label">([^<]*)</span>', html)
    assert kpis == [(n, str(escape(headline.card_title(n)))) for n in headline.CARDS]


def test_figures_stand_in_the_sections_they_illustrate(report_file):
    html = report_file.read_text()
    for sid, *_, figs in report.REPORT_SECTIONS:
        section = html.split(f'<section id="{sid}">', 1)[1].split("</section>", 1)[0]
        assert re.findall(r'<div class="plot drmath-figure" id="fig-(\w+)">', section) == figs, sid
    shown = [f for *_, figs in report.REPORT_SECTIONS for f in figs]
    assert sorted(shown) == sorted(report.FIGURES) and {"rpo_link", "standby"} <= set(shown)
    assert "fig-time_mfu" not in html  # a flat line for a scenario that fixes the window: notebooks only


def test_self_contained(report_file):
    html = report_file.read_text()
    from drmath import viz
    bundle = viz.PLOTLY_BASIC_JS.read_text(encoding="utf-8")
    assert bundle in html and "Plotly.newPlot" in html  # plotly.js (the basic bundle) inlined
    assert not re.search(r"""<(script|link|img)[^>]+(src|href)=["']?https?:""", html)
    rest = html.replace(bundle, "")
    assert "MathJax" not in rest and "<script src" not in rest  # the browser typesets the MathML itself
    assert not re.search(r"https?:|//cdn|url\(", rest)  # no URL at all outside the inlined plotly.js


def test_the_page_takes_its_colours_from_the_palette(report_file):
    from drmath import viz
    style = report_file.read_text().split("<style>", 1)[1].split("</style>", 1)[0]
    assert style.lstrip().startswith(viz.css_variables()) and "var(--drmath-red-tint)" in style


def test_same_scenario_same_bytes(report_file, tmp_path):
    again = tmp_path / "again.html"
    assert main(["report", str(SEED), "-o", str(again), "--quiet"]) == 0
    assert again.read_bytes() == report_file.read_bytes()


def test_hostile_description_and_title_are_text(tmp_path):
    hostile = "</title><script>alert(1)</script> <img src=x onerror=alert(2)> {{ 7*7 }} **bold** $x$"
    f = tmp_path / "h.toml"
    f.write_text(f"[scenario]\nname = 'h'\ndescription = {json.dumps(hostile)}\n")
    out = tmp_path / "h.html"
    assert main(["report", str(f), "-o", str(out), "--quiet"]) == 0
    html = out.read_text()
    assert f'<p class="lead">{escape(hostile)}</p>' in html  # escaped, and neither Markdown nor a template
    assert "alert(" not in html.replace(str(escape(hostile)), "")
    html = report.build_report(Scenario(), title=hostile, include_plotlyjs=False)
    assert f"<title>{escape(hostile)}</title>" in html and "<script>alert" not in html


def test_sliders_are_precomputed_from_plan():
    figs = report.report_figures(Scenario())
    gpus = figs["ettr"]["layout"]["sliders"][0]
    labels = [s["label"] for s in gpus["steps"]]
    assert "8,000" in labels and labels[gpus["active"]] == "8,000" and len(labels) >= 8
    # a step's title carries that step's plan() number
    p16 = plan(Scenario().with_changes({"training.gpus": 16_384}))
    step = gpus["steps"][labels.index("16,384")]
    assert p16.format("ettr") in step["args"][1]["title.text"]
    tiers = figs["rto"]["layout"]["sliders"][0]["steps"]
    hot = plan(Scenario().with_changes({"failover.tier": "hot"}))
    assert hot.format("rto_site") in tiers[3]["args"][1]["title.text"]
    for fig in figs.values():
        slider = fig["layout"]["sliders"][0]
        assert all(len(v) == len(fig["data"]) for s in slider["steps"] for v in s["args"][0].values())


def test_report_of_a_scenario_that_falls_behind(tmp_path):
    s = Scenario().with_changes({"replication.link_bandwidth": 1e8, "checkpoint.interval": 1.0})
    html = report.build_report(s, include_plotlyjs=False)
    assert "Replication does not keep up" in html and 'class="kpi bad"' in html
    assert "below the floor" in html
    assert 'data-field="rpo_site" data-si="inf"' in html


def test_bad_scenario_writes_nothing(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text("[checkpoint]\nmode = 'sync'\nwrite_bandwidth = -5\n")
    out = tmp_path / "plan.html"
    out.write_text("the good old report")
    assert main(["report", str(bad), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "bad.toml: checkpoint.write_bandwidth = -5 is out of range" in err
    assert "(line 3)" in err
    assert out.read_text() == "the good old report"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.toml", "plan.html"]


@pytest.mark.parametrize("argv, match", [
    (["report", str(SEED)], "the following arguments are required: -o/--output"),
    (["report", str(SEED), "-o", "/nonexistent/dir/plan.html"], "directory /nonexistent/dir does not exist"),
    (["report", "missing.toml", "-o", "x.html"], "missing.toml: cannot read"),
])
def test_report_cli_errors(argv, match, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and match in err


def test_failed_build_leaves_the_old_file(tmp_path, monkeypatch, capsys):
    out = tmp_path / "plan.html"
    out.write_text("the good old report")

    def boom(*args, **kwargs):
        raise ValueError("figure failed")
    monkeypatch.setattr(report, "build_report", boom)
    assert main(["report", str(SEED), "-o", str(out), "--quiet"]) == 2
    assert out.read_text() == "the good old report" and [p.name for p in tmp_path.iterdir()] == ["plan.html"]


def test_progress_on_stderr(tmp_path):
    out = tmp_path / "plan.html"
    proc = subprocess.run([sys.executable, "-m", "drmath", "report", "-o", str(out)], capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout.strip() == str(out)
    assert "drmath report: planning" in proc.stderr and "drmath report: done" in proc.stderr


def test_math_is_mathml():
    assert report.latex_html(r"\frac{a}{b}").count("<mfrac>") == 1
    assert "<msub>" in report.latex_html(r"t_{rep}") and "&#x0221E;" in report.latex_html(r"\infty")
    assert report.latex_html(r"\text{1{,}000 \$ 50\%}") == (
        '<math display="inline"><mrow><mtext>1,000\xa0$\xa050%</mtext></mrow></math>')
    assert "<mtext>10.0\xa0min</mtext>" in report.latex_html(r"\text{10.0 min}")  # latex2mathml alone drops the space
    assert report.latex_html(r"x \le \text{<script>&amp;}", display=True) == (
        '<math display="block"><mrow><mi>x</mi><mo>&#x02264;</mo><mtext>&lt;script&gt;&amp;amp;</mtext></mrow></math>')


def test_markdown_escapes_raw_html_and_makes_no_request():
    html = report.markdown_html("<script>alert(1)</script>\n\nA <b onclick=x>b</b> ![img](https://example.com/x.png) "
                                "$\\tau_Y$\n\n| a |\n|---|\n| 1 |\n")
    assert "<script" not in html and "<b " not in html and "&lt;script&gt;" in html
    assert "example.com" not in html and "<img" not in html
    assert '<span class="math-inline"><math display="inline">' in html and "<table>" in html


def _formulas(text):
    """The TeX of every display ($$…$$) and inline ($…$) formula in Markdown (``\\$`` is a dollar sign)."""
    display = re.findall(r"\$\$(.+?)\$\$", text, flags=re.S)
    rest = re.sub(r"\$\$.+?\$\$", "", text, flags=re.S)
    return display + re.findall(r"(?<!\\)\$(?!\s)((?:[^$\\\n]|\\.)+?)(?<!\s)\$(?!\d)", rest)


VARIANTS = {
    "default": {},
    "falls-behind": {"replication.link_bandwidth": 1e8},
    "tokens-driven": {"training.tokens": 15e12},
    "sync-store-and-forward-floored": {"checkpoint.mode": "sync", "replication.streamed": False,
                                       "checkpoint.interval": 1.0},
}


@pytest.mark.parametrize("changes", VARIANTS.values(), ids=VARIANTS.keys())
def test_every_formula_converts_to_mathml(changes):
    p = plan(Scenario().with_changes(changes))
    if changes == VARIANTS["falls-behind"]:
        assert not p.replication_keeps_up
    if changes == VARIANTS["tokens-driven"]:
        assert p.run_driver == "tokens"
    for name in quantities.QUANTITIES:
        text = p.explain(name)
        formulas = _formulas(text)
        assert len(formulas) >= 1, name
        for tex in formulas:
            convert(tex)  # latex2mathml itself accepts it
            mathml = report.latex_html(tex)
            assert "\\" not in mathml and "{" not in mathml, (name, tex, mathml)  # no command or group left raw
        assert report.markdown_html(text).count("<math ") == len(formulas), name


# --------------------------------------------------------------------------- the page in Chromium

READY = f"() => document.querySelectorAll('.drmath-figure').length === {len(report.FIGURES)} && " \
        "[...document.querySelectorAll('.drmath-figure')].every(g => g.data && g.querySelector('.main-svg'))"


@pytest.fixture(scope="module")
def page(report_file, browser):
    """The report in the session's one Chromium (tests/conftest.py), every non-file request blocked."""
    context = browser.new_context(viewport={"width": 1200, "height": 1400})
    pg = context.new_page()
    pg.drmath_log, pg.drmath_blocked = watch(pg), []

    def route(r):
        if r.request.url.startswith("file:"):
            r.continue_()
        else:
            pg.drmath_blocked.append(r.request.url)
            r.abort()
    pg.route("**/*", route)
    pg.goto(report_file.as_uri())
    pg.wait_for_function(READY, timeout=30_000)
    yield pg
    context.close()


@pytest.mark.browser
def test_every_figure_renders_offline_without_errors(page):
    counts = page.evaluate("[...document.querySelectorAll('.drmath-figure')]"
                           ".map(g => g.querySelectorAll('.main-svg path, .main-svg rect').length)")
    assert len(counts) == len(report.FIGURES) == 7 and all(c > 5 for c in counts)
    assert page.drmath_blocked == [] and problems(page.drmath_log) == []


@pytest.mark.browser
def test_numbers_shown_equal_plan(page):
    shown = page.evaluate("[...document.querySelectorAll('[data-field]')]"
                          ".map(e => [e.dataset.field, e.dataset.si, e.textContent])")
    p = plan(scenarios.load(SEED))  # the seed file: the defaults plus the worked answer's targets
    assert len(shown) >= 45
    for name, si, text in shown:
        assert text == p.format(name), name
        value = getattr(p, name)
        if isinstance(value, bool):
            assert json.loads(si) is value
        elif math.isinf(value):
            assert si == "inf"
        else:
            assert float(si) == pytest.approx(value, rel=1e-12), name


@pytest.mark.browser
def test_a_slider_step_changes_the_figure(page):
    gd = "document.getElementById('fig-rto')"
    before = page.evaluate(f"[{gd}.data[0].y.slice(), {gd}.layout.title.text, {gd}.layout.sliders[0].active, "
                           f"{gd}.layout.sliders[0].steps.map(s => s.label)]")
    page.locator("#fig-rto").scroll_into_view_if_needed()
    rail = page.locator("#fig-rto .slider-rail-touch-rect").bounding_box()
    # a step a tier (cold … multi-site, fault-tolerant), evenly across the rail: click the fourth, "hot"
    steps = len(before[3])
    assert steps == len(presets.DR_TIERS) and "hot" in before[3][3].lower(), before[3]
    page.mouse.click(rail["x"] + rail["width"] * 3 / (steps - 1), rail["y"] + rail["height"] / 2)
    page.wait_for_function(f"{gd}.layout.sliders[0].active === 3 && {gd}.layout.title.text !== {json.dumps(before[1])}")
    after = page.evaluate(f"[{gd}.data[0].y.slice(), {gd}.layout.title.text]")
    hot = plan(Scenario().with_changes({"failover.tier": "hot"}))
    assert after[0] != before[0] and hot.format("rto_site") in after[1] and after[1] != before[1]
    assert problems(page.drmath_log) == [] and page.drmath_blocked == []


def test_figures_use_only_the_inlined_bundles_traces():
    # the report inlines plotly.js's basic bundle, which draws nothing else
    from drmath import viz
    for name, spec in report.report_figures(Scenario()).items():
        types = {trace.get("type", "scatter") for trace in spec["data"]}
        assert types <= viz.BASIC_TRACES, (name, types)


def test_the_comparison_moved_and_its_old_names_warn():
    with pytest.warns(DeprecationWarning, match="drmath.report.compare_rows moved to drmath.comparison.compare_rows"):
        assert report.compare_rows is comparison.compare_rows
