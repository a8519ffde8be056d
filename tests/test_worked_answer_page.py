"""Every figure on the worked answer's page comes from the library (issue 34).

Notebook 00 executed as nbclient runs it (:func:`conftest.executed_notebook`, shared with the other modules that
read it). Two kinds of text carry numbers:

- **What the page prints** (its Markdown outputs, the prose :mod:`drmath.answer` and the notebook's own sentences
  write). Every number in it must be one that this test gets from ``plan()`` / ``solve()`` of the scenarios the
  page names, solved here again: the worked answer, each tier at its own best, the talking points' scenarios (the
  link halved, MFU at 30% on the same tokens, 100,000 GPUs), the two MFU plans of section 1, the 10 Gbit/s link
  of section 4; the drill schedule and the drilled promise; or the difference of two of those figures that a
  sentence compares. The derivations (``Plan.explain``, ``drmath.formulas``: the outputs with display math) are
  the library's own text and are held by ``tests/test_formulas_once.py`` and ``tests/test_notebook_formulas.py``.
  The sentences the notebook writes itself (the off-site cadence, the drills' total) are also checked word for
  word against the figures they name.
- **The typed prose** (its Markdown cells). A number there is a published figure, held here to the library
  constant that carries it (the Llama 3 failure count, the MFU default, the bytes per parameter …), a citation
  (arXiv number, year, equation, section, table), or the page's own numbering.

A number that fits none of these is a figure typed by hand or computed by the page, and the test names it.
"""

import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # pytest runs with --import-mode=importlib
from conftest import executed_notebook  # noqa: E402

from drmath import Scenario, answer, drills, plan, presets, solve  # noqa: E402
from drmath.checkpoint import checkpoint_bytes  # noqa: E402
from drmath.formatting import format_quantity, short_duration  # noqa: E402
from drmath.io import scenarios  # noqa: E402
from drmath.quantities import QUANTITIES, SCALARS, TARGETS  # noqa: E402
from drmath.scenario import FIELDS  # noqa: E402
from drmath.training import training_flops  # noqa: E402

pytestmark = pytest.mark.slow  # executes notebook 00 (shared with the other modules that read it)

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "00_worked_answer.ipynb"
NUMBER = re.compile(r"\d+(?:,\d{3})*(?:\.\d+)?")
COMPARED = ("rto_site", "schedule_slip", "total_cost_of_resilience", "reduced_capacity_time")
"""Quantities whose differences between two of the page's plans a sentence gives ("resumes 18.0 days sooner")."""


def _numbers(text):
    """The numbers a reader sees: money's markup and HTML entities undone, link targets left out."""
    text = re.sub(r'<span class="drmath-money">&#36;([^<]*)</span>', r"$\1", text)
    text = re.sub(r"&#?\w+;", "", re.sub(r"\]\(#[^)]*\)", "]", text))
    return NUMBER.findall(re.sub(r"section \d|[A-Za-z]+\d+", " ", text))  # a section's number, BF16


def _figures(q):
    """Every figure a plan formats: its outputs, its per-tier tables and the inputs the page names."""
    s = q.scenario
    texts = [q.format(name) for name in SCALARS if QUANTITIES[name].kind != "flag"]
    texts += [format_quantity(v, "usd") for v in q.tier_total_costs.values()]
    texts += [format_quantity(v, "usd_rate") for v in q.break_even_delay_costs.values()]
    texts += [format_quantity(v, "duration") for v in q.rto_site_phases.values()]
    texts += [f"{s.training.gpus:,}", format_quantity(s.training.peak_flop_rate, "flop_rate"),
              format_quantity(s.training.params, "params"), format_quantity(s.training.window, "duration"),
              format_quantity(s.training.mfu, "fraction"), format_quantity(s.cost.delay_cost, "usd_rate"),
              format_quantity(s.replication.link_bandwidth, "line_rate"),
              format_quantity(s.replication.interval, "duration")]
    texts += [format_quantity(s.get(t.input), "duration") for t in TARGETS if s.get(t.input) is not None]
    texts += [format_quantity(getattr(q, t.margin), "duration") for t in TARGETS if s.get(t.input) is not None]
    if s.checkpoint.interval is not None:
        texts.append(format_quantity(s.checkpoint.interval, "duration"))
    return texts


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    """The executed page, and every figure the library gives for the scenarios it names, solved here again."""
    nb = executed_notebook(NOTEBOOK, tmp_path_factory)
    meta = scenarios.read_meta(scenarios.SCENARIO_DIR / "seed.toml")
    wanted = scenarios.seed()
    solution = solve(wanted)
    p, s = solution.plan, solution.scenario
    best = {name: solve(wanted, tiers=[name]) for name in presets.SEARCHED_TIERS}
    slower = {"training.mfu": 0.30, "training.tokens": p.tokens}
    half_link, bigger = s.replication.link_bandwidth / 2, {"training.gpus": 100_000}
    others = [plan(s.with_changes({"replication.link_bandwidth": half_link})),
              solve(wanted, grid={"replication.link_bandwidth": [half_link]}).plan,
              plan(s.with_changes(slower)), solve(wanted.with_changes(slower)).plan,
              plan(s.with_changes(bigger)), solve(wanted.with_changes(bigger)).plan,
              plan(s.with_changes({"training.mfu": 0.30})),
              plan(s.with_changes({"replication.link_bandwidth": "dx-10g"}))]
    compared = [p] + [b.plan for b in best.values()]
    _, promise = answer.example_promise()
    schedule = drills.drill_schedule(p, meta["date"])
    texts = [t for q in compared + others for t in _figures(q)]
    texts += [format_quantity(abs(getattr(a, name) - getattr(b, name)), QUANTITIES[name].kind)
              for a in compared for b in compared for name in COMPARED]
    texts += [format_quantity(presets.DR_TIERS[name].rebuild_time, "duration") for name in best]
    texts += [format_quantity(v, "duration")
              for v in (promise.promised, promise.best_case_sum, promise.mean_sum, promise.worst_case_sum)]
    texts += [f"{100 * promise.confidence:.0f}th", promise.expires.isoformat(), promise.as_of.isoformat(),
              str((promise.expires - promise.as_of).days), meta["date"].isoformat(),
              str((promise.as_of - meta["date"]).days), format_quantity(answer.EDGE, "fraction"),
              short_duration(FIELDS["replication.interval"].high)]
    for e in promise.phases.values():
        texts += [format_quantity(v, "duration") for v in (e.best, e.mean, e.worst)]
        texts += [str(e.count), e.last.isoformat()]
    costs = drills.drill_costs(p)
    texts += [format_quantity(c["per_run"], "count") for c in costs.values()]
    texts += [format_quantity(sum(c["per_run"] for c in costs.values()), "count"),
              format_quantity(sum(c["total"] for c in costs.values()), "gpu_hours"),
              format_quantity(sum(c["total"] for c in costs.values()) / p.gpu_hours, "fraction")]
    texts += [format_quantity(schedule["held"].sum(), "count"),
              format_quantity(schedule["gpu_hours_total"].sum(), "gpu_hours"),
              format_quantity(schedule.loc["failover-game-day", "held"], "count")]
    texts += [answer.cadence_words(d.cadence) for d in drills.DRILLS.values()]
    allowed = {n for text in texts for n in _numbers(text)}
    return {"nb": nb, "p": p, "s": s, "schedule": schedule, "allowed": allowed}


def _printed(nb):
    """``(cell index, Markdown)`` of each prose output: the Markdown outputs with no display math."""
    for i, cell in enumerate(nb.cells):
        for out in cell.get("outputs", ()):
            text = out.get("data", {}).get("text/markdown")
            if text and "$$" not in text:
                yield i, text


def _stray(printed, allowed):
    """``(cell, number)`` of each printed number the library does not give."""
    return sorted({(i, n) for i, text in printed for n in _numbers(text) if n not in allowed})


def test_every_figure_the_page_prints_is_one_the_library_gives(page):
    printed = list(_printed(page["nb"]))
    assert len(printed) >= 14  # the summary, the tables, the notes, the talking points: the page was read
    assert not _stray(printed, page["allowed"])


def test_a_figure_off_by_a_rounding_step_is_named(page):
    """The check can fail: issue 34's kind of slip, a cost one rounding step off the plan's (the summary's "why not"
    quoted the search grid's $32.92M beside the tier table's $32.93M), is caught and named."""
    i, summary = next(_printed(page["nb"]))
    cost = page["p"].format("total_cost_of_resilience")  # "$18.90M"
    assert cost in summary.replace('<span class="drmath-money">&#36;', "$").replace("</span>", "")
    shown = _numbers(cost)[0]
    off = f"{float(shown) + 0.01:.2f}"
    assert off not in page["allowed"]
    assert _stray([(i, summary.replace(shown, off))], page["allowed"]) == [(i, off)]


def test_the_notebooks_own_sentences_name_the_plans_figures(page):
    """The two sentences notebook 00 writes itself, not through drmath.answer: the off-site cadence (section 4)
    and the drills' total (section 7)."""
    p, s, schedule = page["p"], page["s"], page["schedule"]
    text = "\n".join(t for _, t in _printed(page["nb"]))
    assert (f"`solve()` searched every off-site cadence from each checkpoint to "
            f"{short_duration(FIELDS['replication.interval'].high)} and chose "
            f"{format_quantity(s.replication.interval, 'duration')}: with a checkpoint every "
            f"{p.format('checkpoint_interval')}, one copy in {p.format('replication_every')} goes off-site, every "
            f"{p.format('replication_interval')}.") in text
    assert (f"In all, {format_quantity(schedule['held'].sum(), 'count')} drills cost "
            f"{format_quantity(schedule['gpu_hours_total'].sum(), 'gpu_hours')}, against the run's "
            f"{p.format('gpu_hours')}.") in text


def _quoted(path, words, number):
    """``number`` if the basis the library states for the input at ``path`` quotes it in ``words``, else None."""
    field = FIELDS[path]
    return number if words in f"{field.doc} {field.basis}" else None


def _saved():
    """Bytes the seed's checkpoint saves per parameter [B]."""
    return checkpoint_bytes(1.0, scenarios.seed().checkpoint.bytes_per_param)


PUBLISHED = {
    # number as typed: (what it is, the library's value it must equal)
    "8,000": ("the title's GPU count: the seed's", lambda: f"{scenarios.seed().training.gpus:,}"),
    "405": ("the model's size, 405B: the seed's", lambda: format_quantity(scenarios.seed().training.params,
                                                                           "params").removesuffix("B")),
    "6": ("FLOPs per parameter per token, training_flops' default", lambda: f"{training_flops(1, 1):g}"),
    "8": ("with full recomputation", lambda: _quoted("training.flops_per_param_token", "or 8 with full", "8")),
    "38": ("Llama 3 Table 4's MFU range", lambda: _quoted("training.mfu", "Table 4: 38-43%", "38")),
    "43": ("Llama 3 Table 4's MFU range", lambda: _quoted("training.mfu", "Table 4: 38-43%", "43")),
    "16": ("8-16k H100s of Llama 3 Table 4; ZeRO's 16 B/param",
           lambda: f"{Scenario().training.state_bytes_per_param:g}"),
    "40": ("the MFU default", lambda: f"{100 * Scenario().training.mfu:g}"),
    "2": ("bf16 weights' bytes per parameter, of 2 + 3 × 4", lambda: "2" if _saved() == 2 + 3 * 4 else None),
    "4": ("fp32 bytes of master weights, Adam m and v", lambda: "4" if _saved() == 2 + 3 * 4 else None),
    "419": ("Llama 3's unexpected interruptions",
            lambda: _quoted("failures.gpu_failure_rate", "419 unexpected interruptions", "419")),
    "54": ("Llama 3's snapshot in days", lambda: _quoted("failures.gpu_failure_rate", "54-day snapshot", "54")),
    "16,384": ("Llama 3's GPUs", lambda: _quoted("failures.gpu_failure_rate", "on 16,384 H100", "16,384")),
}
"""Figures the typed prose quotes, each with the library value it must equal."""

CITATION = re.compile(
    r"arXiv:\d+\.\d+|\b(?:19|20)\d\d\b|eq\. \d+|§[\d.]+|Table \d+|\d+\(\d+\)|FAST'\d+|"
    r"\b\d\d_\w+|^#+ \d+\.|^\d+\. |section \d|Llama 3|[A-Za-z]+\d+|_\{?\d+", re.M)
"""Citations (arXiv numbers, years, equations, sections, tables, journal volumes), notebook names, the page's own
numbering, names with digits in them (H100, bf16, fp32) and TeX subscripts (u_0)."""


def test_every_number_the_prose_types_is_a_checked_published_figure(page):
    cells = [c.source for c in page["nb"].cells if c.cell_type == "markdown"]
    typed = [n for source in cells for n in NUMBER.findall(CITATION.sub(" ", source))]
    assert typed and set(typed) <= set(PUBLISHED), sorted(set(typed) - set(PUBLISHED))
    wrong = {n: what for n, (what, value) in PUBLISHED.items() if value() != n}
    assert not wrong, wrong
