"""The worked answer in one paragraph: the promise, the replication, the tier and why, the cost, the drills.

A view. Every number in the paragraph is a formatted output of :func:`drmath.solve`, :func:`drmath.plan`
and :mod:`drmath.drills`, so the paragraph that opens ``00_worked_answer`` and the sections beneath it,
which show the same solved design, cannot disagree. Nothing here derives a number.

    >>> import datetime as dt
    >>> from drmath import Scenario, drills, solve
    >>> s = Scenario().with_changes({"requirements.rpo_site": 900.0, "requirements.rto_site": 14_400.0})
    >>> promise = drills.promised_rto(drills.example_log(), 0.95, as_of=dt.date(2025, 5, 26))
    >>> "valid until 2025-05-26" in paragraph(solve(s), promise)
    True
"""

from . import presets
from .drills import DRILLS, RTOPromise, drill_costs, promise_sentence
from .formatting import every, format_quantity, listed, markdown_text, short_duration
from .quantities import _TARGETS
from .units import day, week

__all__ = ["paragraph", "cadence_words"]


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


def _drill_sentence(p):
    """Which drills recur how often, how many are held in the run and what they cost in GPU-hours."""
    costs = drill_costs(p)
    plans = [f"{drill.label.lower()} {cadence_words(drill.cadence)} "
             f"({format_quantity(costs[name]['per_run'], 'count')})"
             for name, drill in sorted(DRILLS.items(), key=lambda item: item[1].cadence)]
    held = sum(c["per_run"] for c in costs.values())
    gpu_hours = sum(c["total"] for c in costs.values())
    return (f"The promise stays true only while drills keep measuring it: {listed(plans)}, "
            f"{format_quantity(held, 'count')} drills and {format_quantity(gpu_hours, 'gpu_hours')} over the run "
            f"({format_quantity(gpu_hours / p.gpu_hours, 'fraction')} of its GPU-hours).")


def paragraph(solution, promise, log="the drill log"):
    """The worked answer's opening paragraph, as Markdown.

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
        One paragraph of Markdown, money escaped for MathJax (``\\$``): the requirements; the promised
        site RPO and the drilled RTO with its percentile and the day it holds until (or that it
        expired); the replication that keeps up; the tier and why each other tier is ruled out or
        dearer; the total cost of resilience; and the drills that keep the promise true, with their
        GPU-hours. [1]

    Raises
    ------
    TypeError
        If ``solution`` or ``promise`` is of the wrong type.

    Examples
    --------
    >>> import datetime as dt
    >>> from drmath import Scenario, drills, solve
    >>> s = Scenario().with_changes({"requirements.rto_site": 14_400.0})
    >>> late = drills.promised_rto(drills.example_log(), 0.95, as_of=dt.date(2026, 1, 1))
    >>> "expired after 2025-05-26" in paragraph(solve(s), late)
    True
    """
    from ._solve import Solution

    if not isinstance(solution, Solution):
        raise TypeError(f"solution must be a Solution from drmath.solve(), got {type(solution).__name__}")
    if not isinstance(promise, RTOPromise):
        raise TypeError(f"promise must be an RTOPromise from drills.promised_rto(), got {type(promise).__name__}")
    p, s = solution.plan, solution.scenario
    tier = presets.DR_TIERS[s.failover.tier]
    targets = [(label, getattr(p, value), s.get(path)) for path, value, _, label, *_ in _TARGETS
               if s.get(path) is not None]
    parts = ["**The answer.**"]
    if targets:
        parts.append("The requirements: " + listed(
            f"{label[0].lower()}{label[1:]} at most {format_quantity(target, 'duration')}"
            for label, _, target in targets) + ".")
    parts.append(f"A site loss costs at most **{p.format('rpo_site')}** of training (the worst case; "
                 f"{p.format('rpo_site_expected')} expected).")
    promised = promise_sentence(promise)
    rto_target = s.requirements.rto_site
    if promise.valid and promise.scope == "site" and rto_target is not None:
        within = "within" if promise.promised <= rto_target else "over"
        promised = promised[:-1] + f", {within} the {format_quantity(rto_target, 'duration')} target."
    parts.append(promised)
    parts.append(f"It comes from {log}; the plan's own sum of recovery phases is {p.format('rto_site')}, "
                 "a sum of planned durations that only drills can turn into a promise.")
    link = format_quantity(s.replication.link_bandwidth, "line_rate")
    if p.replication_keeps_up:
        parts.append(f"Replication keeps up: {every(int(p.replication_every))}, one every "
                     f"{p.format('replication_interval')} (the off-site cadence solve() chose for the site RPO), "
                     f"reaches the other site over a {link} link {p.format('replication_time')} after it is durable, "
                     f"the link {p.format('replication_utilization')} busy; below "
                     f"{p.format('replication_bandwidth_needed')} it would fall behind.")
    else:
        parts.append(f"Replication does not keep up over the {link} link: it needs "
                     f"{p.format('replication_bandwidth_needed')}, so the site RPO has no bound.")
    size = (f"{p.format('standby_gpus')} GPUs ({p.format('standby_fraction')} of the primary; a site loss slips "
            f"the run {p.format('schedule_slip')})")
    if solution.feasible:
        parts.append(f"The tier is a **{tier.label.lower()}** of {size}, the cheapest design that meets every "
                     "target.")
    else:
        parts.append(f"No searched design meets every target; the closest is a **{tier.label.lower()}** of {size}.")
    if solution.reasons:
        parts.append("The other tiers: " + "; ".join(
            f"{presets.DR_TIERS[name].label}: {why}" for name, why in solution.reasons.items()) + ".")
    parts.append(f"It costs {p.format('total_cost_of_resilience')} over the run in total cost of resilience: "
                 f"{p.format('total_dr_cost')} for disaster recovery ({p.format('standby_cost')} of it the standby) "
                 f"plus {p.format('goodput_lost_cost')} of goodput lost to checkpoints and restarts, beside the "
                 f"run's own {p.format('run_cost')}.")
    parts.append(_drill_sentence(p))
    return markdown_text(" ".join(parts))
