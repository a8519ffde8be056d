"""The worked answer at a glance: a short lead, then a table of the requirements, the promise, the replication,
the tier and why, the cost and the drills, each figure linking to the section of ``00_worked_answer`` that
derives it.

A view. Every number in it is a formatted output of :func:`drmath.solve`, :func:`drmath.plan` and
:mod:`drmath.drills`, so the summary that opens ``00_worked_answer`` and the sections beneath it, which show the
same solved design, cannot disagree. Nothing here derives a number. Money goes through
:func:`drmath.formatting.markdown_text`, so MathJax never reads two amounts as a formula.

    >>> import datetime as dt
    >>> from drmath import Scenario, drills, solve
    >>> from drmath.io.drills import example_log, read_drill_records
    >>> s = Scenario().with_changes({"requirements.rpo_site": 900.0, "requirements.rto_site": 14_400.0})
    >>> promise = drills.promised_rto(read_drill_records(example_log()), 0.95, as_of=dt.date(2025, 5, 26))
    >>> "valid until 2025-06-28" in summary(solve(s), promise)
    True
"""

from . import presets
from .drills import DRILLS, RTOPromise, drill_costs
from .formatting import every, format_quantity, listed, markdown_text, short_duration
from .quantities import TARGETS
from .units import day, week

__all__ = ["summary", "lead", "cadence_words", "SECTIONS"]

SECTIONS = {
    "requirements": "requirements",
    "rpo": "replication-and-rpo",
    "rto": "failover-and-rto",
    "cost": "cost",
    "drills": "drills",
}
"""The sections of ``00_worked_answer`` the summary links to: topic -> the HTML id of the section's anchor
(each section's Markdown cell opens with ``<a id="…"></a>``)."""

_TARGET_SECTION = {"rpo_site": "rpo", "rpo_local": "rpo", "rto_site": "rto", "rto_local": "rto",
                   "schedule_slip": "rto"}
"""Which section derives each requirement's planned value."""


def cadence_words(seconds):
    """A drill cadence in words: "daily", "weekly", or "every 30 days".

    Parameters
    ----------
    seconds : float
        The time between two drills. [s]

    Returns
    -------
    words : str
        The cadence as a reader says it. [1]

    Examples
    --------
    >>> cadence_words(86_400.0), cadence_words(604_800.0), cadence_words(30 * 86_400.0)
    ('daily', 'weekly', 'every 30 days')
    """
    return {day: "daily", week: "weekly"}.get(float(seconds)) or f"every {short_duration(seconds)}"


def _link(text, topic):
    """``text`` as a Markdown link to the section of ``topic`` (:data:`SECTIONS`)."""
    return f"[{text}](#{SECTIONS[topic]})"


def _expiry(promise):
    """When the promise lapses and which drill makes it lapse, in words."""
    if not promise.valid:
        due = listed(DRILLS[name].label.lower() for name in promise.due)
        return (f"**expired** after {promise.expires.isoformat()} (as of {promise.as_of.isoformat()}): run "
                f"{due} before promising it again")
    drills = []
    for name in promise.expiring:
        last = max(e.last for e in promise.phases.values() if e.owner == name)
        drills.append(f"the {cadence_words(DRILLS[name].cadence)} {DRILLS[name].label.lower()} drill (last run "
                      f"{last.isoformat()})")
    days = (promise.expires - promise.as_of).days
    return (f"valid until {promise.expires.isoformat()} ({days} day{'' if days == 1 else 's'} after "
            f"{promise.as_of.isoformat()}); it expires unless {listed(drills)} runs again by then")


def _drills(p):
    """The drills' row: how many are held in the run, their GPU-hours, and which recur how often."""
    costs = drill_costs(p)
    plans = [f"{drill.label.lower()} {cadence_words(drill.cadence)} "
             f"({format_quantity(costs[name]['per_run'], 'count')})"
             for name, drill in sorted(DRILLS.items(), key=lambda item: item[1].cadence)]
    held = sum(c["per_run"] for c in costs.values())
    gpu_hours = sum(c["total"] for c in costs.values())
    figure = f"{format_quantity(held, 'count')} drills, {format_quantity(gpu_hours, 'gpu_hours')}"
    return (_link(figure, "drills"), f"{listed(plans)}: {format_quantity(gpu_hours / p.gpu_hours, 'fraction')} of "
                                     "the run's GPU-hours, to keep measuring the phases the promise rests on")


def _check(solution, promise):
    from ._solve import Solution

    if not isinstance(solution, Solution):
        raise TypeError(f"solution must be a Solution from drmath.solve(), got {type(solution).__name__}")
    if not isinstance(promise, RTOPromise):
        raise TypeError(f"promise must be an RTOPromise from drills.promised_rto(), got {type(promise).__name__}")


def lead(solution, promise):
    """The worked answer's lead: the design, whether it meets the requirements, its cost and its promise.

    Parameters
    ----------
    solution : Solution
        From :func:`drmath.solve`. [1]
    promise : RTOPromise
        From :func:`drmath.drills.promised_rto` on the drill log, as of the scenario's date. [1]

    Returns
    -------
    text : str
        Two sentences of Markdown, money written by :func:`drmath.formatting.markdown_text`. [1]

    Raises
    ------
    TypeError
        If ``solution`` or ``promise`` is of the wrong type.
    """
    _check(solution, promise)
    p, s = solution.plan, solution.scenario
    tier = presets.DR_TIERS[s.failover.tier].label.lower()
    verdict = ("the cheapest design that meets every requirement" if solution.feasible
               else "the closest design to the requirements (none meets them all)")
    rto = (f"the site RTO we can promise from drills is {format_quantity(promise.promised, 'duration')}"
           if promise.valid else "the drilled RTO promise has expired")
    return markdown_text(
        f"**The answer.** A **{tier}** of {p.format('standby_gpus')} GPUs, with {every(int(p.replication_every))} "
        f"shipped over a {format_quantity(s.replication.link_bandwidth, 'line_rate')} link, is {verdict}: a site "
        f"loss costs at most {p.format('rpo_site')} of training, {rto}, and it costs "
        f"{p.format('total_cost_of_resilience')} over the run. The table gives each figure; each links to the "
        "section that derives it.")


def summary(solution, promise, log="the drill log"):
    """The worked answer at a glance, as Markdown: :func:`lead`, then one table row per point a reviewer checks.

    Parameters
    ----------
    solution : Solution
        From :func:`drmath.solve`: the design, its plan and why each other tier loses. [1]
    promise : RTOPromise
        From :func:`drmath.drills.promised_rto` on the drill log, as of the scenario's date. [1]
    log : str, default "the drill log"
        What the drill records are, in words (for drmath's example log, say that it is illustrative). [1]

    Returns
    -------
    text : str
        The lead, then a table (point, figure, what it means) with a row for each requirement and whether it is
        met, the site RPO, the site RTO promised (its percentile, the day it holds until and the drill that ends
        it, or that it expired) and planned, the replication and whether it keeps up, the tier, each other tier
        and why it loses, the cost, and the drills. Each figure is a link to its section (:data:`SECTIONS`);
        money is written by :func:`drmath.formatting.markdown_text`. [1]

    Raises
    ------
    TypeError
        If ``solution`` or ``promise`` is of the wrong type.

    Examples
    --------
    >>> import datetime as dt
    >>> from drmath import Scenario, drills, solve
    >>> from drmath.io.drills import example_log, read_drill_records
    >>> s = Scenario().with_changes({"requirements.rto_site": 14_400.0})
    >>> late = drills.promised_rto(read_drill_records(example_log()), 0.95, as_of=dt.date(2026, 1, 1))
    >>> "**expired** after 2025-06-28" in summary(solve(s), late)
    True
    """
    _check(solution, promise)
    p, s = solution.plan, solution.scenario
    tier = presets.DR_TIERS[s.failover.tier]
    rows = []
    for t in TARGETS:
        target = s.get(t.input)
        if target is None:
            continue
        spare = getattr(p, t.margin)
        state = (f"met, {format_quantity(spare, 'duration')} to spare" if spare >= 0
                 else f"**missed** by {format_quantity(-spare, 'duration')}")
        rows.append((f"Requirement: {t.label[0].lower()}{t.label[1:]} ≤ {format_quantity(target, 'duration')}",
                     _link(p.format(t.value), _TARGET_SECTION[t.value]), state))
    rows.append(("Site RPO", _link(p.format("rpo_site"), "rpo"),
                 f"the most training a site loss destroys (worst case; {p.format('rpo_site_expected')} expected)"))
    if promise.scope == "site" and promise.valid:
        promised = (f"the {100 * promise.confidence:.0f}th percentile of the drilled recoveries in {log}, "
                    + _expiry(promise))
    else:
        promised = f"from {log}: " + _expiry(promise)
    rows.append(("Site RTO promised", _link(format_quantity(promise.promised, "duration"), "drills"), promised))
    rows.append(("Site RTO planned", _link(p.format("rto_site"), "rto"),
                 "the sum of the planned recovery phases: a sum of planned durations that only drills can turn "
                 "into a promise"))
    link = format_quantity(s.replication.link_bandwidth, "line_rate")
    if p.replication_keeps_up:
        rows.append(("Replication", _link(f"{every(int(p.replication_every))}, one every "
                                          f"{p.format('replication_interval')}", "rpo"),
                     f"**keeps up**: each copy reaches the other site over the {link} link "
                     f"{p.format('replication_time')} after it is durable, the link "
                     f"{p.format('replication_utilization')} busy; below "
                     f"{p.format('replication_bandwidth_needed')} it would fall behind"))
    else:
        rows.append(("Replication", _link(f"{every(int(p.replication_every))} over {link}", "rpo"),
                     f"**does not keep up**: it needs {p.format('replication_bandwidth_needed')}, so the site RPO "
                     "has no bound"))
    why = ("the cheapest design that meets every requirement" if solution.feasible
           else "no searched design meets every requirement: this one comes closest")
    rows.append(("DR tier", _link(f"{tier.label}, {p.format('standby_gpus')} GPUs", "rto"),
                 f"{why}; {p.format('standby_fraction')} of the primary, a site loss slips the run "
                 f"{p.format('schedule_slip')}"))
    for name, reason in solution.reasons.items():
        rows.append((f"Why not {presets.DR_TIERS[name].label.lower()}", _link("see the tiers", "rto"), reason))
    rows.append(("Cost", _link(p.format("total_cost_of_resilience"), "cost"),
                 f"total cost of resilience: {p.format('total_dr_cost')} for disaster recovery "
                 f"({p.format('standby_cost')} of it the standby) plus {p.format('goodput_lost_cost')} of goodput "
                 f"lost to checkpoints and restarts, beside the run's own {p.format('run_cost')}"))
    rows.append(("Drills", *_drills(p)))
    table = "| | figure | what it means |\n|---|---|---|\n" + "".join(
        f"| **{what}** | {figure} | {means} |\n" for what, figure, means in rows)
    return lead(solution, promise) + "\n\n" + markdown_text(table)
