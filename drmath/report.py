r"""The standalone report and the side-by-side comparison: views of ``plan()``.

:func:`build_report` turns one scenario into a single HTML document, the
worked answer for it: every number with its derivation from
:meth:`~drmath.Plan.explain`, every figure an interactive plotly chart with
the main knobs (GPU count, checkpoint interval, link bandwidth, replication
target, DR tier) precomputed as slider steps. plotly.js is inlined and the
formulas are MathML that the browser typesets itself, so the file opens with
no network and no server. The page is rendered from Jinja2 templates (``drmath/data/report/``);
the derivations' Markdown goes through mistune and their TeX through
latex2mathml. Its sections and comparison read the registry,
:mod:`drmath.quantities`, and its headline the cards' layout,
:mod:`drmath.viz.headline`. :func:`write_report` writes it atomically and,
optionally, each figure as PNG for slides (through kaleido).

:func:`compare_rows`, :func:`compare_text`, :func:`compare_html`, :func:`compare_style`
(a pandas Styler, for notebooks) and :func:`compare_figure` put two to four scenarios side
by side.

No physics lives here: every number comes from :func:`~drmath.plan`,
:meth:`~drmath.Plan.sweep` or :meth:`~drmath.Plan.explain`, and figures come from
:mod:`drmath.viz`, which draws the plans the report makes (a plan per slider step,
:func:`report_figures`). plotly is imported only by the functions that draw.

    >>> import drmath
    >>> html = build_report(drmath.Scenario(), include_plotlyjs=False)
    >>> 'data-field="rpo_site"' in html and "<script src=" not in html
    True
"""

import functools
import json
import math
import re
import sys
from pathlib import Path

from markupsafe import Markup

from . import __version__, presets, viz
from ._plan import plan
from ._templates import plain, templates
from .formatting import format_quantity, params_pair
from .io.files import atomic_write
from .quantities import GROUPS, QUANTITIES, in_group
from .scenario import FIELDS, Scenario
from .viz.headline import CARDS, card_detail, card_title

__all__ = ["build_report", "write_report", "report_title", "headline_html", "report_figures", "latex_html",
           "markdown_html", "drill_rows", "REPORT_SECTIONS", "SECTION_TITLES", "KNOBS"]

_MOVED = ("compare_rows", "compare_inputs", "compare_text", "compare_html", "compare_style", "compare_figure",
          "COMPARE_FIELDS")  # to drmath.comparison (0.1.0); the old names go in 0.2.0


def __getattr__(name):
    if name in _MOVED:
        import warnings

        from . import comparison

        warnings.warn(f"drmath.report.{name} moved to drmath.comparison.{name}; the old name goes in drmath 0.2.0",
                      DeprecationWarning, stacklevel=2)
        return getattr(comparison, name)
    raise AttributeError(f"module 'drmath.report' has no attribute {name!r}")

_SECTIONS = (*((g.id, g.title) for g in GROUPS.values()), ("drills", "Drills"), ("inputs", "Inputs"))
"""Every section of the report, in order: one per group of :data:`drmath.quantities.GROUPS`, then the drills and the
inputs. The one list the sections are numbered from."""

SECTION_TITLES = {sid: f"{n}. {title}" for n, (sid, title) in enumerate(_SECTIONS, start=1)}
"""Each section's numbered title, by id: ``SECTION_TITLES["drills"]``."""

REPORT_SECTIONS = [(g.id, SECTION_TITLES[g.id], g.lead, in_group(g.id), viz.in_section(g.id))
                   for g in GROUPS.values()]
"""The report's sections of quantities, one per group of :data:`drmath.quantities.GROUPS`: (id, numbered title,
lead sentence, quantities, figure names from :data:`drmath.viz.FIGURES`)."""

HEADLINE = list(CARDS)
"""The headline cards: :data:`drmath.viz.headline.CARDS`."""


KNOBS = viz.KNOBS
"""The report's slider knobs: :data:`drmath.viz.KNOBS` (field -> (label, values))."""


# --------------------------------------------------------------------------- math and markdown as HTML

_TEXT_ARG = re.compile(r"\\text(?:rm)?\s*\{((?:[^{}\\]|\\.|\{[^{}]*\})*)\}")
_ENTITY = re.compile(r"&amp;(#x[0-9A-Fa-f]+;|#[0-9]+;)")


def _text_mode(match):
    """``\\text{}`` as latex2mathml reads it: TeX's text-mode escapes and grouping braces undone, and
    spaces made no-break (it drops a space between a number and a word: ``10.0 min``)."""
    body = re.sub(r"\{([^{}]*)\}", r"\1", match.group(1))
    return r"\text{" + re.sub(r"\\([$%#&_])", r"\1", body).replace(" ", "\N{NO-BREAK SPACE}") + "}"


def latex_html(tex, display=False):
    r"""Typeset a TeX formula of :meth:`~drmath.Plan.explain` as MathML.

    Parameters
    ----------
    tex : str
        A formula without ``$`` delimiters.
    display : bool, default False
        A display (block) formula rather than an inline one.

    Returns
    -------
    html : str
        A ``<math>`` element that browsers render natively (MathML Core [1]_);
        text from the formula is escaped, so it cannot open a tag.

    Notes
    -----
    latex2mathml does the conversion. It copies ``\text{}`` verbatim, so
    TeX's text-mode escapes (``\$``, ``\%``, ``{,}``) are undone first, and it
    unescapes its own output, so the element is serialized here instead and only
    its numeric character references are kept.  latex2mathml also drops the
    space in ``\text{10.0 min}``, so spaces in text become no-break spaces.

    References
    ----------
    .. [1] W3C, "MathML Core", https://www.w3.org/TR/mathml-core/ (the elements used).

    Examples
    --------
    >>> latex_html(r"\tau_Y = \sqrt{2\,\delta\,M}")[:63]
    '<math display="inline"><mrow><msub><mi>&#x003C4;</mi><mi>Y</mi>'
    >>> latex_html(r"\text{<b>1{,}000 \$</b>}")
    '<math display="inline"><mrow><mtext>&lt;b&gt;1,000\xa0$&lt;/b&gt;</mtext></mrow></math>'
    """
    from xml.etree.ElementTree import tostring

    from latex2mathml.converter import convert_to_element

    element = convert_to_element(_TEXT_ARG.sub(_text_mode, str(tex)), display="block" if display else "inline")
    element.attrib.pop("xmlns", None)  # HTML puts <math> in the MathML namespace itself
    return _ENTITY.sub(r"&\1", tostring(element, encoding="unicode"))


@functools.cache
def _markdown():
    """The Markdown renderer: mistune with tables and math, raw HTML escaped, no images."""
    import mistune

    class Renderer(mistune.HTMLRenderer):
        def block_math(self, text):
            return f'<div class="math">{latex_html(text, display=True)}</div>\n'

        def inline_math(self, text):
            return f'<span class="math-inline">{latex_html(text)}</span>'

        def image(self, text, url, title=None):  # the report makes no request: an image shows its alt text
            return text

    return mistune.create_markdown(escape=True, renderer=Renderer(escape=True), plugins=["table", "math"])


def markdown_html(text):
    r"""Render the Markdown that :meth:`~drmath.Plan.explain` returns as HTML.

    Parameters
    ----------
    text : str
        CommonMark [1]_ with pipe tables and math: display ``$$…$$`` and inline
        ``$…$``. Raw HTML in it is escaped, never passed through.

    Returns
    -------
    html : str
        HTML; math goes through :func:`latex_html` to MathML.

    References
    ----------
    .. [1] CommonMark Spec 0.31.2, https://spec.commonmark.org/ (through mistune 3).

    Examples
    --------
    >>> print(markdown_html("**A: 1 h** <i>\n\n$$x = y$$\n"))
    <p><strong>A: 1 h</strong> &lt;i&gt;</p>
    <div class="math"><math display="block"><mrow><mi>x</mi><mo>&#x0003D;</mo><mi>y</mi></mrow></math></div>
    <BLANKLINE>
    """
    text = str(text)
    simple = _simple_html(text)
    # money is written &#36; (drmath.formatting.markdown_text): mistune escapes its "&", so it is put back (a "$"
    # would pair with the next one as math)
    return _markdown()(text).replace("&amp;#36;", "&#36;") if simple is None else simple


_SAFE = r"(?:[^*`_\\\[\]<>&!|$#~\n]|(?<=[A-Za-z0-9])_(?=[A-Za-z0-9]))"
_SIMPLE = re.compile(
    rf"(?:(?<![^ ])\*\*[A-Za-z0-9](?:{_SAFE}*[A-Za-z0-9])?\*\*(?![^ .,;:])"  # **bold**, opened after a space
    r"|`[A-Za-z0-9._:=/-](?:[A-Za-z0-9._:=/ -]*[A-Za-z0-9._:=/-])?`"  # `code`
    rf"|{_SAFE})*")
"""One line of plain words with ``**bold**`` and ```code``` spans and nothing else Markdown or HTML reads: no
other emphasis, escapes, entities, links, tags, tables or math (an underscore only inside a word)."""


def _simple_html(text):
    """A plan warning's usual Markdown (one line: words, ``**bold**``, ```code```) as mistune renders it, without
    loading mistune (~10 ms per page's kernel); None for any other text, which :func:`markdown_html` gives to
    mistune. ``tests/test_kernel_cost.py`` checks both agree."""
    if not text[:1].isalpha() and not text.startswith("**") or text != text.strip() or not _SIMPLE.fullmatch(text):
        return None
    body = re.sub(r"`([^`]*)`", r"<code>\1</code>", re.sub(r"\*\*([^*]*)\*\*", r"<strong>\1</strong>", text))
    return f"<p>{body.replace(chr(34), '&quot;')}</p>\n"


# --------------------------------------------------------------------------- figures with slider steps


FIGURES = {name: (info.knob, info.caption) for name, info in viz.FIGURES.items() if info.report}
"""The report's figures, each with its (knob, caption), from the one registry :data:`drmath.viz.FIGURES`
(those with :attr:`~drmath.viz.FigureInfo.report` set)."""


def report_figures(scenario, progress=None, names=None):
    """The report's figures, each with its knob precomputed as slider steps: a plan per step, drawn by
    :mod:`drmath.viz`.

    The report is a client of the model, as the CLI and the dashboard are: it plans each step
    (:func:`drmath.viz.slider_steps` gives the steps' scenarios) and hands the plans back to
    :func:`drmath.viz.slider_figure`, which only draws. A scenario two knobs share is planned once.

    Parameters
    ----------
    scenario : Scenario
        The inputs.
    progress : callable, optional
        Called with a short message before each figure.
    names : sequence of str, optional
        Keys of :data:`drmath.viz.FIGURES`; those the report shows (:data:`FIGURES`) when omitted.

    Returns
    -------
    figures : dict of str to dict
        ``{name: JSON-ready plotly spec}`` with a slider over the figure's knob
        (:attr:`drmath.viz.FigureInfo.knob`, values from :data:`drmath.viz.KNOBS`); each step's numbers come from
        :func:`~drmath.plan` and :meth:`~drmath.Plan.sweep`.

    Raises
    ------
    ValueError
        If a figure is unknown, or has no knob (the report leaves it out).

    Examples
    --------
    >>> import drmath
    >>> figs = report_figures(drmath.Scenario(), names=["rto"])
    >>> slider = figs["rto"]["layout"]["sliders"][0]
    >>> [s["label"] for s in slider["steps"]][slider["active"]]
    'warm'
    """
    p = plan(scenario)
    plans = {scenario: p}
    figures = {}
    for name in FIGURES if names is None else names:
        steps = viz.slider_steps(name, scenario, p)
        if progress:
            progress(f"figure {name}: {steps.knob} steps")
        for s in steps.scenarios:
            if s not in plans:
                plans[s] = plan(s)
        figures[name] = viz.slider_figure(name, [plans[s] for s in steps.scenarios], steps)
    return figures


slider_figures = report_figures
"""The name ``drmath.viz.slider_figures`` forwards to, with a FutureWarning: the report plans its slider steps now
(issue 33)."""


# --------------------------------------------------------------------------- the document

def _number(p, name):
    """What a number's ``<span class="num" data-field data-si>`` shows: the SI value and ``Plan.format``."""
    value = plain(getattr(p, name))
    si = "inf" if isinstance(value, float) and math.isinf(value) else json.dumps(value)
    return {"field": name, "si": si, "text": p.format(name)}


def _kpi(p, name):
    """One headline card: short title, number, sub-line; ``bad`` when replication falls behind or it has no bound."""
    number = _number(p, name)
    bad = number["si"] == "inf" or (name == "replication_keeps_up" and not p.replication_keeps_up)
    return {"num": number, "title": card_title(name), "detail": card_detail(p, name), "bad": bad}


def report_title(p):
    """The report's title for plan ``p``: the cluster, the run, the model and the DR tier.

    >>> import drmath
    >>> report_title(drmath.plan())
    'Disaster-recovery plan: 8,000 GPUs, 90.0 days, 405B parameters, Warm standby'
    """
    t = p.scenario.training
    return (f"Disaster-recovery plan: {t.gpus:,} GPUs, {p.format('time_to_train')}, "
            f"{params_pair(p.params, p.active_params)} parameters, {presets.DR_TIERS[p.scenario.failover.tier].label}")


def headline_html(p):
    """The headline cards of plan ``p`` as the report draws them: one ``<a class="kpi">`` per card of
    :data:`drmath.viz.headline.CARDS`, each number a ``<span class="num" data-field data-si>``.

    The live page's preview (:mod:`drmath.serve.pages`) shows the same block while its kernel starts.

    >>> import drmath
    >>> from drmath.viz.headline import CARDS
    >>> headline_html(drmath.plan()).count('class="num"') == len(CARDS)
    True
    """
    return str(templates().get_template("headline.html.j2").module.cards([_kpi(p, n) for n in HEADLINE]))


def _card(p, name):
    """One derivation: its title and number, then the rest of ``Plan.explain`` (formula, inputs, note)."""
    text = p.explain(name).strip()
    if QUANTITIES[name].table:
        return {"name": name, "title": QUANTITIES[name].title, "num": None, "body": Markup(markdown_html(text))}
    body = text.split("\n\n", 1)[1] if "\n\n" in text else ""  # the first block is "**title: result**"
    return {"name": name, "title": QUANTITIES[name].title, "num": _number(p, name), "body": Markup(markdown_html(body))}


def drill_rows(p, start=None):
    """The drill schedule of plan ``p`` as the report's table shows it (:func:`drmath.drills.drill_schedule`).

    Parameters
    ----------
    p : Plan
        The plan; its run length and cluster set how often each drill is held and what it costs.
    start : datetime.date, optional
        The run's first day: the dates of the first and last drill are then dates; without it they are days of
        the run ("day 1").

    Returns
    -------
    rows : list of dict
        One per drill of :data:`drmath.drills.DRILLS`, in order: ``name``, ``label``, ``measures``, ``cadence``,
        ``held``, ``first``, ``last``, ``each`` and ``total`` (GPU-hours), each as text.

    Examples
    --------
    >>> import drmath
    >>> row = drill_rows(drmath.plan())[2]
    >>> row["label"], row["held"], row["first"], row["last"]
    ('Failover game day', '3', 'day 1', 'day 61')
    """
    import datetime as dt

    from . import drills
    from .formatting import short_duration

    origin = dt.date(2000, 1, 1) if start is None else start  # any day: held and spacing do not depend on it

    def day(d):
        return f"day {(d - origin).days + 1}" if start is None else d.isoformat()

    table = drills.drill_schedule(p, origin)
    return [{"name": name, "label": r["label"], "measures": r["measures"], "cadence": short_duration(r["cadence"]),
             "held": format_quantity(r["held"], "count"), "first": day(r["first"]), "last": day(r["last"]),
             "each": format_quantity(r["gpu_hours_each"], "gpu_hours"),
             "total": format_quantity(r["gpu_hours_total"], "gpu_hours")} for name, r in table.iterrows()]


def _inputs(scenario):
    """Every input: its path, value as shown, whether it differs from the default, meaning and basis."""
    rows = []
    for path, info in FIELDS.items():
        value = scenario.get(path)
        if value is None:
            shown = "unset (derived)"
        elif info.choices is not None:
            shown = str(value)
        elif info.kind in ("plain",) and info.unit not in ("[1]",):
            shown = f"{value:g} {info.unit.strip('[]')}"
        else:
            shown = format_quantity(value, info.kind)
        rows.append({"path": path, "shown": shown, "changed": value != info.default, "doc": info.doc,
                     "basis": info.basis})
    return rows


def _bands(scenario, draws=2000, seed=0):
    """Each headline quantity's 90% range over the draws of the scenario's uncertain inputs
    (:func:`drmath.bands`), as rows for the report's ``bands`` block; None without uncertainty."""
    if not scenario.uncertainty:
        return None
    from ._uncertainty import bands

    b = bands(scenario, draws=draws, seed=seed)
    shown = [n for n in HEADLINE if n in b.percentiles]

    def spread(path, s):
        kind = FIELDS[path].kind
        return (f"{path} ({s.distribution}, {s.confidence:.0%} in "
                f"[{format_quantity(s.low, kind, 4)}, {format_quantity(s.high, kind, 4)}])")

    return {"draws": b.draws, "inputs": [spread(path, s) for path, s in scenario.uncertainty.items()],
            "rows": [{"field": n, "title": card_title(n), "point": b.plan.format(n), "range": b.format_range(n)}
                     for n in shown if b.varies(n)],  # a band only where the quantity varies
            "steady": [f"{card_title(n)} ({b.plan.format(n)})" for n in shown if not b.varies(n)]}


def _json_script(obj):
    """JSON that is safe inside ``<script>``, as Markup for the template."""
    from plotly.utils import PlotlyJSONEncoder

    return Markup(json.dumps(obj, cls=PlotlyJSONEncoder, separators=(",", ":")).replace("</", "<\\/"))


def _answer_html(markdown):
    """The worked answer's Markdown (:mod:`drmath.answer`) as the report's HTML: its money spans, made for
    MathJax, undone to the entity alone (the report escapes raw HTML, so the span would show as text), then
    :func:`markdown_html`."""
    return Markup(markdown_html(re.sub(r'<span class="drmath-money">(&#36;[^<]*)</span>', r"\1", markdown)))


def build_report(scenario=None, title=None, description="", include_plotlyjs=True, progress=None, figures=None,
                 start=None, answer=None):
    """The worked answer for one scenario as one standalone HTML document.

    Parameters
    ----------
    scenario : Scenario, optional
        The inputs; the seed case when omitted.
    title : str, optional
        The document's title; a summary of the scenario when omitted.
    description : str, default ""
        A sentence under the title (e.g. a scenario file's description).
    include_plotlyjs : bool, default True
        Inline plotly.js (the 1.2 MB basic bundle) so the file needs no network; False
        leaves it out (for tests of the text only).
    progress : callable, optional
        Called with a short message at each stage.
    figures : dict, optional
        Precomputed :func:`report_figures` output, to reuse.
    start : datetime.date, optional
        The run's first day (a scenario file's ``date``): the drill schedule then gives dates; without it, days
        of the run.
    answer : list of tuple, optional
        Sections ``(id, title, markdown)`` that open the document before the derivations: the worked answer's
        (:func:`drmath.answer.worked_sections`), for the scenario it solved.

    Returns
    -------
    html : str
        The document: the ``answer`` sections if given, headline numbers, one section per step of the answer
        with each number's derivation (formula, inputs, result), interactive
        figures with slider steps, and every input with its basis.

    Notes
    -----
    Every number is rendered as ``<span class="num" data-field=NAME
    data-si=VALUE>`` with the text of ``Plan.format(NAME)``, so a test can
    check the page against :func:`~drmath.plan`. The page is the template
    ``drmath/data/report/report.html.j2`` (Jinja2, autoescaped: the title and
    the description are text, never markup); the derivations are
    :func:`markdown_html` of :meth:`~drmath.Plan.explain`.

    Examples
    --------
    >>> import drmath
    >>> html = build_report(drmath.Scenario(), include_plotlyjs=False)
    >>> from drmath.quantities import QUANTITIES
    >>> html.count('class="plot drmath-figure"'), html.count('class="card"') == len(QUANTITIES)  # a card each
    (7, True)
    """
    scenario = Scenario() if scenario is None else scenario
    if not isinstance(scenario, Scenario):
        raise TypeError(f"scenario must be a Scenario, got {type(scenario).__name__}")
    say = progress or (lambda message: None)
    if figures is None:
        say("planning")
    p = plan(scenario)
    if figures is None:
        figures = report_figures(scenario, progress=say)
    say("writing the document")
    title = title or report_title(p)
    warnings = [Markup(markdown_html(text)) for text in p.warnings().values()]  # what is wrong, and the fix
    sections, plots = [], {}
    for sid, stitle, lead, names, figs in REPORT_SECTIONS:
        for fig in figs:
            plots[f"fig-{fig}"] = figures[fig]
        sections.append({"id": sid, "title": stitle, "lead": lead, "cards": [_card(p, n) for n in names],
                         "figures": [{"div": f"fig-{fig}", "caption": viz.FIGURES[fig].caption} for fig in figs]})
    return templates().get_template("report.html.j2").render(
        title=title, description=description, version=__version__, headline=[_kpi(p, n) for n in HEADLINE],
        palette_css=Markup(viz.css_variables()),
        sections=sections, answer=[{"id": aid, "title": atitle, "body": _answer_html(text)}
                                   for aid, atitle, text in answer or ()],
        warnings=warnings, floored=p.checkpoint_interval_floored, inputs=_inputs(scenario), bands=_bands(scenario),
        plotlyjs=Markup(viz.PLOTLY_BASIC_JS.read_text(encoding="utf-8")) if include_plotlyjs else None,
        config=_json_script(viz.PLOTLY_CONFIG), figures=_json_script(plots),
        drills_title=SECTION_TITLES["drills"], inputs_title=SECTION_TITLES["inputs"], drills=drill_rows(p, start))


def write_report(scenario, path, png_dir=None, title=None, description="", progress=None, start=None, answer=None):
    """Write the report to ``path`` atomically and, optionally, each figure as PNG.

    Parameters
    ----------
    scenario : Scenario
        The inputs.
    path : str or os.PathLike
        The HTML file; a regular file is replaced atomically, a FIFO or device written through
        (:func:`drmath.io.files.output_target`).
    png_dir : str or os.PathLike, optional
        If given, each figure (without its slider) is also written there as
        ``NAME.png`` through kaleido [1]_, each atomically.
    title : str, optional
        The document's title.
    description : str, default ""
        A sentence under the title.
    progress : callable, optional
        Called with a short message at each stage.
    start : datetime.date, optional
        The run's first day, for the drill schedule's dates (:func:`build_report`).
    answer : list of tuple, optional
        The worked answer's sections, opening the document (:func:`build_report`).

    Returns
    -------
    written : list of pathlib.Path
        The HTML file, then any PNG files.

    References
    ----------
    .. [1] plotly.py, ``plotly.io.write_images`` (static export through kaleido).

    Examples
    --------
    >>> import tempfile, pathlib, drmath
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "plan.html"
    >>> [p.name for p in write_report(drmath.Scenario(), out)]
    ['plan.html']
    """
    say = progress or (lambda message: None)
    say("planning")
    figures = report_figures(scenario, progress=say)
    document = build_report(scenario, title, description, progress=say, figures=figures, start=start,
                            answer=answer)
    pngs = []
    if png_dir is not None:
        pngs = _write_pngs(figures, Path(png_dir), say)
    say(f"writing {path}")
    return [atomic_write(path, document)] + pngs


def _write_pngs(figures, directory, say):
    import tempfile

    import plotly.graph_objects as go
    import plotly.io as pio

    directory.mkdir(parents=True, exist_ok=True)
    figs, names = [], []
    for name, spec in figures.items():
        layout = dict(spec["layout"], sliders=[], height=spec["layout"]["height"] - 90)
        layout["margin"] = dict(layout["margin"], b=50)
        figs.append(go.Figure({"data": spec["data"], "layout": layout}))
        names.append(name)
    say(f"exporting {len(figs)} PNG figures through kaleido")
    tmp = Path(tempfile.mkdtemp(dir=directory, prefix=".png-"))
    try:
        paths = [tmp / f"{n}.png" for n in names]
        pio.write_images(figs, paths, width=[1000] * len(figs), scale=[2] * len(figs))
        out = []
        for n, src in zip(names, paths):
            target = directory / f"{n}.png"
            src.replace(target)
            out.append(target)
        return out
    finally:
        for leftover in tmp.glob("*"):
            leftover.unlink()
        tmp.rmdir()


def _progress_printer(stream=None):
    """A progress callback that prints ``drmath report: MESSAGE`` lines to stderr."""
    stream = sys.stderr if stream is None else stream

    def say(message):
        print(f"drmath report: {message}", file=stream, flush=True)
    return say
