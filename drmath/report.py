r"""The standalone report and the side-by-side comparison: views of ``plan()``.

:func:`build_report` turns one scenario into a single HTML document, the
worked answer for it: every number with its derivation from
:meth:`~drmath.Plan.explain`, every figure an interactive plotly chart with
the main knobs (GPU count, checkpoint interval, link bandwidth, DR tier)
precomputed as slider steps. plotly.js is inlined and the formulas are typeset
as plain HTML and CSS, so the file opens with no network and no server.
:func:`write_report` writes it atomically and, optionally, each figure as PNG
for slides (through kaleido).

:func:`compare_rows`, :func:`compare_text`, :func:`compare_html` and
:func:`compare_figure` put two to four scenarios side by side.

No physics lives here: every number comes from :func:`~drmath.plan`,
:func:`~drmath.sweep` or :meth:`~drmath.Plan.explain`, and figures come from
:mod:`drmath.viz`. plotly is imported only by the functions that draw.

    >>> import drmath
    >>> html = build_report(drmath.Scenario(), include_plotlyjs=False)
    >>> 'data-field="rpo_site"' in html and "<script src=" not in html
    True
"""

import html as _html
import json
import math
import re
import sys
from pathlib import Path

import numpy as np

from . import __version__, presets, viz
from .scenario import FIELDS, PLAN_FIELDS, Scenario, plan, sweep
from .scenario_io import atomic_write
from .units import Gbit_per_s, day, format_quantity, hour, minute

__all__ = ["build_report", "write_report", "report_figures", "latex_html", "markdown_html",
           "compare_rows", "compare_text", "compare_html", "compare_figure",
           "REPORT_SECTIONS", "COMPARE_FIELDS", "KNOBS"]

REPORT_SECTIONS = [
    ("run", "1. The run", "How much compute the run needs, how long it takes on this cluster, and what the GPU-hours cost.",
     ["training_flops", "compute_time", "time_to_train", "tokens", "gpu_hours", "run_cost"], []),
    ("checkpoints", "2. Checkpoints", "How big one checkpoint is, how long it takes to persist and to load, and how "
     "much the training loop stalls for it. A checkpoint is not durable until its persist finishes.",
     ["checkpoint_size", "shard_size", "checkpoint_write_time", "checkpoint_stall", "checkpoint_load_time",
      "checkpoint_interval_floor", "checkpoint_bandwidth_share"], []),
    ("cadence", "3. Failures and checkpoint cadence", "How often the cluster is interrupted, how often to "
     "checkpoint, and the share of wall-clock time that makes progress (ETTR).",
     ["mtbf", "expected_interruptions", "young_interval", "daly_interval", "optimal_interval", "checkpoint_interval",
      "restart_overhead", "ettr"], ["ettr"]),
    ("replication", "4. Replication", "How every k-th checkpoint reaches the other site, and whether replication "
     "keeps up with the cadence. If it does not, the backlog grows and the site RPO has no bound.",
     ["replication_every", "replication_interval", "object_store_time", "link_time", "replication_time",
      "replication_utilization", "replication_keeps_up", "replication_bandwidth_needed"], []),
    ("rpo", "5. Recovery point (RPO)", "The progress lost, by failure scope: worst case (the DR convention) and "
     "expected value.", ["rpo_local", "rpo_local_expected", "rpo_site", "rpo_site_expected"], ["rpo"]),
    ("rto", "6. Recovery time (RTO)", "The time until training resumes, as a sum of named phases; the site "
     "failover's standby-readiness phase is set by the DR tier.",
     ["rto_local", "rto_site", "standby_gpus", "schedule_slip"], ["rto"]),
    ("cost", "7. Cost", "What each choice costs: the standby, replication, and the expected loss from a site "
     "event, priced with the cost of delay.",
     ["fleet_cost_rate", "standby_cost", "replication_cost", "site_event_probability", "expected_disaster_loss",
      "total_dr_cost", "tier_total_costs", "break_even_delay_costs"], ["cost_tier", "cost_link"]),
]
"""The report's sections: (id, title, lead sentence, plan fields, figure names)."""

HEADLINE = ["rpo_local", "rpo_site", "rto_local", "rto_site", "ettr", "time_to_train", "total_dr_cost",
            "replication_keeps_up"]

COMPARE_FIELDS = ["time_to_train", "tokens", "checkpoint_size", "checkpoint_interval", "mtbf", "ettr",
                  "replication_time", "replication_keeps_up", "rpo_local", "rpo_site", "rto_local", "rto_site",
                  "standby_cost", "expected_disaster_loss", "total_dr_cost"]
"""The plan's key numbers that :func:`compare_rows` puts side by side."""

KNOBS = {
    "training.gpus": ("GPUs", [1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072]),
    "checkpoint.interval": ("checkpoint interval",
                            [m * minute for m in (1, 2, 5, 10, 20, 30)] + [h * hour for h in (1, 2, 4)]),
    "replication.link_bandwidth": ("link", [g * Gbit_per_s for g in (1, 5, 10, 25, 50, 100, 200, 400, 800, 1600)]),
    "failover.tier": ("DR tier", list(presets.DR_TIERS)),
}
"""The report's slider knobs: field -> (label, values); the scenario's own value is always added."""

_CHECKPOINT_SWEEP = np.geomspace(10.0, day, 90)  # [s]
_REPLICATION_SWEEP = np.geomspace(minute, 2 * day, 90)  # [s]
_LINK_SWEEP = np.geomspace(0.5 * Gbit_per_s, 3200 * Gbit_per_s, 90)  # [B/s]
_RPO_CURVES = ["rpo_site", "rpo_site_expected", "replication_keeps_up"]
_COST_CURVES = ["total_dr_cost", "standby_cost", "replication_cost", "expected_disaster_loss", "replication_keeps_up"]


# --------------------------------------------------------------------------- math and markdown as HTML

_SYMBOLS = {
    "tau": "τ", "delta": "δ", "lambda": "λ", "eta": "η", "ell": "ℓ", "rho": "ρ", "mu": "μ", "sigma": "σ",
    "alpha": "α", "beta": "β", "pi": "π", "Delta": "Δ", "infty": "∞", "le": "≤", "leq": "≤", "ge": "≥",
    "geq": "≥", "ne": "≠", "times": "×", "cdot": "·", "approx": "≈", "pm": "±", "to": "→",
    "rightarrow": "→", "lceil": "⌈", "rceil": "⌉", "lfloor": "⌊", "rfloor": "⌋", "quad": "\u2003",
    "qquad": "\u2003\u2003", ",": "\u2009", ";": "\u2005", ":": "\u2005", " ": " ", "!": "", "$": "$",
    "%": "%", "#": "#", "{": "{", "}": "}", "_": "_", "&": "&", "\\": " ",
}
_FUNCTIONS = {"max", "min", "ln", "log", "exp", "sin", "cos"}
_TEXT = {"text", "mathrm", "operatorname", "textrm", "mathit", "textit", "mathbf", "textbf"}


def _esc(text):
    return _html.escape(text, quote=False)


def _group_raw(src, i):
    """The raw text of a braced group starting at src[i] == '{'; returns (text, next index)."""
    depth, j = 0, i
    while j < len(src):
        if src[j] == "\\" and j + 1 < len(src):
            j += 2
            continue
        if src[j] == "{":
            depth += 1
        elif src[j] == "}":
            depth -= 1
            if depth == 0:
                return src[i + 1:j], j + 1
        j += 1
    return src[i + 1:], len(src)


def _text_arg(raw):
    raw = raw.replace("{,}", ",")
    raw = re.sub(r"\\([$%#&{}_])", r"\1", raw).replace("\\\\", "\\")
    return raw.replace("{", "").replace("}", "")


def _arg(src, i):
    while i < len(src) and src[i] == " ":
        i += 1
    if i >= len(src):
        return "", i
    if src[i] == "{":
        raw, j = _group_raw(src, i)
        return _parse(raw), j
    if src[i] == "\\":
        m = re.match(r"\\([A-Za-z]+|.)", src[i:])
        return _parse(m.group(0)), i + len(m.group(0))
    return _parse(src[i]), i + 1


def _parse(src):
    out, i = [], 0
    while i < len(src):
        c = src[i]
        if c == "{":
            raw, i = _group_raw(src, i)
            out.append(_parse(raw))
        elif c == "}":
            i += 1
        elif c == "\\":
            m = re.match(r"\\([A-Za-z]+|.)", src[i:])
            name = m.group(1)
            i += len(m.group(0))
            if name in ("frac", "tfrac", "dfrac"):
                a, i = _arg(src, i)
                b, i = _arg(src, i)
                out.append(f'<span class="frac"><span class="num">{a}</span><span class="den">{b}</span></span>')
            elif name == "sqrt":
                a, i = _arg(src, i)
                out.append(f'<span class="sqrt">√<span class="rad">{a}</span></span>')
            elif name in _TEXT:
                while i < len(src) and src[i] == " ":
                    i += 1
                raw, i = _group_raw(src, i) if i < len(src) and src[i] == "{" else (src[i:i + 1], i + 1)
                cls = "tx" if name.startswith("text") else "rm"
                out.append(f'<span class="{cls}">{_esc(_text_arg(raw))}</span>')
            elif name in ("left", "right", "big", "Big", "bigl", "bigr"):
                if i < len(src) and src[i] == ".":
                    i += 1
            elif name in _FUNCTIONS:
                out.append(f'<span class="rm">{name}</span>')
            elif name in _SYMBOLS:
                out.append(_esc(_SYMBOLS[name]))
            else:
                out.append(_esc(name))
        elif c in "_^":
            a, i = _arg(src, i + 1)
            tag = "sub" if c == "_" else "sup"
            out.append(f"<{tag}>{a}</{tag}>")
        elif c.isalpha():
            m = re.match(r"[A-Za-z]+", src[i:])
            word = m.group(0) if m else c
            out.append(f"<i>{_esc(word)}</i>")
            i += len(word)
        elif c == " ":
            out.append(" ")
            i += 1
        elif c in "=+<>":
            out.append(f" {_esc(c)} ")
            i += 1
        else:
            out.append(_esc(c))
            i += 1
    return re.sub(r" {2,}", " ", "".join(out))


def latex_html(tex):
    r"""Typeset the LaTeX subset that :meth:`~drmath.Plan.explain` uses as plain HTML.

    Parameters
    ----------
    tex : str
        A formula without ``$`` delimiters: fractions, roots, sub- and
        superscripts, ``\text{}``, Greek letters and relations. [1]

    Returns
    -------
    html : str
        Inline HTML (spans styled by the report's CSS); needs no script or font. [1]

    Notes
    -----
    No PyPI package pinned here ships KaTeX or MathJax for offline use, so the
    report typesets the formulas itself: fractions stack with CSS, roots get an
    overline, variables are italic and ``\text{}`` stays upright. Unknown
    commands print their name, so nothing is ever dropped silently.

    References
    ----------
    .. [1] L. Lamport, *LaTeX: A Document Preparation System*, 2nd ed., 1994 (the notation).

    Examples
    --------
    >>> latex_html(r"\tau_Y = \sqrt{2\,\delta\,M}")
    '<i>τ</i><sub><i>Y</i></sub> = <span class="sqrt">√<span class="rad">2\u2009<i>δ</i>\u2009<i>M</i></span></span>'
    >>> latex_html(r"\frac{1}{2} \le \text{3.5 h}")
    '<span class="frac"><span class="num">1</span><span class="den">2</span></span> ≤ <span class="tx">3.5 h</span>'
    """
    out = _parse(str(tex)).strip()
    # Greek letters are variables: italic like the Latin ones
    return re.sub(r"(?<![\w>])([τδληℓρμσαβπ])", r"<i>\1</i>", out)


def _inline(text):
    text = _esc(text)
    text = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", text)
    text = re.sub(r"`([^`]+)`", r"<code>\1</code>", text)
    return re.sub(r"\$([^$]+)\$", lambda m: f'<span class="math-inline">{latex_html(_html.unescape(m.group(1)))}</span>', text)


def markdown_html(text):
    r"""Render the Markdown that :meth:`~drmath.Plan.explain` returns as HTML.

    Parameters
    ----------
    text : str
        Paragraphs, ``**bold**``, display math ``$$…$$`` and pipe tables. [1]

    Returns
    -------
    html : str
        HTML; display math goes through :func:`latex_html`. [1]

    References
    ----------
    .. [1] J. Gruber, "Markdown syntax", daringfireball.net, 2004 (the subset used).

    Examples
    --------
    >>> markdown_html("**A: 1 h**\n\n$$x = y$$\n")
    '<p><strong>A: 1 h</strong></p>\n<div class="math"><i>x</i> = <i>y</i></div>'
    """
    parts = []
    for block in re.split(r"\n\s*\n", str(text).strip()):
        block = block.strip()
        if block.startswith("$$") and block.endswith("$$") and len(block) > 4:
            parts.append(f'<div class="math">{latex_html(block[2:-2])}</div>')
        elif block.startswith("|"):
            rows = [r.strip().strip("|").split("|") for r in block.splitlines() if r.strip()]
            rows = [r for r in rows if not all(re.fullmatch(r"\s*:?-+:?\s*", c) for c in r)]
            head, body = rows[0], rows[1:]
            th = "".join(f"<th>{_inline(c.strip())}</th>" for c in head)
            trs = "".join("<tr>" + "".join(f"<td>{_inline(c.strip())}</td>" for c in r) + "</tr>" for r in body)
            parts.append(f'<table class="md"><thead><tr>{th}</tr></thead><tbody>{trs}</tbody></table>')
        else:
            parts.append(f"<p>{_inline(block)}</p>".replace("\n", " "))
    return "\n".join(parts)


# --------------------------------------------------------------------------- figures with slider steps


def _with(scenario, path, value):
    return scenario if value is None else scenario.with_changes({path: value})


def _spec(name, p):
    """One figure's spec for one plan; every curve from sweep()."""
    s = p.scenario
    if name == "ettr":
        return viz.ettr_spec(p, _CHECKPOINT_SWEEP, sweep(s, "checkpoint.interval", _CHECKPOINT_SWEEP, ["ettr"]))
    if name == "rpo":
        return viz.rpo_spec(p, _REPLICATION_SWEEP, sweep(s, "replication.interval", _REPLICATION_SWEEP, _RPO_CURVES))
    if name == "rto":
        return viz.rto_spec(p)
    if name == "cost_tier":
        return viz.cost_tier_spec(p)
    if name == "cost_link":
        return viz.cost_link_spec(p, _LINK_SWEEP, sweep(s, "replication.link_bandwidth", _LINK_SWEEP, _COST_CURVES))
    raise ValueError(f"unknown figure {name!r}")


FIGURES = {
    # name: (knob that its slider steps through, caption)
    "ettr": ("training.gpus", "ETTR against the checkpoint interval. More GPUs mean a shorter MTBF, a shorter "
             "optimal interval and a lower ETTR; drag the slider to change the GPU count."),
    "rpo": ("checkpoint.interval", "Site RPO against the replication target. Left of the red line replication "
            "falls behind and the site RPO has no bound; the slider changes the checkpoint interval τ "
            "(every k-th checkpoint ships, kτ ≥ target)."),
    "rto": ("failover.tier", "Site RTO as a sum of named phases; the slider steps through the DR tiers."),
    "cost_tier": ("replication.link_bandwidth", "Total expected DR cost of each tier (standby + replication + "
                  "expected disaster loss); the slider changes the link bandwidth."),
    "cost_link": ("failover.tier", "Total expected DR cost and its parts against the link's line rate; the "
                  "slider changes the DR tier."),
}


def _knob_values(scenario, p, path):
    """(labels, scenario per step, index of the current step) for one knob."""
    label, values = KNOBS[path]
    current = scenario.get(path)
    if path == "failover.tier":
        return values, [_with(scenario, path, v) for v in values], values.index(current)
    info = FIELDS[path]
    values = [v for v in values if info.low <= v <= info.high]
    if path == "checkpoint.interval" and current is None:
        points = [(v, v) for v in values] + [(p.checkpoint_interval, None)]
    else:
        points = [(v, v) for v in values if not math.isclose(v, current)] + [(current, current)]
    points.sort(key=lambda t: t[0])
    labels, scenarios, active = [], [], 0
    for i, (shown, value) in enumerate(points):
        if path == "replication.link_bandwidth":
            text = f"{shown / Gbit_per_s:g} Gbps"
        elif path == "training.gpus":
            text = f"{int(shown):,}"
        else:
            text = format_quantity(shown, "duration", 2)
        if value is None:
            text = f"optimal {text}"
        if value == current:
            active = i
        labels.append(text)
        scenarios.append(_with(scenario, path, value))
    return labels, scenarios, active


_RESTYLE = ("x", "y", "base", "text", "name", "marker", "line", "customdata", "hovertemplate", "mode",
            "showlegend", "visible", "hoverinfo")


def _slider_spec(specs, labels, active, knob):
    """One figure whose slider steps restyle and relayout it to each precomputed spec."""
    n = max(len(s["data"]) for s in specs)

    def padded(spec):
        data = [dict(t, visible=True) for t in spec["data"]]
        data += [{"type": "scatter", "mode": "markers", "x": [], "y": [], "name": "", "visible": False,
                  "showlegend": False, "hoverinfo": "skip"} for _ in range(n - len(data))]
        return data

    steps = []
    for spec, label in zip(specs, labels):
        data, lay = padded(spec), spec["layout"]
        restyle = {k: [t.get(k) for t in data] for k in _RESTYLE}
        relayout = {"title.text": lay["title"]["text"], "shapes": lay.get("shapes", []),
                    "annotations": lay.get("annotations", [])}
        for axis in ("xaxis", "yaxis"):
            relayout[f"{axis}.title.text"] = lay[axis]["title"]["text"]
            if "range" in lay[axis]:
                relayout[f"{axis}.range"] = lay[axis]["range"]
            else:
                relayout[f"{axis}.autorange"] = True
        steps.append({"label": label, "method": "update", "args": [restyle, relayout]})
    base = specs[active]
    layout = dict(base["layout"])
    layout["height"] = layout.get("height", 300) + 90
    layout["margin"] = dict(layout.get("margin", {}), b=130)
    layout["sliders"] = [{"active": active, "steps": steps, "x": 0.0, "len": 1.0, "y": 0, "yanchor": "top",
                          "pad": {"t": 58, "b": 0}, "currentvalue": {"prefix": f"{knob}: ", "font": {"size": 12}},
                          "font": {"size": 10}}]
    return {"data": padded(base), "layout": layout}


def report_figures(scenario, progress=None):
    """The report's figures, each with its knob precomputed as slider steps.

    Parameters
    ----------
    scenario : Scenario
        The inputs. [1]
    progress : callable, optional
        Called with a short message before each figure. [1]

    Returns
    -------
    figures : dict of str to dict
        ``{name: JSON-ready plotly spec}`` for ``ettr``, ``rpo``, ``rto``,
        ``cost_tier`` and ``cost_link``; each step's numbers come from
        :func:`~drmath.plan` and :func:`~drmath.sweep`. [1]

    References
    ----------
    .. [1] plotly.js, "Sliders", https://plotly.com/javascript/sliders/ (the ``update`` method).

    Examples
    --------
    >>> import drmath
    >>> figs = report_figures(drmath.Scenario())
    >>> slider = figs["rto"]["layout"]["sliders"][0]
    >>> [s["label"] for s in slider["steps"]][slider["active"]]
    'warm'
    """
    p = plan(scenario)
    cache = {}
    figures = {}
    for name, (path, _) in FIGURES.items():
        if progress:
            progress(f"figure {name}: {KNOBS[path][0]} steps")
        labels, scenarios, active = _knob_values(scenario, p, path)
        specs = []
        for s in scenarios:
            if s not in cache:
                cache[s] = plan(s)
            specs.append(_spec(name, cache[s]))
        figures[name] = _slider_spec(specs, labels, active, KNOBS[path][0])
    return figures


# --------------------------------------------------------------------------- the document

_CSS = """
:root { --ink:#1f2933; --muted:#52606d; --line:#e4e7eb; --blue:#2563eb; --orange:#ea580c; --red:#dc2626;
  --green:#16a34a; --bg:#f8fafc; }
* { box-sizing: border-box; }
body { margin:0; font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif; color:var(--ink); background:white; }
main { max-width: 1180px; margin: 0 auto; padding: 24px 28px 64px; }
h1 { font-size: 28px; margin: 8px 0 4px; } h2 { font-size: 21px; margin: 40px 0 6px; padding-top: 8px;
  border-top: 2px solid var(--line); } h3 { font-size: 15px; margin: 0; }
.sub { color: var(--muted); margin: 0 0 16px; } .lead { color: var(--muted); margin: 0 0 14px; max-width: 860px; }
nav { font-size: 13px; margin: 8px 0 0; } nav a { margin-right: 12px; color: var(--blue); text-decoration: none; }
.kpis { display:grid; grid-template-columns: repeat(auto-fill, minmax(170px,1fr)); gap:10px; margin: 18px 0; }
.kpi { border:1px solid var(--line); border-radius:8px; padding:10px 12px; background: var(--bg); text-decoration:none; color:inherit; }
.kpi .label { font-size:12px; color:var(--muted); display:block; } .kpi .num { font-size:21px; font-weight:650; }
.kpi.bad { border-color: var(--red); background:#fef2f2; } .kpi.bad .num { color: var(--red); }
.cards { display:grid; grid-template-columns: repeat(auto-fill, minmax(520px,1fr)); gap:12px; }
.card { border:1px solid var(--line); border-radius:8px; padding:10px 14px; overflow-x:auto; }
.card h3 .num { float:right; font-size:16px; color: var(--blue); font-weight: 650; }
.card p { margin: 6px 0; font-size: 13.5px; color: var(--muted); }
.math { font-family: "Latin Modern Math","STIX Two Math","Cambria Math","Times New Roman",serif; font-size:17px;
  margin: 8px 0; line-height: 2.3; }
.math .tx, .math .rm { font-style: normal; } .math .tx { font-family: system-ui,sans-serif; font-size: 14px; white-space: nowrap;
  background:#eef2ff; border-radius:3px; padding: 0 3px; }
.frac { display:inline-flex; flex-direction:column; vertical-align:middle; text-align:center; margin:0 2px; line-height:1.25; }
.frac > .num { border-bottom:1px solid currentColor; padding:0 3px 1px; } .frac > .den { padding:1px 3px 0; }
.sqrt > .rad { border-top:1px solid currentColor; padding: 0 2px; }
sub, sup { font-size: 70%; }
.callout { border-left: 4px solid var(--red); background:#fef2f2; padding: 10px 14px; margin: 12px 0; border-radius: 4px; }
.callout.note { border-color: var(--blue); background:#eff6ff; }
.figure { border:1px solid var(--line); border-radius:8px; padding:6px; margin: 14px 0; }
.figure .plot { width: 100%; } .figure figcaption { font-size:13px; color:var(--muted); padding: 0 8px 6px; }
table { border-collapse: collapse; font-size: 13px; } td, th { border-bottom:1px solid var(--line); padding:4px 8px; text-align:left; vertical-align: top; }
table.inputs td:nth-child(2) { white-space: nowrap; font-variant-numeric: tabular-nums; } table.inputs td:nth-child(3) { color: var(--muted); }
table.md { margin: 6px 0; }
footer { margin-top: 40px; color: var(--muted); font-size: 12px; }
"""


def _number(p, name):
    value = getattr(p, name)
    si = "inf" if isinstance(value, float) and math.isinf(value) else json.dumps(value)
    return f'<span class="num" data-field="{name}" data-si="{_esc(si)}">{_esc(p.format(name))}</span>'


def _card(p, name):
    text = p.explain(name)
    if name in PLAN_FIELDS:
        head = f'<h3>{_esc(PLAN_FIELDS[name][1])} {_number(p, name)}</h3>'
        body = re.split(r"\n\s*\n", text.strip(), maxsplit=1)
        body = body[1] if len(body) > 1 else ""
    else:
        head, body = "", text
    return f'<div class="card" id="d-{name}">{head}\n{markdown_html(body)}</div>'


def _inputs_table(scenario):
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
        changed = "" if value == info.default else " ●"
        rows.append(f"<tr><td><code>{path}</code>{changed}</td><td>{_esc(shown)}</td>"
                    f"<td>{_esc(info.doc)} <em>Basis:</em> {_esc(info.basis)}</td></tr>")
    return ('<table class="inputs"><thead><tr><th>input</th><th>value</th><th>meaning and basis</th></tr></thead>'
            "<tbody>" + "".join(rows) + "</tbody></table>")


def _json_script(obj):
    from plotly.utils import PlotlyJSONEncoder

    return json.dumps(obj, cls=PlotlyJSONEncoder, separators=(",", ":")).replace("</", "<\\/")


def build_report(scenario=None, title=None, description="", include_plotlyjs=True, progress=None, figures=None):
    """The worked answer for one scenario as one standalone HTML document.

    Parameters
    ----------
    scenario : Scenario, optional
        The inputs; the seed case when omitted. [1]
    title : str, optional
        The document's title; a summary of the scenario when omitted. [1]
    description : str, default ""
        A sentence under the title (e.g. a scenario file's description). [1]
    include_plotlyjs : bool, default True
        Inline plotly.js (the 1.2 MB basic bundle) so the file needs no network; False
        leaves it out (for tests of the text only). [1]
    progress : callable, optional
        Called with a short message at each stage. [1]
    figures : dict, optional
        Precomputed :func:`report_figures` output, to reuse. [1]

    Returns
    -------
    html : str
        The document: headline numbers, one section per step of the answer
        with each number's derivation (formula, inputs, result), interactive
        figures with slider steps, and every input with its basis. [1]

    Notes
    -----
    Every number is rendered as ``<span class="num" data-field=NAME
    data-si=VALUE>`` with the text of ``Plan.format(NAME)``, so a test can
    check the page against :func:`~drmath.plan`.

    References
    ----------
    .. [1] drmath DESIGN.md §1: the bar a design review grades by (derived RPO/RTO,
       replication keeping up, readiness and its price, drills).

    Examples
    --------
    >>> import drmath
    >>> html = build_report(drmath.Scenario(), include_plotlyjs=False)
    >>> html.count('class="card"') >= 40
    True
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
    t = scenario.training
    title = title or (f"Disaster-recovery plan: {t.gpus:,} GPUs, {p.format('time_to_train')}, "
                      f"{t.params / 1e9:g}B parameters, {presets.DR_TIERS[scenario.failover.tier].label}")
    out = [f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
           f'<meta name="viewport" content="width=device-width, initial-scale=1">'
           f"<title>{_esc(title)}</title><style>{_CSS}</style>"]
    if include_plotlyjs:  # the 1.2 MB basic bundle: every figure here is scatter or bar
        out.append(f'<script type="text/javascript">{viz.PLOTLY_BASIC_JS.read_text(encoding="utf-8")}</script>')
    out.append("</head><body><main>")
    out.append(f"<h1>{_esc(title)}</h1>")
    sub = (f"drmath {__version__} · every number below is derived by <code>drmath.plan()</code> and shown with "
           f"its formula, its inputs and its result · SI inside, readable units here")
    if description:
        out.append(f'<p class="lead">{_esc(description)}</p>')
    out.append(f'<p class="sub">{sub}</p>')
    out.append("<nav>" + "".join(f'<a href="#{sid}">{_esc(stitle)}</a>' for sid, stitle, *_ in REPORT_SECTIONS)
               + '<a href="#inputs">Inputs</a></nav>')
    kpis = []
    for name in HEADLINE:
        bad = (name == "replication_keeps_up" and not p.replication_keeps_up) or (
            isinstance(getattr(p, name), float) and math.isinf(getattr(p, name)))
        kpis.append(f'<a class="kpi{" bad" if bad else ""}" href="#d-{name}"><span class="label">'
                    f"{_esc(PLAN_FIELDS[name][1])}</span>{_number(p, name)}</a>")
    out.append('<div class="kpis" id="headline">' + "".join(kpis) + "</div>")
    if not p.replication_keeps_up:
        out.append('<div class="callout">' + markdown_html(p.explain("rpo_site").split("\n\n", 3)[-1]) + "</div>")
    if p.checkpoint_interval_floored:
        out.append('<div class="callout note"><p>The checkpoint interval set in the scenario is below the floor '
                   "(a checkpoint cannot start before the previous one is durable), so it is raised to it.</p></div>")
    plots = []
    for sid, stitle, lead, names, figs in REPORT_SECTIONS:
        out.append(f'<section id="{sid}"><h2>{_esc(stitle)}</h2><p class="lead">{_esc(lead)}</p>')
        for fig in figs:
            div = f"fig-{fig}"
            out.append(f'<figure class="figure" id="{div}-box"><div class="plot drmath-figure" id="{div}"></div>'
                       f"<figcaption>{_esc(FIGURES[fig][1])}</figcaption></figure>")
            plots.append((div, figures[fig]))
        out.append('<div class="cards">' + "".join(_card(p, n) for n in names) + "</div></section>")
    out.append('<section id="drills"><h2>8. Drills</h2><p class="lead">The RTO above is a sum of best-case phases. '
               "The RTO you can promise comes from drills that measure each phase (checkpoint restore, replication "
               "verification, failover game day, detection and alerting): a high percentile of their sum, valid "
               "until the drills go stale. See <code>drmath.drills</code> and notebook 06.</p></section>")
    out.append(f'<section id="inputs"><h2>Inputs</h2><p class="lead">Every input of this scenario, with the basis '
               f"of drmath's default (● marks a value changed from it).</p>{_inputs_table(scenario)}</section>")
    out.append(f"<footer>Generated by drmath {__version__}. Self-contained: plotly.js is inlined, formulas are "
               "typeset with HTML and CSS, and the page makes no network request.</footer></main>")
    config = {"displaylogo": False, "responsive": True}
    calls = "".join(f'Plotly.newPlot("{div}",F["{div}"].data,F["{div}"].layout,C);' for div, _ in plots)
    out.append(f"<script>(function(){{var C={_json_script(config)};var F={_json_script(dict(plots))};"
               f"if(window.Plotly){{{calls}}}}})();</script>")
    out.append("</body></html>\n")
    return "".join(out)


def write_report(scenario, path, png_dir=None, title=None, description="", progress=None):
    """Write the report to ``path`` atomically and, optionally, each figure as PNG.

    Parameters
    ----------
    scenario : Scenario
        The inputs. [1]
    path : str or os.PathLike
        The HTML file; a regular file is replaced atomically, a FIFO or device written through
        (:func:`drmath.scenario_io.output_target`). [1]
    png_dir : str or os.PathLike, optional
        If given, each figure (without its slider) is also written there as
        ``NAME.png`` through kaleido, each atomically. [1]
    title : str, optional
        The document's title. [1]
    description : str, default ""
        A sentence under the title. [1]
    progress : callable, optional
        Called with a short message at each stage. [1]

    Returns
    -------
    written : list of pathlib.Path
        The HTML file, then any PNG files. [1]

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
    document = build_report(scenario, title, description, progress=say, figures=figures)
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


# --------------------------------------------------------------------------- comparison


def _same(a, b):
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if math.isinf(a) or math.isinf(b):
        return a == b
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=0.0)


def compare_rows(plans, fields=None):
    """The key numbers of two to four plans side by side, with what differs from the first.

    Parameters
    ----------
    plans : sequence of Plan
        Two to four plans; the first is the baseline. [1]
    fields : sequence of str, optional
        Plan fields to compare; :data:`COMPARE_FIELDS` when omitted. [1]

    Returns
    -------
    rows : list of dict
        One per field: ``field``, ``title``, ``values`` (SI), ``texts``
        (``Plan.format``) and ``differs`` (True where the value differs from
        the first plan's). [1]

    Raises
    ------
    ValueError
        If there are fewer than two or more than four plans, or a field is unknown.

    References
    ----------
    .. [1] drmath DESIGN.md §1: the numbers a design review grades a plan by.

    Examples
    --------
    >>> import drmath
    >>> a = drmath.plan()
    >>> b = drmath.plan(a.scenario.with_changes({"training.gpus": 16_384}))
    >>> row = compare_rows([a, b], ["mtbf"])[0]
    >>> row["texts"], row["differs"]
    (['6.33 h', '3.09 h'], [False, True])
    """
    plans = list(plans)
    if not 2 <= len(plans) <= 4:
        raise ValueError(f"compare needs 2 to 4 scenarios, got {len(plans)}")
    rows = []
    for name in COMPARE_FIELDS if fields is None else fields:
        if name not in PLAN_FIELDS:
            raise ValueError(f"unknown plan field {name!r}: choose from {', '.join(PLAN_FIELDS)}")
        values = [getattr(p, name) for p in plans]
        rows.append({"field": name, "title": PLAN_FIELDS[name][1], "values": values,
                     "texts": [p.format(name) for p in plans],
                     "differs": [not _same(v, values[0]) for v in values]})
    return rows


def _change(value, base):
    if isinstance(value, bool) or not all(map(math.isfinite, (value, base))) or base == 0:
        return ""
    change = 100 * (value / base - 1)
    return f" ({change:+.0f}%)" if abs(change) >= 1 else f" ({change:+.1g}%)"


def compare_text(plans, names, fields=None):
    """The comparison as a plain-text table (the ``drmath compare`` output).

    Parameters
    ----------
    plans : sequence of Plan
        Two to four plans; the first is the baseline. [1]
    names : sequence of str
        A column heading per plan. [1]
    fields : sequence of str, optional
        Plan fields to compare; :data:`COMPARE_FIELDS` when omitted. [1]

    Returns
    -------
    text : str
        One line per number; a value that differs from the first column is
        marked ``*`` with its relative change. [1]

    References
    ----------
    .. [1] drmath DESIGN.md §1: the numbers a design review grades a plan by.

    Examples
    --------
    >>> import drmath
    >>> a = drmath.plan()
    >>> b = drmath.plan(a.scenario.with_changes({"training.gpus": 16_384}))
    >>> print(compare_text([a, b], ["seed", "16k"], ["mtbf"]).splitlines()[2].split())
    ['Cluster', 'MTBF', '6.33', 'h', '3.09', 'h', '*', '(-51%)']
    """
    rows = compare_rows(plans, fields)
    cells = [[r["title"]] + [t + (f" *{_change(v, r['values'][0])}" if d else "")
                             for t, v, d in zip(r["texts"], r["values"], r["differs"])] for r in rows]
    head = ["quantity"] + [str(n) for n in names]
    widths = [max(len(row[i]) for row in cells + [head]) for i in range(len(head))]
    fmt = lambda row: "  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip()  # noqa: E731
    lines = [fmt(head), fmt(["-" * w for w in widths])] + [fmt(r) for r in cells]
    return "\n".join(lines) + "\n\n* differs from the first column (relative change in brackets)\n"


def compare_html(plans, names, fields=None):
    """The comparison as an HTML table, differences from the first column highlighted.

    Parameters
    ----------
    plans : sequence of Plan
        Two to four plans; the first is the baseline. [1]
    names : sequence of str
        A column heading per plan. [1]
    fields : sequence of str, optional
        Plan fields to compare; :data:`COMPARE_FIELDS` when omitted. [1]

    Returns
    -------
    html : str
        A ``<table class="drmath-compare">`` with inline styles (it renders
        the same in a notebook, Voilà or a file). [1]

    References
    ----------
    .. [1] drmath DESIGN.md §1: the numbers a design review grades a plan by.

    Examples
    --------
    >>> import drmath
    >>> a = drmath.plan()
    >>> b = drmath.plan(a.scenario.with_changes({"failover.tier": "hot"}))
    >>> compare_html([a, b], ["warm", "hot"]).count('class="differs"') > 0
    True
    """
    rows = compare_rows(plans, fields)
    th = "".join(f'<th style="text-align:right;padding:4px 10px">{_esc(str(n))}</th>' for n in names)
    body = []
    for r in rows:
        tds = []
        for t, v, d in zip(r["texts"], r["values"], r["differs"]):
            style = "text-align:right;padding:4px 10px;font-variant-numeric:tabular-nums"
            if d:
                tds.append(f'<td class="differs" style="{style};background:#fff7ed;font-weight:600">{_esc(t)}'
                           f'<span style="color:#9a3412;font-weight:400">{_esc(_change(v, r["values"][0]))}</span></td>')
            else:
                tds.append(f'<td style="{style}">{_esc(t)}</td>')
        body.append(f'<tr><td style="padding:4px 10px">{_esc(r["title"])}</td>{"".join(tds)}</tr>')
    return ('<table class="drmath-compare" style="border-collapse:collapse;font-size:13px">'
            f'<thead><tr><th style="text-align:left;padding:4px 10px">quantity</th>{th}</tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table>'
            '<p style="font-size:12px;color:#52606d">Highlighted: differs from the first column '
            "(relative change in brackets).</p>")


_PALETTE = [viz.BLUE, viz.ORANGE, viz.GREEN, viz.PURPLE]


def compare_figure(plans, names):
    """The plans' curves overlaid: ETTR, site RPO and total DR cost, one colour per scenario.

    Parameters
    ----------
    plans : sequence of Plan
        Two to four plans. [1]
    names : sequence of str
        A legend name per plan. [1]

    Returns
    -------
    fig : plotly.graph_objects.Figure
        Three stacked panels: ETTR against the checkpoint interval, site RPO
        (worst) against the replication target, total expected DR cost against
        the link's line rate; each scenario's current point is marked. [1]

    References
    ----------
    .. [1] drmath DESIGN.md §2: ETTR (Kokolis et al. 2024), site RPO and total DR cost as derived by plan().

    Examples
    --------
    >>> import drmath
    >>> a = drmath.plan()
    >>> b = drmath.plan(a.scenario.with_changes({"training.gpus": 16_384}))
    >>> len(compare_figure([a, b], ["seed", "16k"]).data)
    12
    """
    from plotly.subplots import make_subplots

    plans = list(plans)
    compare_rows(plans, [])  # checks the count
    c_scale, c_unit = viz.duration_unit(np.median(_CHECKPOINT_SWEEP))
    r_scale, r_unit = viz.duration_unit(np.median(_REPLICATION_SWEEP))
    fig = make_subplots(rows=3, cols=1, vertical_spacing=0.1, subplot_titles=(
        "ETTR vs checkpoint interval", "Site RPO (worst) vs replication target",
        "Total expected DR cost vs link bandwidth"))
    for i, (p, name) in enumerate(zip(plans, names)):
        color, s = _PALETTE[i % 4], p.scenario
        ettr = sweep(s, "checkpoint.interval", _CHECKPOINT_SWEEP, ["ettr"])["ettr"]
        rpo = sweep(s, "replication.interval", _REPLICATION_SWEEP, ["rpo_site"])["rpo_site"]
        total = sweep(s, "replication.link_bandwidth", _LINK_SWEEP, ["total_dr_cost"])["total_dr_cost"]
        panels = [
            (1, _CHECKPOINT_SWEEP / c_scale, 100 * ettr, p.checkpoint_interval / c_scale, 100 * p.ettr),
            (2, _REPLICATION_SWEEP / r_scale, rpo / r_scale, s.replication.interval / r_scale, p.rpo_site / r_scale),
            (3, _LINK_SWEEP / Gbit_per_s, total / 1e6, s.replication.link_bandwidth / Gbit_per_s, p.total_dr_cost / 1e6),
        ]
        for row, x, y, cx, cy in panels:
            fig.add_scatter(x=viz.jsonable(x), y=viz.jsonable(y), mode="lines", name=str(name), legendgroup=str(i),
                            showlegend=row == 1, line={"color": color, "width": 2.2}, row=row, col=1)
            fig.add_scatter(x=[viz.jsonable(cx)], y=[viz.jsonable(cy)], mode="markers", name=f"{name} (current)",
                            legendgroup=str(i), showlegend=False, row=row, col=1,
                            marker={"color": color, "size": 11, "line": {"color": "white", "width": 1.5}})
    fig.update_xaxes(type="log", gridcolor=viz.GRID)
    fig.update_yaxes(gridcolor=viz.GRID)
    fig.update_yaxes(type="log", row=2, col=1)
    fig.update_yaxes(type="log", row=3, col=1)
    fig.update_xaxes(title_text=f"checkpoint interval [{c_unit}]", row=1, col=1)
    fig.update_yaxes(title_text="ETTR [%]", row=1, col=1)
    fig.update_xaxes(title_text=f"replication target [{r_unit}]", row=2, col=1)
    fig.update_yaxes(title_text=f"site RPO [{r_unit}]", row=2, col=1)
    fig.update_xaxes(title_text="link line rate [Gbit/s]", row=3, col=1)
    fig.update_yaxes(title_text="cost [$M]", row=3, col=1)
    fig.update_layout(height=900, paper_bgcolor="white", plot_bgcolor="white", margin={"l": 60, "r": 16, "t": 60, "b": 40},
                      legend={"orientation": "h", "x": 0, "y": 1.06}, font={"size": 12, "color": viz.INK})
    return fig


def _progress_printer(stream=None):
    """A progress callback that prints ``drmath report: MESSAGE`` lines to stderr."""
    stream = sys.stderr if stream is None else stream

    def say(message):
        print(f"drmath report: {message}", file=stream, flush=True)
    return say
