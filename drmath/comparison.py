"""Plans side by side: the rows, the differing inputs, and the same comparison as text, HTML and a table.

``drmath compare A B`` (:mod:`drmath.cli`), notebook 07 and the dashboard's "compare with baseline" read
it; :func:`drmath.compare` (a pandas table of the numbers) is the data under every view here. No physics
lives here: every number is a field of a :class:`drmath.Plan`, formatted by :mod:`drmath.formatting`.

    >>> import drmath
    >>> a = drmath.plan()
    >>> [r["field"] for r in compare_rows([a, a])][:2] == COMPARE_FIELDS[:2]
    True
"""

import functools
import math

from . import viz
from ._moved import forwarder
from ._templates import plain, templates
from .formatting import format_quantity
from .quantities import COMPARED, QUANTITIES
from .scenario import FIELDS

__all__ = ["compare_rows", "compare_inputs", "compare_text", "compare_html", "compare_style", "COMPARE_FIELDS"]

COMPARE_FIELDS = list(COMPARED)
"""The plan's key numbers that :func:`compare_rows` puts side by side: :data:`drmath.quantities.COMPARED`."""


def _two_to_four(plans):
    """The plans as a list, refused unless there are two to four."""
    plans = list(plans)
    if not 2 <= len(plans) <= 4:
        raise ValueError(f"compare needs 2 to 4 scenarios, got {len(plans)}")
    return plans


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
        Two to four plans; the first is the baseline.
    fields : sequence of str, optional
        Plan fields to compare; :data:`COMPARE_FIELDS` when omitted.

    Returns
    -------
    rows : list of dict
        One per field: ``field``, ``title``, ``values`` (SI), ``texts``
        (``Plan.format``) and ``differs`` (True where the value differs from
        the first plan's).

    Raises
    ------
    ValueError
        If there are fewer than two or more than four plans, or a field is unknown.

    Examples
    --------
    >>> import drmath
    >>> a = drmath.plan()
    >>> b = drmath.plan(a.scenario.with_changes({"training.gpus": 16_384}))
    >>> row = compare_rows([a, b], ["mtbf"])[0]
    >>> row["texts"], row["differs"]
    (['6.33 h', '3.09 h'], [False, True])
    """
    from ._plan import compare

    plans = _two_to_four(plans)
    rows = []
    table = compare(plans, fields=COMPARE_FIELDS if fields is None else fields)
    for name, title, *values in table.itertuples(name=None):
        values = [plain(v) for v in values]
        rows.append({"field": name, "title": title, "values": values, "texts": [p.format(name) for p in plans],
                     "differs": [not _same(v, values[0]) for v in values]})
    return rows


def _input_text(path, value):
    """One input as a reader reads it: links in Gbit/s, times in h/min, a preset by its name too."""
    from .formatting import line_rate
    from .io.scenarios import preset_name

    if value is None:
        return "unset"
    if isinstance(value, (str, bool)):
        return str(value).lower() if isinstance(value, bool) else value
    info = FIELDS[path]
    if info.unit == "[B/s]" and "link" in path:
        text = line_rate(value, 4)
    elif info.kind == "fraction":
        text = f"{100 * value:.4g}%"
    elif info.kind not in _UNIT_KINDS:
        text = f"{value:.4g}"
    else:
        text = format_quantity(value, info.kind, 4)
    name = preset_name(path, value)
    return f"{name} · {text}" if name else text


_UNIT_KINDS = ("bandwidth", "line_rate", "bytes", "count", "params", "duration", "flop_rate", "rate", "usd", "usd_rate",
               "usd_per_byte", "usd_per_byte_month", "usd_per_bandwidth_hour")


def compare_inputs(plans):
    """The inputs that differ between two to four plans' scenarios, in field order.

    Parameters
    ----------
    plans : sequence of Plan
        Two to four plans; the first is the baseline.

    Returns
    -------
    rows : list of dict
        One per input that is not the same in every scenario: ``field``
        (``section.field``), ``title`` (the same), ``values`` (SI; None when unset),
        ``texts`` (in the unit a reader expects; a preset also by name) and
        ``differs`` (True where the value differs from the first plan's).

    Raises
    ------
    ValueError
        If there are fewer than two or more than four plans.

    Examples
    --------
    >>> import drmath
    >>> a = drmath.plan()
    >>> b = drmath.plan(a.scenario.with_changes({"training.gpus": 16_384, "replication.interval": 600.0}))
    >>> [(r["field"], r["texts"]) for r in compare_inputs([a, b])]
    [('training.gpus', ['8,000', '16,384']), ('replication.interval', ['1.000 h', '10.00 min'])]
    """
    plans = _two_to_four(plans)
    rows = []
    for path in FIELDS:
        values = [plain(p.scenario.get(path)) for p in plans]
        differs = [v != values[0] for v in values]
        if any(differs):
            rows.append({"field": path, "title": path, "values": values,
                         "texts": [_input_text(path, v) for v in values], "differs": differs})
    return rows


def _change(value, base):
    if isinstance(value, bool) or not all(map(math.isfinite, (value, base))) or base == 0:
        return ""
    change = 100 * (value / base - 1)
    if 0 < abs(change) < 0.01:  # a trace: "(-<0.01%)", never "(-3e-05%)"
        return f" ({'+' if change > 0 else '-'}<0.01%)"
    return f" ({change:+.0f}%)" if abs(change) >= 1 else f" ({change:+.1g}%)"


def compare_text(plans, names, fields=None):
    """The comparison as a plain-text table (the ``drmath compare`` output).

    Parameters
    ----------
    plans : sequence of Plan
        Two to four plans; the first is the baseline.
    names : sequence of str
        A column heading per plan.
    fields : sequence of str, optional
        Plan fields to compare; :data:`COMPARE_FIELDS` when omitted.

    Returns
    -------
    text : str
        First the inputs that differ (:func:`compare_inputs`), then one line per
        number; a value that differs from the first column is marked ``*`` with
        its relative change.

    Examples
    --------
    >>> import drmath
    >>> a = drmath.plan()
    >>> b = drmath.plan(a.scenario.with_changes({"training.gpus": 16_384}))
    >>> lines = compare_text([a, b], ["seed", "16k"], ["mtbf"]).splitlines()
    >>> lines[2].split()
    ['training.gpus', '8,000', '16,384', '*']
    >>> lines[6].split()
    ['Cluster', 'MTBF', '6.33', 'h', '3.09', 'h', '*', '(-51%)']
    """
    rows = compare_rows(plans, fields)
    inputs = compare_inputs(plans)

    def cells_of(rows, change):
        return [[r["title"]] + [t + (f" *{_change(v, r['values'][0]) if change else ''}" if d else "")
                                for t, v, d in zip(r["texts"], r["values"], r["differs"])] for r in rows]

    ins, outs = cells_of(inputs, False), cells_of(rows, True)
    heads = [["input that differs"] + [str(n) for n in names], ["quantity"] + [str(n) for n in names]]
    widths = [max(len(row[i]) for row in ins + outs + heads) for i in range(len(heads[0]))]
    fmt = lambda row: "  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip()  # noqa: E731
    rule = fmt(["-" * w for w in widths])
    lines = ([fmt(heads[0]), rule] + [fmt(r) for r in ins] + [""] if ins else [])
    lines += [fmt(heads[1]), rule] + [fmt(r) for r in outs]
    return "\n".join(lines) + "\n\n* differs from the first column (relative change in brackets)\n"


def compare_html(plans, names, fields=None):
    """The comparison as an HTML table, differences from the first column highlighted.

    Parameters
    ----------
    plans : sequence of Plan
        Two to four plans; the first is the baseline.
    names : sequence of str
        A column heading per plan.
    fields : sequence of str, optional
        Plan fields to compare; :data:`COMPARE_FIELDS` when omitted.

    Returns
    -------
    html : str
        A ``<table class="drmath-compare">`` with inline styles (it renders
        the same in a notebook, Voilà or a file).

    Examples
    --------
    >>> import drmath
    >>> a = drmath.plan()
    >>> b = drmath.plan(a.scenario.with_changes({"failover.tier": "hot"}))
    >>> html = compare_html([a, b], ["warm", "hot"], ["rto_site", "standby_cost", "mtbf"])
    >>> html.count('class="differs"'), html.count("(-50%)")  # the hot standby's site RTO halves
    (2, 1)
    """
    rows = [{"title": r["title"], "cells": [{"text": t, "differs": d, "change": _change(v, r["values"][0])}
                                            for t, v, d in zip(r["texts"], r["values"], r["differs"])]}
            for r in compare_rows(plans, fields)]
    return templates().get_template("compare.html.j2").render(names=[str(n) for n in names], rows=rows,
                                                               palette=viz.PALETTE)


def _cell(value, base, kind):
    """One cell of :func:`compare_style`: the value as ``Plan.format`` writes it, and its change if it differs."""
    value = plain(value)
    return format_quantity(value, kind) + ("" if _same(value, base) else _change(value, base))


def compare_style(plans, names, fields=None):
    """The comparison as a pandas Styler, for a notebook: each row in its unit, differences highlighted.

    Parameters
    ----------
    plans : sequence of Plan
        Two to four plans; the first is the baseline.
    names : sequence of str
        A column heading per plan.
    fields : sequence of str, optional
        Plan fields to compare; :data:`COMPARE_FIELDS` when omitted.

    Returns
    -------
    styler : pandas.io.formats.style.Styler
        The styled :func:`drmath.compare` table: its data are the SI values, one row per
        quantity (labelled with its title) and one column per plan. Each row is written by its
        quantity's kind, as :meth:`~drmath.Plan.format` writes it; a value that differs from
        the first column is highlighted, with its relative change in brackets.

    Raises
    ------
    ValueError
        If there are fewer than two or more than four plans, the names are not one per plan
        and distinct, or a field is unknown.

    Examples
    --------
    >>> import drmath
    >>> a = drmath.plan()
    >>> b = drmath.plan(a.scenario.with_changes({"training.gpus": 16_384}))
    >>> style = compare_style([a, b], ["seed", "16k"], ["mtbf", "replication_keeps_up"])
    >>> print(style.to_string(delimiter=" | "))
     | seed | 16k
    Cluster MTBF | 6.33 h | 3.09 h (-51%)
    Replication keeps up | yes | yes
    <BLANKLINE>
    >>> round(style.data.loc["mtbf", "16k"])  # the numbers stay SI [s]
    11135
    """
    from ._plan import compare

    plans, names = _two_to_four(plans), [str(n) for n in names]
    table = compare(plans, names, COMPARE_FIELDS if fields is None else fields)
    values = table[names]
    base = {field: plain(values.at[field, names[0]]) for field in values.index}
    styler = values.style.format_index(escape="html", axis="columns")  # a name is text, never markup
    for field in values.index:
        styler.format(functools.partial(_cell, base=base[field], kind=QUANTITIES[field].kind),
                      subset=([field], names))
    highlight = f"background-color: {viz.PALETTE['amber-tint']}; font-weight: 600"
    styler.apply(lambda frame: frame.apply(lambda column: [
        "" if _same(plain(v), base[f]) else highlight for f, v in column.items()]), axis=None)
    return (styler.relabel_index(list(table["title"]), axis="index").hide(names=True, axis="index")
            .set_table_styles([
                {"selector": "", "props": "border-collapse: collapse; font-size: 13px"},
                {"selector": "td, th", "props": "padding: 4px 10px"},
                {"selector": "td", "props": "text-align: right; font-variant-numeric: tabular-nums"},
                {"selector": "th.col_heading", "props": "text-align: right"},
                {"selector": "th.row_heading", "props": "text-align: left; font-weight: 400"},
                {"selector": "caption", "props": f"caption-side: bottom; text-align: left; font-size: 12px; "
                                                 f"color: {viz.PALETTE['muted']}"}])
            .set_caption("Highlighted: differs from the first column (relative change in brackets)."))


MOVED = {"compare_figure": "drmath.viz"}
"""The comparison figure is drawn by :func:`drmath.viz.compare_figure`, its one name (issue 33);
``drmath.comparison.compare_figure`` still gives it, with a :class:`FutureWarning`."""

__getattr__ = forwarder(__name__, MOVED)
