"""The dashboard's KPI cards and tier table as HTML: pure string builders over a :class:`~drmath.Plan`.

Each card shows one plan field (:data:`CARDS`): the registry's title (with :data:`DEFINITIONS` as its
tooltip), the value, the sub-line of the cards' layout (:mod:`drmath.viz.headline`), its target's verdict and,
against a pinned baseline, its change. The live dashboard puts each card's HTML in a widget; :func:`cards_html`
writes the same cards as one static block, for the web server's preview. Nothing here imports ipywidgets, anywidget
or plotly.

Test hooks (a contract; the browser tests use them): each card renders an element with class
``drmath-kpi-<plan field>`` whose ``data-value`` is the SI value from ``plan()`` (:func:`data_value`)
and whose text is the human reading; a target's verdict is a ``.drmath-target`` with ``data-margin``.

    >>> import drmath
    >>> html = cards_html(drmath.plan())
    >>> html.count('class="drmath-card"'), 'data-value="0.' in html
    (10, True)
"""

import html
import math

import numpy as np

from .. import presets, quantities
from ..formatting import change, format_quantity, html_text, short_duration
from ..units import day, hour, minute
from ..viz import headline
from ..viz.headline import card_detail, card_moves, card_title
from .bands import band_html

__all__ = ["CARDS", "DEFINITIONS", "TARGET_CONTROLS", "TARGET_OF_CARD", "TIER_COLUMNS", "TIER_COLUMN_DEFINITIONS",
           "data_value", "cards_html", "tier_table_html"]

CARDS = headline.CARDS
"""The plan fields shown as KPI cards, in order: :data:`drmath.viz.headline.CARDS`."""

TARGET_CONTROLS = (
    ("requirements.rpo_site", "Site RPO at most", (minute, 5 * minute, 10 * minute, 15 * minute, 30 * minute, hour,
                                                    2 * hour, 4 * hour, 12 * hour, day)),
    ("requirements.rto_site", "Site RTO at most", (10 * minute, 30 * minute, hour, 2 * hour, 4 * hour, 8 * hour,
                                                    12 * hour, day, 3 * day, 7 * day, 30 * day)),
    ("requirements.max_slip", "Slip at most", (0.0, hour, day, 3 * day, 7 * day, 14 * day, 30 * day, 60 * day)),
)
"""The target controls of the "meet these targets" panel: (input, label, the values offered) [s]."""

TARGET_OF_CARD = {t.value if t.value != "schedule_slip" else "site_loss_time": (t.input, t.margin)
                  for t in quantities.TARGETS}
"""Which card shows which target's verdict: ``{card: (requirement path, margin quantity)}``."""


def data_value(value):
    """The ``data-value`` attribute of a KPI card: the SI value, losslessly.

    Parameters
    ----------
    value : float or bool
        A plan field in SI.

    Returns
    -------
    text : str
        ``repr`` of the float, ``"inf"`` for no bound, ``"true"``/``"false"`` for a flag.

    Examples
    --------
    >>> data_value(0.25), data_value(float("inf")), data_value(True)
    ('0.25', 'inf', 'true')
    """
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    value = float(value)
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return repr(value)


# --------------------------------------------------------------------------- cards

DEFINITIONS = {
    "rpo_local": "Local RPO (recovery point objective): the training work lost when a GPU or node fails, "
                 "at worst: everything since the last checkpoint that was safely written.",
    "rpo_site": "Site RPO (recovery point objective): the work lost when the whole site is lost, at worst: "
                "everything since the last checkpoint copy that reached the other site.",
    "rto_local": "Local RTO (recovery time objective): how long the run stands still after a GPU or node "
                 "failure: detect it, reschedule, relaunch, load the checkpoint, check it.",
    "rto_site": "Site RTO (recovery time objective): how long until training resumes at the other site after "
                "losing this one: detect, decide, bring up the standby, copy the checkpoint in.",
    "ettr": "ETTR (effective training time ratio): the share of the wall-clock time spent on useful training, "
            "after checkpoint pauses, lost work and restarts.",
    "time_to_train": "Time to train: the wall-clock time the run takes, failures and recoveries included.",
    "total_dr_cost": "Total DR cost: what disaster recovery costs over the run: the standby site, the link "
                     "and the storage, plus the expected loss from a site disaster.",
    "site_loss_time": "Site loss: how much later the run ends when the whole site is lost (the schedule slip), and "
                      "what that costs: the work since the last off-site copy, the time until training resumes at "
                      "the other site, and the extra time while a smaller standby carries on.",
    "reduced_capacity_time": "Time at reduced capacity: after a site loss, the extra time the run takes on a standby "
                             "smaller than the primary, until the lost site's GPUs are rebuilt.",
    "replication_keeps_up": "Replication keeps up: each off-site copy finishes before the next one starts. "
                            "If not, copies pile up and the site RPO has no bound.",
}
"""What each card's title means, in plain words: its tooltip (the ``title`` attribute)."""


def _target_html(p, name):
    """The card's verdict on its target (:data:`TARGET_OF_CARD`): met with what to spare, or missed by how much."""
    if name not in TARGET_OF_CARD:
        return ""
    path, margin_name = TARGET_OF_CARD[name]
    target = p.scenario.get(path)
    if target is None:
        return ""
    margin = getattr(p, margin_name)
    what = "slip " if path == "requirements.max_slip" else ""
    goal = f"target: {what}≤ {short_duration(target)}"
    if margin >= 0:
        text, state = f"{goal} · met, {short_duration(margin)} to spare", "met"
    else:
        text, state = f"{goal} · missed by {'no bound' if math.isinf(margin) else short_duration(-margin)}", "missed"
    return (f'<div class="drmath-target drmath-target-{state}" data-margin="{data_value(margin)}">'
            f'{html.escape(text)}</div>')


def _moved(new, old, kind):
    """How one of a card's sub-line quantities moved, in a few characters: ``+50%``, or :func:`change`'s text."""
    if kind in ("fraction", "flag") or not (math.isfinite(new) and math.isfinite(old)) or old == 0 \
            or abs(new / old - 1) < 0.005:
        return change(new, old, kind)
    return f"{'+' if new > old else '−'}{abs(new / old - 1):.0%}"


def _delta_html(p, name, baseline):
    """A card's change against the pinned baseline; when its own value held, what its sub-line shows that moved
    (:func:`drmath.viz.headline.card_moves`), so "no change" is said only when nothing it shows changed."""
    q = quantities.QUANTITIES[name]
    text = change(getattr(p, name), getattr(baseline, name), q.kind)
    if text == "no change":
        moved = [f"{card_title(m)[0].lower() + card_title(m)[1:]} "
                 f"{_moved(getattr(p, m), getattr(baseline, m), quantities.QUANTITIES[m].kind)}"
                 for m in card_moves(name) if getattr(p, m) != getattr(baseline, m)]
        if moved:
            text = f"unchanged; {', '.join(moved)}"
    return (f'<div class="drmath-delta{" drmath-delta-none" if text == "no change" else ""}">'
            f'{html.escape(text)} vs baseline</div>')


def _card_html(p, name, baseline=None, bands=None):
    """A KPI card: the registry's title, the plan's value (with its 90% range when ``bands`` has uncertainty), the
    registry's sub-line, its target's verdict and, with a pinned ``baseline`` plan, its change against it."""
    value = getattr(p, name)
    bad = (name == "replication_keeps_up" and not value) or (
        isinstance(value, float) and math.isinf(value))
    delta = "" if baseline is None else _delta_html(p, name, baseline)
    return (f'<div class="drmath-card-title" title="{html.escape(DEFINITIONS.get(name, card_title(name)))}">'
            f'{html.escape(card_title(name))}</div>'
            f'<div class="drmath-kpi drmath-kpi-{name}{" drmath-bad" if bad else ""}" '
            f'data-value="{data_value(value)}">{html.escape(p.format(name))}</div>'
            + band_html(bands, name)  # its 90% range under the value, when the scenario has uncertainty
            + f'<div class="drmath-card-sub">{html_text(card_detail(p, name))}</div>'
            + _target_html(p, name) + delta)


def cards_html(p, baseline=None):
    """The headline cards of a plan as one static block of HTML, exactly as the live dashboard draws them.

    Parameters
    ----------
    p : Plan
        The plan whose :data:`CARDS` are shown.
    baseline : Plan, optional
        A pinned plan: each card then says its change against it.

    Returns
    -------
    html : str
        A ``<div class="drmath-cards">`` holding one ``<div class="drmath-card">`` per card, in the order
        of :data:`CARDS`; each card's content is the live dashboard's own (the same classes and ``data-*``
        attributes), without its "show the math" button.

    Examples
    --------
    >>> import drmath
    >>> html = cards_html(drmath.plan())
    >>> html.startswith('<div class="drmath-cards"><div class="drmath-card"><div class="drmath-card-title"')
    True
    >>> html.count("drmath-kpi-") == len(CARDS)
    True
    """
    cards = "".join(f'<div class="drmath-card">{_card_html(p, name, baseline)}</div>' for name in CARDS)
    return f'<div class="drmath-cards">{cards}</div>'


TIER_COLUMNS = (("tier_rto_sites", "site RTO"), ("tier_rpo_sites", "site RPO"), ("tier_total_costs", "total DR cost"),
                ("tier_schedule_slips", "expected slip"), ("break_even_delay_costs", "pays for itself above"))
"""The tier table's columns: (plan quantity, heading)."""

TIER_COLUMN_DEFINITIONS = {
    "tier_rto_sites": "how long after losing the site training resumes on this tier's standby",
    "tier_rpo_sites": "the training work lost with the site, at worst (the same for every tier but multi-site)",
    "tier_total_costs": "the standby, replication, cross-site circuit and expected disaster loss over the run, "
                        "goodput not included",
    "tier_schedule_slips": "how much later the run ends after a site loss: work redone, the outage and the time at "
                           "reduced capacity",
    "break_even_delay_costs": "the cost of delay (the business value of a day late, cost.delay_cost) above which this "
                              "tier's total DR cost is below cold backup & restore's; 'baseline' is cold itself, "
                              "'no bound' a tier that never pays for itself",
}
"""What each column of the tier table means, in plain words: shown in its caption and on its header."""


def tier_table_html(p):
    """Every DR tier side by side (site RTO, RPO, cost, slip, break-even), the plan's own tier highlighted.

    Parameters
    ----------
    p : Plan
        The current plan; its per-tier quantities (:data:`drmath.quantities.TABLES`).

    Returns
    -------
    html : str
        A ``<table class="drmath-tier-table">``; each cell's ``data-value`` is the SI value.

    Examples
    --------
    >>> from drmath import plan
    >>> "drmath-tier-current" in tier_table_html(plan()), tier_table_html(plan()).count("<tr")  # head, six tiers
    (True, 7)
    """
    current = p.scenario.failover.tier
    head = "".join(f'<th title="{html.escape(TIER_COLUMN_DEFINITIONS[name])}.">{html.escape(title)}</th>'
                   for name, title in TIER_COLUMNS)
    legend = "".join(f"<br><b>{html.escape(title)}</b>: {html.escape(TIER_COLUMN_DEFINITIONS[name])}."
                     for name, title in TIER_COLUMNS)
    rows = []
    for tier in presets.DR_TIERS.values():
        cells = []
        for name, _ in TIER_COLUMNS:
            value = getattr(p, name)[tier.name]
            kind = quantities.QUANTITIES[name].kind
            shown = ("baseline" if name == "break_even_delay_costs" and tier.name == presets.BASELINE_TIER
                     else format_quantity(value, kind))
            cells.append(f'<td data-value="{data_value(value)}">{html.escape(shown)}</td>')
        mark = ' class="drmath-tier-current"' if tier.name == current else ""
        rows.append(f'<tr{mark} data-tier="{tier.name}"><th title="{html.escape(tier.assumptions)}">'
                    f'{html.escape(tier.label)}</th>{"".join(cells)}</tr>')
    return (f'<table class="drmath-tier-table"><caption>Every DR tier for these inputs (yours highlighted).{legend}'
            f'</caption><thead><tr><th>tier</th>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>')


