r"""Drills: the measured recovery phases, and the RTO you can promise from them.

A plan's RTO is a sum of named phases (:mod:`drmath.recovery`). Each number
is an assumption until a drill measures it. This module holds:

- :data:`DRILLS`, a catalogue of four drills, each with the phases it times,
  its cadence and its cost in GPU-hours (:func:`drill_costs`), and their dates
  over a run (:func:`drill_schedule`);
- :class:`DrillRecord`, one timed phase of one drill, as
  :func:`drmath.io.drills.read_drill_records` reads it from a drill-record CSV
  (the reader, its validation and the example log moved to :mod:`drmath.io.drills`
  in issue 33; ``drmath.drills.read_drill_records`` and the other old names still
  work, with a :class:`FutureWarning`, until 0.3);
- :func:`promised_rto`, the Monte Carlo convolution of each phase's empirical
  distribution, beside the sum of best cases and the sum of means, with a
  staleness rule: a phase whose newest record is older than the cadence of
  the drill that owns it makes the promise expire, and the drill is named;
  :func:`promise_sentence` says it in words, expired or not.

Phases are named by scope, ``local.<phase>`` (:data:`drmath.recovery.LOCAL_PHASES`)
or ``site.<phase>`` (:data:`drmath.recovery.SITE_PHASES`). An outcome is
``pass`` (the phase completed by its runbook) or ``fail`` (it completed only
after a fix; its time is still a sample, and the most telling one).

References
----------
.. [1] AWS, "Disaster Recovery of Workloads on AWS: Recovery in the Cloud,"
   AWS Well-Architected whitepaper, section "Testing disaster recovery".
.. [2] Google, *Site Reliability Engineering*, O'Reilly 2016, ch. 26 ("Data
   Integrity"): a backup is only as good as a tested restore.
"""

import datetime as _dt
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ._moved import delegate, forwarder
from ._validate import short_repr
from .formatting import format_quantity, listed, ordinal
from .recovery import LOCAL_PHASES, SITE_PHASES
from .units import day, hour, week, year

__all__ = ["Drill", "DRILLS", "PHASES", "DrillRecord", "PhaseEvidence", "RTOPromise",
           "drill_costs", "drill_schedule", "check_run", "MAX_SCHEDULE_RUN", "promised_rto", "promise_sentence",
           "phase_owner", "OUTCOMES"]

MOVED = {name: "drmath.io.drills" for name in (
    "read_drill_records", "parse_drill_records", "example_log", "COLUMNS", "MAX_ERRORS")}
"""The drill-record reader's names, moved to :mod:`drmath.io.drills` (issue 33): ``drmath.drills.X`` still gives
them, with a :class:`FutureWarning`, until 0.3."""

__getattr__ = forwarder(__name__, MOVED)

PHASES = {"local": tuple(f"local.{p}" for p in LOCAL_PHASES),
          "site": tuple(f"site.{p}" for p in SITE_PHASES)}
"""Phase names by scope, in order: ``PHASES["site"][0] == "site.detection"``."""

OUTCOMES = ("pass", "fail")
"""Valid outcomes of a drill record."""

@dataclass(frozen=True, kw_only=True)
class Drill:
    """One kind of drill: the phases it times, how often, and what it costs.

    ``cadence`` is in [s]. ``cost`` says in words how :func:`drill_costs`
    prices it in GPU-hours; ``source`` gives the practice it follows.
    """

    name: str
    label: str
    measures: tuple
    cadence: float
    what: str
    cost: str
    source: str


DRILLS = {d.name: d for d in (
    Drill(name="checkpoint-restore", label="Checkpoint restore",
          measures=("local.reschedule", "local.launch", "local.load", "local.validation"),
          cadence=week,
          what="Restore the newest durable checkpoint into a fresh allocation of the full world size "
               "and run until the first steps reproduce the logged loss.",
          cost="the fleet for the restore: G x (reschedule + launch + load + validation)",
          source="Google SRE book ch. 26: test restores, not backups; Llama 3 Sec. 3.3.4 restarts"),
    Drill(name="replication-verification", label="Replication verification",
          measures=("site.staging",),
          cadence=day,
          what="Copy the newest off-site checkpoint from the remote object store onto the standby's "
               "filesystem and compare checksums with the primary's manifest.",
          cost="no GPUs: CPU checksum jobs at the remote site (egress is in the replication cost)",
          source="AWS DR whitepaper, 'Testing disaster recovery'; assumption: daily"),
    Drill(name="failover-game-day", label="Failover game day",
          measures=PHASES["site"],
          cadence=30 * day,
          what="Declare the primary lost, fail over to the standby by the runbook, and train there "
               "until the loss reproduces; every site phase is timed.",
          cost="the primary idles for the site RTO: G x RTO_site",
          source="AWS DR whitepaper, 'Testing disaster recovery' (game days); assumption: monthly"),
    Drill(name="detection-alerting", label="Detection and alerting",
          measures=("local.detection", "site.detection"),
          cadence=week,
          what="Inject a fault (kill a node; black-hole a site's health endpoints) right after a "
               "checkpoint is durable and time until the job is known dead and on-call is paged.",
          cost="one interruption of the run with no lost work: G x u0",
          source="Kokolis et al. 2024 (health checks); assumption: weekly"),
)}
"""The drill catalogue by name: ``DRILLS["failover-game-day"].cadence`` in [s]."""


def phase_owner(phase):
    r"""The drill that keeps a phase fresh: the most frequent one that measures it.

    A measured phase stays true only while it is tested again on a schedule [1]_: the owner's
    cadence is how old its newest record may be.

    Parameters
    ----------
    phase : str
        A phase such as ``"site.staging"``.

    Returns
    -------
    drill : Drill
        The owning drill; its cadence is the phase's freshness limit.

    Notes
    -----
    .. math:: \mathrm{owner}(p) = \arg\min_{d \,:\, p \in d.\mathrm{measures}} d.\mathrm{cadence}

    References
    ----------
    .. [1] AWS DR whitepaper, "Testing disaster recovery".

    Examples
    --------
    >>> phase_owner("site.detection").name
    'detection-alerting'
    """
    owners = [d for d in DRILLS.values() if phase in d.measures]
    if not owners:
        valid = ", ".join(PHASES["local"] + PHASES["site"])
        raise ValueError(f"phase must be one of {valid}, got {short_repr(phase)}")
    return min(owners, key=lambda d: d.cadence)


MAX_SCHEDULE_RUN = 100 * year
"""The longest run a drill schedule is drawn for (:func:`check_run`). [s]

A drill is held on the run's first day and then once per cadence, the shortest a day: a run's schedule holds
``run / day`` dates per drill. A ~7,600-year run (a share link with a small cluster and many tokens) built 2.78M
dates, 3.5 CPU-s and ~200 MB per explainer, and a run past year 9999 raised OverflowError (issue 32). 100 years
holds at most 36,525 daily dates, and no run that a schedule could help plan is longer."""


def check_run(plan):
    """Raise ValueError, naming the run's length and its range, unless ``plan``'s run can have a drill schedule
    (finite, at most :data:`MAX_SCHEDULE_RUN`).

    >>> from drmath import Scenario, plan
    >>> check_run(plan())
    >>> check_run(plan(Scenario.from_dict({"training.tokens": 1e11, "training.params": 4e9, "training.gpus": 1,
    ...                                    "training.peak_flop_rate": 1e12, "training.mfu": 0.01})))
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: time_to_train = 7,... years is out of range for a drill schedule: must be at most 100 years
    """
    from .formatting import short_duration

    run = float(plan.time_to_train)
    if not run <= MAX_SCHEDULE_RUN:  # inf and NaN too (a collapsed goodput)
        shown = f"{run / year:,.0f} years" if math.isfinite(run) and run > MAX_SCHEDULE_RUN else short_duration(run)
        raise ValueError(f"time_to_train = {shown} is out of range for a drill schedule: must be at most "
                         f"{short_duration(MAX_SCHEDULE_RUN)}")


def drill_costs(plan):
    r"""GPU-hours each drill costs, once and over the run.

    A drill is a real recovery on the real cluster [1]_, so it takes the GPUs it recovers
    for the time it takes.

    Parameters
    ----------
    plan : Plan
        From :func:`drmath.plan`; gives the cluster size, phases and run length.

    Returns
    -------
    costs : dict of str to dict
        Per drill name: ``"each"`` [GPU·h], ``"per_run"`` [1] (drills in the
        run, :math:`\lceil T/c \rceil`) and ``"total"`` [GPU·h].

    Raises
    ------
    ValueError
        If the run is longer than :data:`MAX_SCHEDULE_RUN` (:func:`check_run`).

    Notes
    -----
    With :math:`G` primary GPUs, run length :math:`T` and cadence :math:`c`:

    .. math::

       \text{restore} = G (t_{resched} + t_{launch} + L + t_{val}), \quad
       \text{detection} = G u_0, \quad
       \text{game day} = G\, \mathrm{RTO}_{site}, \quad
       \text{replication} = 0

    each divided by 3600 s/h, and ``total = each`` :math:`\times \lceil T/c \rceil`.

    References
    ----------
    .. [1] AWS DR whitepaper, "Testing disaster recovery".

    Examples
    --------
    >>> from drmath import plan
    >>> costs = drill_costs(plan())
    >>> round(costs["detection-alerting"]["each"])
    1340
    """
    from ._plan import Plan
    if not isinstance(plan, Plan):
        raise TypeError(f"plan must be a Plan from drmath.plan(), got {type(plan).__name__}")
    check_run(plan)
    G = plan.scenario.training.gpus
    local = plan.rto_local_phases
    each = {
        "checkpoint-restore": G * (local["reschedule"] + local["launch"] + local["load"] + local["validation"]),
        "replication-verification": 0.0,
        "failover-game-day": G * plan.rto_site,
        "detection-alerting": G * plan.restart_overhead,
    }
    out = {}
    for name, seconds in each.items():
        count = math.ceil(plan.time_to_train / DRILLS[name].cadence)
        out[name] = {"each": seconds / hour, "per_run": float(count), "total": count * seconds / hour}
    return out


def drill_schedule(plan, start):
    r"""Each drill's dates over the run, how many are held, and their GPU-hours.

    Drills keep a promise true only when they recur [1]_: every kind of :data:`DRILLS` is held
    on the run's first day and then once per cadence until the run ends.

    Parameters
    ----------
    plan : Plan
        From :func:`drmath.plan`; gives the run length and, through :func:`drill_costs`, each
        drill's GPU-hours. [1]
    start : datetime.date
        The day the run starts, when the first drill of every kind is held (a
        :class:`datetime.datetime` counts as its date). [1]

    Returns
    -------
    schedule : pandas.DataFrame
        One row per drill of :data:`DRILLS`, indexed by name, with the columns ``label``,
        ``measures`` (its phases, comma-separated), ``cadence`` [s], ``held`` (drills in the run)
        [1], ``first`` and ``last`` (dates), ``gpu_hours_each`` and ``gpu_hours_total`` [GPU·h],
        and ``dates`` (a tuple of every date it is held). [1]

    Raises
    ------
    TypeError
        If ``plan`` is not a Plan or ``start`` is not a date.
    ValueError
        If the run is longer than :data:`MAX_SCHEDULE_RUN` (:func:`check_run`).

    Notes
    -----
    With run length :math:`T`, a drill of cadence :math:`c` is held :math:`n = \lceil T/c \rceil`
    times, on the days

    .. math:: d_i = d_0 + i\,c, \qquad i = 0, \dots, n - 1

    (whole days; a cadence that is not a whole number of days is cut to one), so no day of the run
    is further than one cadence from the drill before it. ``held`` and the GPU-hours are those of
    :func:`drill_costs`.

    References
    ----------
    .. [1] AWS DR whitepaper, "Testing disaster recovery".

    Examples
    --------
    >>> import datetime as dt
    >>> from drmath import plan
    >>> table = drill_schedule(plan(), dt.date(2025, 5, 26))
    >>> game_day = table.loc["failover-game-day"]
    >>> int(game_day["held"]), str(game_day["first"]), str(game_day["last"])
    (3, '2025-05-26', '2025-07-25')
    >>> round(table["gpu_hours_total"].sum())
    69649
    """
    import pandas as pd

    costs = drill_costs(plan)
    if isinstance(start, _dt.datetime):
        start = start.date()
    if not isinstance(start, _dt.date):
        raise TypeError(f"start must be a datetime.date, got {type(start).__name__} {short_repr(start)}")
    rows = {}
    for name, drill in DRILLS.items():
        held = int(costs[name]["per_run"])
        dates = tuple(start + _dt.timedelta(seconds=i * drill.cadence) for i in range(held))
        rows[name] = {"label": drill.label, "measures": ", ".join(drill.measures), "cadence": drill.cadence,
                      "held": held, "first": dates[0], "last": dates[-1],
                      "gpu_hours_each": costs[name]["each"], "gpu_hours_total": costs[name]["total"], "dates": dates}
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("drill")


@dataclass(frozen=True)
class DrillRecord:
    """One timed phase of one drill: ``seconds`` in [s]; ``row`` is its CSV row.

    :func:`drmath.io.drills.read_drill_records` reads them from a drill-record CSV.
    """

    date: _dt.date
    drill: str
    phase: str
    seconds: float
    outcome: str
    row: int = 0


@dataclass(frozen=True)
class PhaseEvidence:
    """What the drills say about one phase: durations in [s], age in [s]."""

    phase: str
    count: int
    best: float
    mean: float
    worst: float
    failures: int
    last: _dt.date
    age: float
    cadence: float
    owner: str
    stale: bool


@dataclass(frozen=True)
class RTOPromise:
    """The RTO you can promise, beside the naive sums, and whether it still holds.

    ``promised``, ``best_case_sum``, ``mean_sum`` in [s]; ``samples`` [s] the
    Monte Carlo sums; ``expires`` the first date a phase goes stale.
    """

    scope: str
    confidence: float
    promised: float
    best_case_sum: float
    mean_sum: float
    worst_case_sum: float
    samples: np.ndarray
    phases: dict
    as_of: _dt.date
    expires: _dt.date
    stale: tuple
    due: tuple

    @property
    def valid(self):
        """True while no phase is stale."""
        return not self.stale

    @property
    def expiring(self):
        """The drills whose next run is due first: the day after ``expires`` their phases go stale.

        A tuple of drill names (:data:`DRILLS`), in the order of their phases.
        """
        return tuple(dict.fromkeys(e.owner for e in self.phases.values()
                                   if e.last + _dt.timedelta(seconds=e.cadence) == self.expires))

    def message(self):
        """One sentence: the promise, or why it has expired and which drills are due (:func:`promise_sentence`)."""
        return promise_sentence(self)


def promised_rto(records, confidence=0.9, scope="site", trials=100_000, seed=0, as_of=None):
    r"""The RTO you can promise: a high percentile of the sum of measured phases.

    Parameters
    ----------
    records : sequence of DrillRecord
        Drill records, as :func:`drmath.io.drills.read_drill_records` reads them.
        Deprecated: a CSV path (str or path-like) is still read, with a
        :class:`FutureWarning`, until 0.3: reading a file crosses the model's
        boundary, and this module is the core, which imports nothing from
        :mod:`drmath.io`, so the path goes to the reader :mod:`drmath.io`
        registers when it is imported (:func:`drmath._moved.delegate`); with
        nothing of :mod:`drmath.io` imported a path raises a
        :class:`RuntimeError` that names the reader.
    confidence : float, default 0.9
        Share of recoveries the promise must cover, in (0, 1). [1]
    scope : {"site", "local"}, default "site"
        Which recovery: every phase of that scope needs at least one record.
    trials : int, default 100000
        Monte Carlo draws of the sum, in [100, 10,000,000]. [1]
    seed : int, default 0
        Seed of :func:`numpy.random.default_rng`.
    as_of : datetime.date, optional
        The day the promise is made, for staleness; today when omitted.

    Returns
    -------
    promise : RTOPromise
        ``promised`` [s], ``best_case_sum`` [s], ``mean_sum`` [s], per-phase
        :class:`PhaseEvidence`, and the stale phases with the drills due.

    Raises
    ------
    ValueError
        If an argument is out of range or a phase of the scope has no record
        (the message names the drill that measures it).

    Notes
    -----
    Each phase :math:`i` has the empirical distribution :math:`\hat F_i` of its
    recorded durations. The promise is the ``confidence`` quantile of their
    sum, estimated by drawing every phase independently from its records [2]_:

    .. math::

       \mathrm{RTO}_c = \hat F^{-1}_{\Sigma}(c), \qquad
       \Sigma = \sum_i X_i,\ X_i \sim \hat F_i

    It lies between the sum of best cases :math:`\sum_i \min_i` (what a
    design review is often shown) and the sum of worst cases. A phase whose
    newest record is older than the cadence of its owning drill
    (:func:`phase_owner`) makes the promise expire: recovery is tested on a
    schedule [1]_. With :math:`n` records a phase can never be drawn above its
    worst recorded time, so a handful of drills understates the tail: drill more.

    References
    ----------
    .. [1] AWS DR whitepaper, "Testing disaster recovery".
    .. [2] B. Efron, "Bootstrap methods: another look at the jackknife,"
       Ann. Statist. 7(1), 1979 (resampling the empirical distribution).

    Examples
    --------
    >>> import datetime as dt
    >>> rows = [DrillRecord(dt.date(2025, 1, 6), "detection-alerting", "local.detection", s, "pass")
    ...         for s in (100.0, 200.0)]
    >>> rows += [DrillRecord(dt.date(2025, 1, 6), "checkpoint-restore", f"local.{p}", 60.0, "pass")
    ...          for p in ("reschedule", "launch", "load", "validation")]
    >>> p = promised_rto(rows, 0.9, scope="local", as_of=dt.date(2025, 1, 8))
    >>> p.best_case_sum, p.mean_sum, p.promised, p.valid
    (340.0, 390.0, 440.0, True)
    """
    if isinstance(records, (str, Path)):
        records = delegate("drmath.drills.promised_rto(path)", "drmath.io.drills.read_drill_records", records)
    records = list(records)
    if not isinstance(confidence, (int, float)) or isinstance(confidence, bool) or not 0 < confidence < 1:
        raise ValueError(f"confidence must be a number in (0, 1), got {short_repr(confidence)}")
    if scope not in PHASES:
        raise ValueError(f"scope must be one of {', '.join(PHASES)}, got {short_repr(scope)}")
    if not isinstance(trials, (int, np.integer)) or isinstance(trials, bool) or not 100 <= trials <= 10_000_000:
        raise ValueError(f"trials must be a whole number in [100, 10000000], got {short_repr(trials)}")
    for r in records:
        if not isinstance(r, DrillRecord):
            raise TypeError(f"records must be DrillRecord items or a CSV path, got {type(r).__name__}")
    as_of = _dt.date.today() if as_of is None else as_of
    rng = np.random.default_rng(seed)
    total = np.zeros(trials)
    phases = {}
    for phase in PHASES[scope]:
        owner = phase_owner(phase)
        mine = [r for r in records if r.phase == phase]
        if not mine:
            raise ValueError(f"records have no drill for phase {phase}: run the {owner.name} drill "
                             f"({owner.label}), which measures it")
        values = np.array([r.seconds for r in mine])
        last = max(r.date for r in mine)
        age = (as_of - last).days * day
        phases[phase] = PhaseEvidence(
            phase=phase, count=values.size, best=float(values.min()), mean=float(values.mean()),
            worst=float(values.max()), failures=sum(r.outcome == "fail" for r in mine), last=last,
            age=age, cadence=owner.cadence, owner=owner.name, stale=age > owner.cadence)
        total += values[rng.integers(0, values.size, trials)]
    stale = tuple(p for p, e in phases.items() if e.stale)
    due = tuple(dict.fromkeys(phases[p].owner for p in stale))
    expires = min(e.last + _dt.timedelta(seconds=e.cadence) for e in phases.values())
    return RTOPromise(
        scope=scope, confidence=float(confidence),
        promised=float(np.quantile(total, confidence, method="inverted_cdf")),
        best_case_sum=float(sum(e.best for e in phases.values())),
        mean_sum=float(sum(e.mean for e in phases.values())),
        worst_case_sum=float(sum(e.worst for e in phases.values())),
        samples=total, phases=phases, as_of=as_of, expires=expires, stale=stale, due=due)


def _percentile(confidence):
    """``0.95`` as "95th percentile" (one decimal when it is not a whole percent)."""
    percent = 100 * confidence
    if math.isclose(percent, round(percent), abs_tol=1e-9):
        return f"{ordinal(round(percent))} percentile"
    return f"{percent:.1f}th percentile"


def promise_sentence(promise):
    """The promised RTO in one sentence: the figure, its percentile and how long it holds, or that it expired.

    Parameters
    ----------
    promise : RTOPromise
        From :func:`promised_rto`. [1]

    Returns
    -------
    sentence : str
        Plain text, no Markdown. While the promise is valid it names the promised RTO, the drill
        percentile it is and the last day it holds; once a phase is stale it says the promise
        **expired** (the word itself), after which day, which phases went stale and which drills
        are due. [1]

    Examples
    --------
    >>> import datetime as dt
    >>> from drmath.io.drills import example_log, read_drill_records
    >>> log = read_drill_records(example_log())
    >>> promise_sentence(promised_rto(log, 0.95, as_of=dt.date(2025, 5, 26)))
    'The site RTO we can promise is 2.37 h, the 95th percentile of the drilled recoveries, valid until 2025-06-28.'
    >>> print(promise_sentence(promised_rto(log, 0.95, as_of=dt.date(2025, 7, 1))))  # doctest: +NORMALIZE_WHITESPACE
    The site RTO promise of 2.37 h (the 95th percentile of the drilled recoveries) expired after 2025-06-28: as of
    2025-07-01 its detection and staging phases were last drilled longer ago than their drills' cadence; run
    detection and alerting and replication verification before promising it again.
    """
    if not isinstance(promise, RTOPromise):
        raise TypeError(f"promise must be an RTOPromise from promised_rto(), got {type(promise).__name__}")
    rto = format_quantity(promise.promised, "duration")
    where = f"the {_percentile(promise.confidence)} of the drilled recoveries"
    if promise.valid:
        return f"The {promise.scope} RTO we can promise is {rto}, {where}, valid until {promise.expires.isoformat()}."
    phases = listed(p.split(".", 1)[1] for p in promise.stale)
    due = listed(DRILLS[name].label.lower() for name in promise.due)
    return (f"The {promise.scope} RTO promise of {rto} ({where}) expired after {promise.expires.isoformat()}: "
            f"as of {promise.as_of.isoformat()} its {phases} phase{'s' if len(promise.stale) > 1 else ''} "
            f"{'were' if len(promise.stale) > 1 else 'was'} last drilled longer ago than "
            f"{'their' if len(promise.stale) > 1 else 'its'} drills' cadence; run {due} before promising it again.")
