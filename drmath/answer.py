"""The worked answer at a glance: a short lead, then a table of the requirements, the promise, the replication,
the tier and why, the cost and the drills, each figure linking to the section of ``00_worked_answer`` that
derives it.

A view. Every number in it is a formatted output of :func:`drmath.solve`, :func:`drmath.plan` and
:mod:`drmath.drills`, so the summary that opens ``00_worked_answer`` and the sections beneath it, which show the
same solved design, cannot disagree. Nothing here derives a number. Money goes through
:func:`drmath.formatting.markdown_text`, so MathJax never reads two amounts as a formula.

    >>> from drmath import Scenario, drills, solve
    >>> from drmath.io.drills import example_log, read_drill_records
    >>> s = Scenario().with_changes({"requirements.rpo_site": 900.0, "requirements.rto_site": 14_400.0})
    >>> records = read_drill_records(example_log())
    >>> promise = drills.promised_rto(records, 0.95, as_of=promise_day(records))
    >>> "valid until 2025-06-28 (1 day after 2025-06-27)" in summary(solve(s), promise)
    True
"""

import functools

from . import presets
from .drills import DRILLS, RTOPromise, drill_costs
from .formatting import every, format_quantity, listed, markdown_text, short_duration
from .io import scenarios
from .quantities import TARGETS
from .units import day, week

__all__ = ["worked_answer", "design_toml", "DESIGN_META", "REASONS", "EXAMPLE_LOG", "TIER_FIELDS", "REPORT_ANCHORS",
           "requirements_table", "design_table", "tier_solutions", "tier_table", "why_not", "expectation_note",
           "example_promise", "evidence_table", "promise_note", "follow_ups", "worked_sections", "summary", "lead",
           "tier_reasons",
           "cadence_words", "SECTIONS", "EDGE", "promise_day", "margin_words", "slip_reasons", "tier_tables_note",
           "talking_points"]


@functools.cache
def worked_answer():
    """The worked answer: :func:`drmath.solve` of the seed scenario (:func:`drmath.io.scenarios.seed`, which
    carries the answer's requirements), searched once per process.

    The one place the answer's design is computed. Notebook 00, ``drmath solve`` and ``drmath report`` with no
    scenario show it; the dashboard and the served page open on its design as the shipped copy
    ``data/scenarios/answer.toml`` reads it (:func:`drmath.io.scenarios.answer`, no search at page start), which
    ``tests/test_one_answer.py`` holds to :func:`design_toml` of this solution, so the two cannot drift.

    Returns
    -------
    solution : Solution
        The cheapest design meeting the seed's targets, its plan and why each other tier loses. The same object
        on every call: treat it as read-only. [1]

    Examples
    --------
    >>> worked_answer().scenario.failover.tier, worked_answer() is worked_answer()
    ('warm', True)
    """
    from ._solve import solve

    return solve(scenarios.seed())


DESIGN_META = {
    "name": "Worked answer",  # short: the files row that shows it must not wrap at 1400 px
    "description": ("The seed's requirements met at the lowest total cost of resilience: the design drmath.solve() "
                    "finds for the seed (notebook 00, drmath solve, drmath report). The dashboard opens on it, with "
                    "the seed's own design as the baseline it improves on."),
}
"""The ``[scenario]`` table of ``data/scenarios/answer.toml`` beside the seed's sources and date."""


def design_toml():
    """The worked answer's design as the TOML text of ``data/scenarios/answer.toml``.

    ``data/make_answer.py`` writes it; a test checks the shipped file equals it byte for byte, so the design the
    dashboard opens on is the one :func:`worked_answer` finds today.

    Returns
    -------
    text : str
        :func:`drmath.io.scenarios.dumps` of the solved scenario, with :data:`DESIGN_META` and the seed's sources
        and date. [1]

    Examples
    --------
    >>> scenarios.loads(design_toml()) == worked_answer().scenario
    True
    """
    seed = scenarios.read_meta(scenarios.SCENARIO_DIR / "seed.toml")
    meta = {**DESIGN_META, "sources": seed.get("sources"), "date": seed.get("date")}
    return scenarios.dumps(worked_answer().scenario, meta)

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


EDGE = 0.01
"""A requirement met with less than this share of its target to spare is met **on the edge**, and said so: the
solver buys no margin it is not asked for, so its design sits on the boundary of a target it binds. [1]"""


def promise_day(records, scope="site"):
    """The day a drill log supports a promise: the date of its newest record of ``scope``.

    A promise made before that day would rest on drills not yet run; made after it, the newest drill only
    ages. ``drills.promised_rto(records, as_of=promise_day(records))`` makes the promise the log supports.

    Parameters
    ----------
    records : list of DrillRecord
        From :func:`drmath.io.drills.read_drill_records`. [1]
    scope : {"site", "local"}, default "site"
        Whose records: the phases of that recovery. [1]

    Returns
    -------
    day : datetime.date
        The newest record's date. [1]

    Raises
    ------
    ValueError
        If no record is of that scope.

    Examples
    --------
    >>> from drmath.io.drills import example_log, read_drill_records
    >>> promise_day(read_drill_records(example_log())).isoformat()
    '2025-06-27'
    """
    days = [r.date for r in records if r.phase.startswith(f"{scope}.")]
    if not days:
        raise ValueError(f"records hold no {scope}.* phase, so they support no {scope} promise")
    return max(days)


def margin_words(p, target):
    """Whether one requirement is met, in words, and when it is met on the edge (:data:`EDGE`), what breaks it.

    Parameters
    ----------
    p : Plan
        The design's plan. [1]
    target : Target
        One of :data:`drmath.quantities.TARGETS`, whose input the scenario sets. [1]

    Returns
    -------
    words : str
        ``"met, 2.33 h to spare"``, ``"**missed** by 5.00 min"``, or, within :data:`EDGE` of the target, the
        margin as a share of the target and the levers that would use it up. [1]
    """
    target_value = p.scenario.get(target.input)
    spare = getattr(p, target.margin)
    if spare < 0:
        return f"**missed** by {format_quantity(-spare, 'duration')}"
    words = f"met, {format_quantity(spare, 'duration')} to spare"
    if spare < EDGE * target_value:
        words += (f": **on the edge**, {format_quantity(spare, 'duration')} of a "
                  f"{format_quantity(target_value, 'duration')} target, within {format_quantity(EDGE, 'fraction')} of "
                  f"it. The cheapest design spends the whole budget, so anything that adds "
                  f"{format_quantity(spare, 'duration')} to the {target.label[0].lower()}{target.label[1:]} misses it; "
                  f"margin takes {target.levers}")
    return words


def slip_reasons(plans):
    """What makes up each tier's schedule slip, and why a tier that restarts sooner can slip more.

    Parameters
    ----------
    plans : dict of str to Plan
        A plan per DR tier (each tier at its own best design). [1]

    Returns
    -------
    text : str
        Markdown: a sentence per tier (work lost, outage, time at reduced capacity, the slip), then for each pair
        where one tier restarts sooner but slips more, the reason from its standby's size and the rebuild. [1]
    """
    parts = []
    for name, q in plans.items():
        parts.append(f"- {presets.DR_TIERS[name].label}: {q.format('rpo_site_expected')} of work lost, "
                     f"{q.format('rto_site')} until training resumes and {q.format('reduced_capacity_time')} "
                     f"at reduced capacity, {q.format('schedule_slip')} in all.")
    parts.append("")
    for a, qa in plans.items():
        for b, qb in plans.items():
            if qa.rto_site < qb.rto_site and qa.schedule_slip > qb.schedule_slip:
                ta, tb = presets.DR_TIERS[a], presets.DR_TIERS[b]
                parts.append(
                    f"**Why {ta.label.lower()} slips more than {tb.label.lower()}.** It resumes "
                    f"{format_quantity(qb.rto_site - qa.rto_site, 'duration')} sooner, but on "
                    f"{qa.format('standby_fraction')} of the GPUs, and the run is back at full speed only when the "
                    f"lost site is rebuilt, {format_quantity(ta.rebuild_time, 'duration')} after training resumes in "
                    f"this model: {qa.format('reduced_capacity_time')} at reduced capacity, against "
                    f"{qb.format('reduced_capacity_time')} for {tb.label.lower()}, which resumes on "
                    f"{qb.format('standby_fraction')} of the GPUs. So it slips "
                    f"{format_quantity(qa.schedule_slip - qb.schedule_slip, 'duration')} more: a small standby "
                    "buys an early restart, not progress.\n")
    return markdown_text("What each tier's schedule slip is made of:\n\n" + "\n".join(parts))


def tier_tables_note(p, plans):
    """Which design each of the two tier tables shows, with the tier whose figures differ most between them.

    The worked answer shows the tiers twice: each at its own best design (``plans``), and each dropped into the
    solved design unchanged (``p.tier_total_costs``, its link, cadences and standby share). A reader who sets them
    side by side must be told that they are two designs.

    Parameters
    ----------
    p : Plan
        The solved design's plan. [1]
    plans : dict of str to Plan
        A plan per DR tier, each at its own best design. [1]

    Returns
    -------
    text : str
        Markdown. [1]
    """
    name = max(plans, key=lambda n: abs(p.tier_total_costs[n] - plans[n].total_dr_cost))
    label = presets.DR_TIERS[name].label
    return markdown_text(
        f"This table keeps the solved design ({presets.DR_TIERS[p.scenario.failover.tier].label.lower()}: its link, "
        f"cadences and standby share) and swaps only the tier, so it is not the table of section 5, where each tier "
        f"has its own best design. {label}, for one, costs "
        f"{format_quantity(p.tier_total_costs[name], 'usd')} of DR here, against "
        f"{plans[name].format('total_dr_cost')} at its own best (a total cost of resilience of "
        f"{plans[name].format('total_cost_of_resilience')} there).")


def _met(q):
    return "still meets every requirement" if q.meets_requirements else "no longer meets every requirement"


def _cheapest(solution):
    design = solution.scenario
    head = ("the cheapest design that meets every requirement is" if solution.feasible
            else "no design meets every requirement; the closest is")
    return (f"{head} a {presets.DR_TIERS[design.failover.tier].label.lower()} with a "
            f"{format_quantity(design.replication.link_bandwidth, 'line_rate')} link, for "
            f"{solution.plan.format('total_cost_of_resilience')}")


def talking_points(p, *, half, half_solution, hot, mfu, mfu_solution, promise, game_days_planned, big,
                   big_solution):
    """The follow-up questions an interviewer asks, each answered from the plans of the scenario it names.

    Parameters
    ----------
    p : Plan
        The solved design. [1]
    half, half_solution : Plan, Solution
        The design with its link halved, and :func:`drmath.solve` with the link fixed at that rate. [1]
    hot : Solution
        The cheapest hot standby. [1]
    mfu, mfu_solution : Plan, Solution
        The design at 30% MFU on the same tokens, and solved afresh there. [1]
    promise : RTOPromise
        The drilled promise. [1]
    game_days_planned : int
        Failover game days the drill schedule holds in the run. [1]
    big, big_solution : Plan, Solution
        The design on more GPUs, and solved afresh there. [1]

    Returns
    -------
    text : str
        A Markdown list, one item per question; money written by :func:`drmath.formatting.markdown_text`. [1]
    """
    from .drills import promise_sentence

    s = p.scenario
    target = format_quantity(s.requirements.rpo_site, "duration")
    fixed = s.checkpoint.interval is not None
    kept = (f"Kept at the {s.training.gpus:,}-GPU design's {p.format('checkpoint_interval')}, the checkpoint "
            f"interval leaves ETTR at {big.format('ettr')}" if fixed
            else f"At Daly's interval ETTR falls to {big.format('ettr')}")
    points = [
        f"**What if the link halves?** At {format_quantity(half.scenario.replication.link_bandwidth, 'line_rate')} "
        f"replication {'still keeps up' if half.replication_keeps_up else 'no longer keeps up'} (the link "
        f"{half.format('replication_utilization')} busy; it needs {half.format('replication_bandwidth_needed')}). "
        f"Each copy takes {half.format('replication_time')} instead of {p.format('replication_time')}, so the site "
        f"RPO becomes {half.format('rpo_site')} against its {target} target and the design {_met(half)}; solved "
        f"afresh with the link fixed at that rate, {_cheapest(half_solution)}, shipping a copy every "
        f"{half_solution.plan.format('replication_interval')}.",
        f"**Why not hot?** A hot standby cuts the site RTO from {p.format('rto_site')} to "
        f"{hot.plan.format('rto_site')}, but the requirement is already met, and its cheapest design costs "
        f"{hot.plan.format('total_cost_of_resilience')} against {p.format('total_cost_of_resilience')}. In "
        f"expectation it pays for itself only once a day of delay costs more than "
        f"{format_quantity(p.break_even_delay_costs['hot'], 'usd_rate')}; this scenario assumes "
        f"{format_quantity(s.cost.delay_cost, 'usd_rate')}.",
        f"**What if MFU drops to {format_quantity(mfu.scenario.training.mfu, 'fraction')}?** The same tokens take "
        f"{mfu.format('time_to_train')} instead of {p.format('time_to_train')} and "
        f"{mfu.format('run_cost')} instead of {p.format('run_cost')}; the design {_met(mfu)}, and the total cost of "
        f"resilience becomes {mfu.format('total_cost_of_resilience')} over the longer run. Solved afresh, "
        f"{_cheapest(mfu_solution)}.",
        f"**How do you know the RTO holds?** Only from drills. The plan's {p.format('rto_site')} is a sum of "
        f"planned phases; the drilled phases sum to {format_quantity(promise.best_case_sum, 'duration')} at best "
        f"and {format_quantity(promise.worst_case_sum, 'duration')} at worst. {promise_sentence(promise)} It rests "
        f"on only {promise.phases['site.readiness'].count} failover game days, so the tail is understated until "
        f"more are run; the schedule above adds {format_quantity(game_days_planned, 'count')} in the run.",
        f"**What breaks at {big.scenario.training.gpus:,} GPUs?** Goodput, before disaster recovery: the cluster "
        f"fails every {big.format('mtbf')} ({big.format('expected_interruptions')} interruptions in the run), and "
        f"Daly's interval falls to {big.format('daly_interval')}. {kept}, and goodput lost becomes "
        f"{big.format('goodput_lost_cost')} of a {big.format('total_cost_of_resilience')} total cost of resilience. "
        f"Solved afresh, checkpoints every {big_solution.plan.format('checkpoint_interval')} lift ETTR to "
        f"{big_solution.plan.format('ettr')}, and {_cheapest(big_solution)}.",
    ]
    return markdown_text("".join(f"- {point}\n" for point in points))


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


def _link(text, topic, anchors=None):
    """``text`` as a Markdown link to the section of ``topic`` (``anchors``, :data:`SECTIONS` by default)."""
    return f"[{text}](#{(anchors or SECTIONS)[topic]})"


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


def _drills(p, anchors=None):
    """The drills' row: how many are held in the run, their GPU-hours, and which recur how often."""
    costs = drill_costs(p)
    plans = [f"{drill.label.lower()} {cadence_words(drill.cadence)} "
             f"({format_quantity(costs[name]['per_run'], 'count')})"
             for name, drill in sorted(DRILLS.items(), key=lambda item: item[1].cadence)]
    held = sum(c["per_run"] for c in costs.values())
    gpu_hours = sum(c["total"] for c in costs.values())
    figure = f"{format_quantity(held, 'count')} drills, {format_quantity(gpu_hours, 'gpu_hours')}"
    return (_link(figure, "drills", anchors),
            f"{listed(plans)}: {format_quantity(gpu_hours / p.gpu_hours, 'fraction')} of the run's GPU-hours, to "
            "keep measuring the phases the promise rests on")


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
        From :func:`drmath.drills.promised_rto` on the drill log, as of the day its drills support
        (:func:`promise_day`). [1]

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


def summary(solution, promise, log="the drill log", anchors=None, best=None):
    """The worked answer at a glance, as Markdown: :func:`lead`, then one table row per point a reviewer checks.

    Parameters
    ----------
    solution : Solution
        From :func:`drmath.solve`: the design, its plan and why each other tier loses. [1]
    promise : RTOPromise
        From :func:`drmath.drills.promised_rto` on the drill log, as of the day its drills support
        (:func:`promise_day`). [1]
    log : str, default "the drill log"
        What the drill records are, in words (for drmath's example log, say that it is illustrative). [1]
    anchors : dict of str to str, optional
        Where each figure links: topic -> HTML id, for a page whose sections are not notebook 00's
        (:data:`SECTIONS`, the default; ``drmath report`` gives :data:`REPORT_ANCHORS`). [1]
    best : dict of str to Solution, optional
        :func:`tier_solutions` of the solved scenario, for a page that also shows the tiers: each "why not" then
        quotes the tier's own best design (:func:`tier_reasons`). None quotes :attr:`Solution.reasons
        <drmath.Solution.reasons>`. [1]

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
        state = margin_words(p, t)
        rows.append((f"Requirement: {t.label[0].lower()}{t.label[1:]} ≤ {format_quantity(target, 'duration')}",
                     _link(p.format(t.value), _TARGET_SECTION[t.value], anchors), state))
    rows.append(("Site RPO", _link(p.format("rpo_site"), "rpo", anchors),
                 f"the most training a site loss destroys (worst case; {p.format('rpo_site_expected')} expected)"))
    if promise.scope == "site" and promise.valid:
        promised = (f"the {100 * promise.confidence:.0f}th percentile of the drilled recoveries in {log}, "
                    + _expiry(promise))
    else:
        promised = f"from {log}: " + _expiry(promise)
    rows.append(("Site RTO promised", _link(format_quantity(promise.promised, "duration"), "drills", anchors),
                 promised))
    rows.append(("Site RTO planned", _link(p.format("rto_site"), "rto", anchors),
                 "the sum of the planned recovery phases: a sum of planned durations that only drills can turn "
                 "into a promise"))
    link = format_quantity(s.replication.link_bandwidth, "line_rate")
    if p.replication_keeps_up:
        rows.append(("Replication", _link(f"{every(int(p.replication_every))}, one every "
                                          f"{p.format('replication_interval')}", "rpo", anchors),
                     f"**keeps up**: each copy reaches the other site over the {link} link "
                     f"{p.format('replication_time')} after it is durable, the link "
                     f"{p.format('replication_utilization')} busy; below "
                     f"{p.format('replication_bandwidth_needed')} it would fall behind"))
    else:
        rows.append(("Replication", _link(f"{every(int(p.replication_every))} over {link}", "rpo", anchors),
                     f"**does not keep up**: it needs {p.format('replication_bandwidth_needed')}, so the site RPO "
                     "has no bound"))
    why = ("the cheapest design that meets every requirement" if solution.feasible
           else "no searched design meets every requirement: this one comes closest")
    rows.append(("DR tier", _link(f"{tier.label}, {p.format('standby_gpus')} GPUs", "rto", anchors),
                 f"{why}; {p.format('standby_fraction')} of the primary, a site loss slips the run "
                 f"{p.format('schedule_slip')}"))
    for name, reason in tier_reasons(solution, best).items():
        rows.append((f"Why not {presets.DR_TIERS[name].label.lower()}", _link("see the tiers", "rto", anchors),
                     reason))
    rows.append(("Cost", _link(p.format("total_cost_of_resilience"), "cost", anchors),
                 f"total cost of resilience: {p.format('total_dr_cost')} for disaster recovery "
                 f"({p.format('standby_cost')} of it the standby) plus {p.format('goodput_lost_cost')} of goodput "
                 f"lost to checkpoints and restarts, beside the run's own {p.format('run_cost')}"))
    rows.append(("Drills", *_drills(p, anchors)))
    table = "| | figure | what it means |\n|---|---|---|\n" + "".join(
        f"| **{what}** | {figure} | {means} |\n" for what, figure, means in rows)
    return lead(solution, promise) + "\n\n" + markdown_text(table)


# --------------------------------------------------------------------------- the worked answer, piece by piece
# Notebook 00 and `drmath report` (no scenario) show the same pieces, built here from the same plans.

REASONS = {  # path: (what it bounds, why)
    "requirements.rpo_site": ("site RPO", "lose at most a quarter hour of the fleet's work to a site loss: redoing "
                              "that costs less than shipping every checkpoint off-site"),
    "requirements.rto_site": ("site RTO", "resume within the shift in which the site is lost, so the on-call team, "
                              "not a new purchase of GPUs, brings training back"),
    "requirements.max_slip": ("schedule slip", "let the model land at most a week late after a site loss (work lost, "
                              "outage and time at reduced capacity): what the launch plan can absorb"),
}
"""The answer's stated assumptions: each requirement the seed sets, what it bounds and why."""

EXAMPLE_LOG = "drmath's example drill log (illustrative, not measured)"
"""What the worked answer's drill records are, in words (:func:`summary`'s ``log``)."""

TIER_FIELDS = ("meets_requirements", "rto_site", "rpo_site", "rpo_site_expected", "reduced_capacity_time",
               "schedule_slip", "standby_gpus", "total_dr_cost", "total_cost_of_resilience")
"""The columns of :func:`tier_table`: each tier at its own best design."""


def requirements_table(scenario):
    """The requirements the answer starts from, as a Markdown table: what each bounds, its target and why.

    Parameters
    ----------
    scenario : Scenario
        The scenario whose targets are shown (the seed's, :data:`REASONS` for the why). [1]

    Returns
    -------
    text : str
        Markdown. [1]

    Examples
    --------
    >>> "| site RTO | 4.00 h |" in requirements_table(scenarios.seed())
    True
    """
    return markdown_text("| requirement | target | why |\n|---|---|---|\n" + "".join(
        f"| {what} | {format_quantity(scenario.get(path), 'duration')} | {why} |\n"
        for path, (what, why) in REASONS.items() if scenario.get(path) is not None))


def design_table(solution):
    """The scenario around the design, as a Markdown table: the fixed inputs, then the levers the search set.

    Parameters
    ----------
    solution : Solution
        From :func:`drmath.solve`. [1]

    Returns
    -------
    text : str
        Markdown; the rows the search set are marked *solved*. [1]
    """
    s, p = solution.scenario, solution.plan
    interval = s.checkpoint.interval
    return markdown_text(
        f"| input | value |\n|---|---|\n"
        f"| GPUs | {s.training.gpus:,} × {format_quantity(s.training.peak_flop_rate, 'flop_rate')} dense BF16 |\n"
        f"| model | {format_quantity(s.training.params, 'params')} parameters |\n"
        f"| window | {format_quantity(s.training.window, 'duration')} |\n"
        f"| MFU | {format_quantity(s.training.mfu, 'fraction')} |\n"
        f"| cost of delay | {format_quantity(s.cost.delay_cost, 'usd_rate')} |\n"
        f"| failover tier (*solved*) | {presets.DR_TIERS[s.failover.tier].label} |\n"
        f"| standby size (*solved*) | {p.format('standby_fraction')} of the primary |\n"
        f"| cross-site link (*solved*) | {format_quantity(s.replication.link_bandwidth, 'line_rate')} |\n"
        f"| off-site target interval (*solved*) | {format_quantity(s.replication.interval, 'duration')} |\n"
        f"| checkpoint interval (*solved*) | "
        f"{'Daly optimum' if interval is None else format_quantity(interval, 'duration')} |")


def tier_solutions(wanted):
    """Each DR tier at its own best: :func:`drmath.solve` of ``wanted`` restricted to that tier.

    Parameters
    ----------
    wanted : Scenario
        The scenario with the requirements. [1]

    Returns
    -------
    best : dict of str to Solution
        By tier name, in :data:`drmath.presets.SEARCHED_TIERS` order (the tiers :func:`drmath.solve` searches):
        the cheapest design of the tier that meets every requirement, or the closest. [1]
    """
    from ._solve import solve

    return {name: solve(wanted, tiers=[name]) for name in presets.SEARCHED_TIERS}


def tier_table(best):
    """Each tier at its own best design, as a Markdown table (:data:`TIER_FIELDS`).

    Parameters
    ----------
    best : dict of str to Solution
        From :func:`tier_solutions`. [1]

    Returns
    -------
    text : str
        Markdown: a row per tier, each figure :meth:`Plan.format <drmath.Plan.format>` of its plan. [1]
    """
    from .viz.headline import card_title

    head = "| tier | " + " | ".join(card_title(f) for f in TIER_FIELDS) + " |\n|---" + "|---" * len(TIER_FIELDS)
    rows = "".join(f"| {presets.DR_TIERS[name].label} | " + " | ".join(b.plan.format(f) for f in TIER_FIELDS)
                   + " |\n" for name, b in best.items())
    return markdown_text(head + "|\n" + rows)


def tier_reasons(solution, best=None):
    """Why not each other tier, quoting each tier's own best design where one meets every requirement.

    :attr:`Solution.reasons <drmath.Solution.reasons>` prices a tier that meets every requirement at the cheapest
    design of the search's grid; :func:`tier_solutions` refines and rounds it, which can move its cost by a
    rounding step. A page that shows both quotes one: with ``best``, a tier that meets every requirement is priced
    at its own best design, as the tier table shows it.

    Parameters
    ----------
    solution : Solution
        From :func:`drmath.solve`. [1]
    best : dict of str to Solution, optional
        :func:`tier_solutions` of the same scenario; None keeps :attr:`Solution.reasons`. [1]

    Returns
    -------
    reasons : dict of str to str
        By tier, as :attr:`Solution.reasons`: the target a tier cannot meet (its best reach over the tier's
        designs), or what its best design costs and how much more than the solved one. [1]
    """
    from ._solve import priced_reason

    reasons = dict(solution.reasons)
    for name in reasons:
        own = (best or {}).get(name)
        if own is not None and own.feasible:
            cost = own.plan.total_cost_of_resilience
            reasons[name] = priced_reason(cost, cost - solution.plan.total_cost_of_resilience)
    return reasons


def why_not(solution, best=None):
    """Why not each other tier, in one Markdown paragraph: :func:`tier_reasons`.

    Parameters
    ----------
    solution : Solution
        From :func:`drmath.solve`. [1]
    best : dict of str to Solution, optional
        :func:`tier_solutions` of the same scenario, when the page shows the tiers too. [1]

    Returns
    -------
    text : str
        Markdown. [1]
    """
    return markdown_text("**Why not the others.** " + " ".join(
        f"{presets.DR_TIERS[name].label}: {why}." for name, why in tier_reasons(solution, best).items()))


def expectation_note(p):
    """Why the tier is bought although, on expected cost, it may not pay for itself: the requirements decide.

    Parameters
    ----------
    p : Plan
        The solved design's plan. [1]

    Returns
    -------
    text : str
        Markdown. [1]
    """
    s = p.scenario
    label = presets.DR_TIERS[s.failover.tier].label.lower()
    return markdown_text(
        f"On expected cost alone the {label} pays for itself against cold backup & restore only once a "
        f"day of delay costs more than {format_quantity(p.break_even_delay_costs[s.failover.tier], 'usd_rate')}, "
        f"and this scenario assumes {format_quantity(s.cost.delay_cost, 'usd_rate')}. The expectation is not "
        f"why it is bought: the requirements are. A site event is rare (probability "
        f"{p.format('site_event_probability')} during the run), but when it happens the business needs training "
        f"back within {format_quantity(s.requirements.rto_site, 'duration')}, and only the tiers that meet the "
        f"requirements are candidates; among them, the {label} is the cheapest.")


def example_promise():
    """The RTO the worked answer promises: drmath's example drill log, at the 95th percentile, on its day.

    Returns
    -------
    records : list of DrillRecord
        :func:`drmath.io.drills.example_log`, read. [1]
    promise : RTOPromise
        :func:`drmath.drills.promised_rto` of the site phases as of :func:`promise_day`. [1]

    Examples
    --------
    >>> example_promise()[1].as_of.isoformat()
    '2025-06-27'
    """
    from . import drills
    from .io.drills import example_log, read_drill_records

    records = read_drill_records(example_log())
    return records, drills.promised_rto(records, 0.95, scope="site", as_of=promise_day(records))


def evidence_table(p, promise):
    """Each site phase as the plan assumes it and as the drills measured it, as a Markdown table.

    Parameters
    ----------
    p : Plan
        The design's plan. [1]
    promise : RTOPromise
        From :func:`example_promise`. [1]

    Returns
    -------
    text : str
        Markdown. [1]
    """
    rows = "".join(
        f"| {phase.split('.', 1)[1]} | {format_quantity(p.rto_site_phases[phase.split('.', 1)[1]], 'duration')} | "
        f"{format_quantity(e.best, 'duration')} | {format_quantity(e.mean, 'duration')} | "
        f"{format_quantity(e.worst, 'duration')} | {e.count} | {e.last.isoformat()} | {DRILLS[e.owner].label} |\n"
        for phase, e in promise.phases.items())
    return ("| site phase | planned | drilled best | drilled mean | drilled worst | records | last drilled | "
            "kept fresh by |\n|---|---|---|---|---|---|---|---|\n" + rows)


def promise_note(p, promise, start):
    """The drilled sums against the plan's, the promise, and the day it is made against the run's start.

    Parameters
    ----------
    p : Plan
        The design's plan. [1]
    promise : RTOPromise
        From :func:`example_promise`. [1]
    start : datetime.date
        The run's first day (the scenario file's ``date``). [1]

    Returns
    -------
    text : str
        Markdown. [1]
    """
    from .drills import promise_sentence

    return markdown_text(
        f"Summed, the drills' best cases give {format_quantity(promise.best_case_sum, 'duration')} and their "
        f"means {format_quantity(promise.mean_sum, 'duration')}; the plan's phases give {p.format('rto_site')}. "
        f"{promise_sentence(promise)} The promise is made on {promise.as_of.isoformat()}, the day of the "
        f"newest drill it rests on, {(promise.as_of - start).days} days after the run starts on "
        f"{start.isoformat()}: before that day those drills had not run.")


def follow_ups(solution, wanted, hot, promise, game_days_planned):
    """:func:`talking_points` for a solved design: each follow-up question's scenario planned and solved here.

    Parameters
    ----------
    solution : Solution
        The solved design. [1]
    wanted : Scenario
        The scenario with the requirements, that ``solution`` solved. [1]
    hot : Solution
        The cheapest hot standby (:func:`tier_solutions`'s ``"hot"``). [1]
    promise : RTOPromise
        The drilled promise. [1]
    game_days_planned : int
        Failover game days the drill schedule holds in the run. [1]

    Returns
    -------
    text : str
        :func:`talking_points`'s Markdown list: the link halved, hot, MFU at 30% on the same tokens, and 100,000
        GPUs, each planned and solved afresh. [1]
    """
    from ._plan import plan
    from ._solve import solve

    p, s = solution.plan, solution.scenario
    half = plan(s.with_changes({"replication.link_bandwidth": s.replication.link_bandwidth / 2}))
    slower = {"training.mfu": 0.30, "training.tokens": p.tokens}
    bigger = {"training.gpus": 100_000}
    return talking_points(
        p, half=half,
        half_solution=solve(wanted, grid={"replication.link_bandwidth": [half.scenario.replication.link_bandwidth]}),
        hot=hot, mfu=plan(s.with_changes(slower)), mfu_solution=solve(wanted.with_changes(slower)),
        promise=promise, game_days_planned=game_days_planned,
        big=plan(s.with_changes(bigger)), big_solution=solve(wanted.with_changes(bigger)))


REPORT_ANCHORS = {"requirements": "the-requirements", "rpo": "rpo", "rto": "rto", "cost": "cost", "drills": "promise"}
"""Where :func:`summary`'s figures link in ``drmath report``: topic -> the report's section that derives it."""


def worked_sections(progress=None):
    """The worked answer's own sections, as ``drmath report`` (no scenario) opens with them: the same pieces
    notebook 00 shows, from the same functions and the same :func:`worked_answer`.

    Parameters
    ----------
    progress : callable, optional
        Called with a short message before each search. [1]

    Returns
    -------
    sections : list of tuple
        ``(id, title, markdown)``: the answer (:func:`summary`), the requirements and the design, each tier at its
        own best and why not the others, the drilled promise, and the talking points. Each figure of the summary
        links to its section of the report (:data:`REPORT_ANCHORS`). [1]
    """
    from .drills import drill_schedule

    say = progress or (lambda message: None)
    say("solving the seed: the worked answer")
    solution, wanted = worked_answer(), scenarios.seed()
    p = solution.plan
    start = scenarios.read_meta(scenarios.SCENARIO_DIR / "seed.toml")["date"]
    _, promise = example_promise()
    say("solving each tier at its own best")
    best = tier_solutions(wanted)
    plans = {name: b.plan for name, b in best.items()}
    game_days = drill_schedule(p, start).loc["failover-game-day", "held"]
    say("answering the follow-up questions")
    points = follow_ups(solution, wanted, best["hot"], promise, game_days)
    return [
        ("answer", "The answer", summary(solution, promise, log=EXAMPLE_LOG, anchors=REPORT_ANCHORS, best=best)),
        ("the-requirements", "The requirements, and the design that meets them",
         requirements_table(wanted) + "\n\n" + markdown_text(solution.message) + "\n\n" + design_table(solution)),
        ("tiers", "Each tier at its own best, and why not the others",
         "\n\n".join([tier_table(best), slip_reasons(plans), why_not(solution, best), tier_tables_note(p, plans),
                       expectation_note(p)])),
        ("promise", "The RTO the drills promise",
         evidence_table(p, promise) + "\n\n" + promise_note(p, promise, start)),
        ("talking-points", "Talking points: the follow-up questions", points),
    ]
