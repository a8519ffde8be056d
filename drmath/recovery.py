r"""RPO and RTO by failure scope.

*Local* failures (a GPU, node or rack; the site's storage survives) lose the
work since the last durable checkpoint. *Site* failures (the building is lost)
lose the work since the last checkpoint that finished arriving off-site. The
worst case is the DR convention; the expected value sits beside it.

RTO is a sum of named phases, so a drill can measure each one.

References
----------
.. [1] AWS, "Disaster Recovery of Workloads on AWS: Recovery in the Cloud,"
   AWS Well-Architected whitepaper.
.. [2] A. Kokolis et al., HPCA 2025, arXiv:2410.21680 (restart overhead u0).
"""

import functools

import numpy as np

from ._formula import formula
from ._validate import (
    as_output,
    broadcasting,
    require_flag,
    require_fraction,
    require_nonnegative,
    require_nonnegative_or_inf,
    require_positive,
    short_repr,
)

__all__ = ["rpo_local", "rpo_local_replica_groups", "rpo_site_pipeline", "local_rto_phases", "site_rto_phases", "rto",
           "resume_slip", "schedule_slip", "expected_remaining_run", "LOCAL_PHASES", "SITE_PHASES"]

LOCAL_PHASES = ("detection", "reschedule", "launch", "load", "validation")
"""Phases of a local recovery, in order."""

SITE_PHASES = ("detection", "decision", "readiness", "staging", "launch", "load", "validation")
"""Phases of a site failover, in order."""


@formula(r"\mathrm{RPO}_{local} = \tau + W", expected=r"E[\mathrm{loss}_{local}] = \tau/2 + W",
         clipped=r"\mathrm{RPO}_{local} = \min(C,\; \tau + W)",
         clipped_expected=r"E[\mathrm{loss}_{local}] = \min(C/2,\; \tau/2 + W)")
@broadcasting
def rpo_local(checkpoint_interval, write_time, expected=False, progress=np.inf):
    r"""Progress lost to a local failure.

    Parameters
    ----------
    checkpoint_interval : float or array_like
        Time between checkpoints :math:`\tau`. [s]
    write_time : float or array_like
        Persist time :math:`W`: a checkpoint is not durable before it ends. [s]
    expected : bool or array_like, default False
        False for the worst case, True for the expected value. [1]
    progress : float or array_like, default inf
        The progress the run makes in all :math:`C`: no loss exceeds it (the
        expected one, :math:`C/2`). [s]

    Returns
    -------
    rpo_local : float or ndarray
        Lost progress. [s]

    Notes
    -----
    .. formula::

    .. formula:: expected

    A failure at a uniform time :math:`t` after a checkpoint starts loses
    :math:`t` once that checkpoint is durable, and :math:`\tau + t` while it
    is still persisting; the mean is exactly :math:`\tau/2 + W` for
    :math:`W \le \tau`. No loss exceeds the progress the run has made, so
    both are clipped at :math:`C` (the expected one at :math:`C/2`, the mean
    progress at a uniform time), which binds only for a run not much longer
    than its checkpoint interval:

    .. formula:: clipped

    .. formula:: clipped_expected

    References
    ----------
    .. [1] Mohan et al., "CheckFreq," FAST'21 (snapshot and persist phases).

    Examples
    --------
    >>> rpo_local(600.0, 3.0)
    603.0
    >>> rpo_local(600.0, 3.0, expected=True)
    303.0
    """
    require_positive(checkpoint_interval=checkpoint_interval)
    require_nonnegative(write_time=write_time)
    require_nonnegative_or_inf(progress=progress)
    require_flag(expected=expected)
    return np.where(expected, np.minimum(checkpoint_interval / 2 + write_time, progress / 2),
                    np.minimum(checkpoint_interval + write_time, progress))


@formula(r"\mathrm{RPO}_{local} = t_{step}", expected=r"E[\mathrm{loss}_{local}] = t_{step}/2",
         clipped=r"\mathrm{RPO}_{local} = \min(C,\; t_{step})",
         clipped_expected=r"E[\mathrm{loss}_{local}] = \min(C/2,\; t_{step}/2)")
@broadcasting
def rpo_local_replica_groups(step_time, expected=False, progress=np.inf):
    r"""Progress lost to a local failure when replica groups recover it without a restart.

    Parameters
    ----------
    step_time : float or array_like
        Time of one optimizer step :math:`t_{step}`. [s]
    expected : bool or array_like, default False
        False for the worst case, True for the expected value. [1]
    progress : float or array_like, default inf
        The progress the run makes in all :math:`C`: no loss exceeds it (the
        expected one, :math:`C/2`). [s]

    Returns
    -------
    rpo_local_replica_groups : float or ndarray
        Lost progress. [s]

    Notes
    -----
    .. formula::

    .. formula:: expected

    A failed group drops the step in flight, which no group commits; the
    other groups keep every committed step and go on, so nothing older is
    lost. A failure at a uniform time in a step loses half a step on
    average. Clipped at the run's progress as :func:`rpo_local` is:

    .. formula:: clipped

    .. formula:: clipped_expected

    References
    ----------
    .. [1] PyTorch blog on torchft, Jun 2025: of 6,249 steps with 1,100
       failures, 5,145 committed; a failure costs the step it interrupts.

    Examples
    --------
    >>> rpo_local_replica_groups(12.0), rpo_local_replica_groups(12.0, expected=True)
    (12.0, 6.0)
    """
    require_nonnegative(step_time=step_time)
    require_nonnegative_or_inf(progress=progress)
    require_flag(expected=expected)
    return np.where(expected, np.minimum(step_time / 2, progress / 2), np.minimum(step_time, progress))


@formula(
    every_k=r"\mathrm{RPO}_{site} = k\tau + W + t_{rep}",
    every_k_behind=r"\mathrm{RPO}_{site} = k\tau + W + t_{rep}\ \text{only if}\ T \le P",
    newest=r"\mathrm{RPO}_{site} = k\tau + W + t_{rep} + \sum_i b_i\,t_i",
    every_k_clipped=r"\mathrm{RPO}_{site} = \min(C,\; k\tau + W + t_{rep})",
    newest_clipped=r"\mathrm{RPO}_{site} = \min(C,\; k\tau + W + t_{rep} + \sum_i b_i\,t_i)",
    every_k_expected=r"E[\mathrm{loss}_{site}] = k\tau/2 + r\,(W + t_{rep}) - (1 - r)\,\tau/2,\quad "
                     r"r = \tfrac{\tau}{\tau + \delta}",
    every_k_behind_expected=r"E[\mathrm{loss}_{site}] = k\tau/2 + r\,(W + t_{rep}) - (1 - r)\,\tau/2\ "
                            r"\text{only if}\ T \le P",
    newest_expected=r"E[\mathrm{loss}_{site}] = k\tau/2 + r\,\big(W + t_{rep} + \tfrac{g_{n+1} - P}{2} "
                    r"+ \sum_i b_i\,g_i/2\big) - (1 - r)\,\tau/2,\quad r = \tfrac{\tau}{\tau + \delta}",
    every_k_clipped_expected=r"E[\mathrm{loss}_{site}] = \min(C/2,\; k\tau/2 + r\,(W + t_{rep}) "
                             r"- (1 - r)\,\tau/2)",
    newest_clipped_expected=r"E[\mathrm{loss}_{site}] = \min(C/2,\; k\tau/2 + r\,\big(W + t_{rep} "
                            r"+ \tfrac{g_{n+1} - P}{2} + \sum_i b_i\,g_i/2\big) - (1 - r)\,\tau/2)",
)
def rpo_site_pipeline(replication_interval, write_time, hop_times, newest_only=False, expected=False,
                      streamed=False, launch_spacing=None, progress=np.inf, checkpoint_interval=None):
    r"""Progress lost when the site is lost, for a pipeline of hops and a replication policy.

    Parameters
    ----------
    replication_interval : float or array_like
        Training between off-site copies :math:`k\tau`. [s]
    write_time : float or array_like
        Persist time :math:`W`. [s]
    hop_times : sequence of float or array_like
        Each hop's time per copy :math:`t_i`, in order
        (:func:`drmath.replication.transfer_time`). [s]
    newest_only : bool or array_like, default False
        The policy: False ships every k-th checkpoint, first in, first out,
        at every hop; True lets each hop, when it frees, take the newest copy
        waiting for it and skip older ones. [1]
    expected : bool or array_like, default False
        False for the worst case (a bound), True for the expected value. [1]
    streamed : bool, default False
        True when the hops stream one copy through together: the chain is
        then one hop of time :math:`\max_i t_i`. [1]
    launch_spacing : float or array_like, optional
        Wall-clock time between copies entering the pipeline :math:`P`
        (:func:`drmath.replication.launch_spacing`, :math:`k(\tau + \delta)`);
        :math:`k\tau` when omitted (no stall). [s]
    progress : float or array_like, default inf
        The progress the run makes in all :math:`C`: no loss exceeds it. [s]
    checkpoint_interval : float or array_like, optional
        Training between checkpoints :math:`\tau`, which with ``launch_spacing`` gives the stall
        :math:`\delta` of each checkpoint; ``replication_interval`` (every checkpoint ships) when omitted.
        Only the expected value reads it. [s]

    Returns
    -------
    rpo_site_pipeline : float or ndarray
        Lost progress; ``inf`` under every-k where a hop does not keep up
        (:math:`t_i > P`). [s]

    Notes
    -----
    *The launch rule* (shared with :func:`drmath.simulate.simulate_run`).
    Every k-th checkpoint enters the first hop when it is durable, :math:`W`
    after it starts; copies enter at least :math:`P = k(\tau + \delta)` apart,
    since :math:`k\tau` of training and :math:`k` stalls :math:`\delta` lie
    between them. A copy is off-site after
    :math:`t_{rep} = \sum_i t_i` (:math:`\max_i t_i` when streamed;
    :func:`drmath.replication.chain_time`) plus any wait.

    *Gaps.* Copies reach hop :math:`i` at least :math:`g_i` apart, with
    :math:`g_1 = P` and :math:`g_{i+1} = \max(g_i, t_i)`: a hop that is free on
    every arrival passes the gaps on, and one that is not sends at most one
    copy per :math:`t_i`. Hop :math:`i` is *busy* (:math:`b_i = 1`) when
    :math:`t_i > g_i`. *every-k* then builds a backlog: no bound. *newest*: a
    copy that reaches a busy hop waits at most :math:`t_i` for it to free, and
    the hop then takes it or a newer one, so one at least as new leaves hop
    :math:`i` within :math:`t_i (1 + b_i)`.

    *The bound.* A site event that finds the newest off-site copy at progress
    :math:`o` has not yet received the next shipped checkpoint
    (:math:`o + k\tau`), so it struck less than :math:`W + D` after that
    checkpoint started, :math:`D = \sum_i t_i (1 + b_i)`, and the loss, in
    seconds of training, is under the following. Every k-th (bounded only
    while no hop is busy, i.e. while the slowest hop's time per copy
    :math:`T = \max_i t_i` is at most :math:`P`), then newest:

    .. formula:: every_k

    .. formula:: every_k_behind

    .. formula:: newest

    No loss exceeds the progress made :math:`C`; where the bound reaches it,
    it is clipped there:

    .. formula:: every_k_clipped

    .. formula:: newest_clipped

    *The expected value*, for a site event at a uniform time: the newest
    copy off-site landed a uniform share of the last hop's output gap
    :math:`g_{n+1}` ago, crossed in :math:`t_{rep}`, and waited at each busy
    hop a uniform share of that hop's input gap (it was the newest to
    arrive). That much wall-clock time since the shipped checkpoint started
    holds less progress: training stops for :math:`\delta` at each checkpoint
    start, so progress grows at the mean rate :math:`r = \tau/(\tau + \delta)`
    and lags that rate by :math:`(1 - r)\,\tau/2` on average over a checkpoint
    period (exactly, since a site event at a uniform time falls at a uniform
    phase of the period :math:`\tau + \delta`, and :math:`P` holds :math:`k`
    periods whole):

    .. formula:: every_k_expected

    .. formula:: every_k_behind_expected

    .. formula:: newest_expected

    clipped at :math:`C/2`, the mean progress at a uniform time:

    .. formula:: every_k_clipped_expected

    .. formula:: newest_clipped_expected

    With one busy hop (:math:`T > P`) the sums are :math:`T` and :math:`T/2`.
    The worst case treats a second of wall-clock time as a second of
    progress, so it stays a bound; the expected value converts it exactly
    where every hop keeps up, and ignores local failures between the copies
    (first order in :math:`(k\tau + t_{rep})/M`).
    When every hop keeps up, the two policies coincide. An unbounded loss
    stays ``inf``, a flag rather than a number.

    References
    ----------
    .. [1] Derived here, from the launch rule above (the bound: the next
       shipped checkpoint after the newest off-site copy, plus the delay
       :math:`D` to land one at least as new, hop by hop).
    .. [2] H. D. Friedman, "Reduction methods for tandem queuing systems,"
       Operations Research 13(1):121-131, 1965 (hops in tandem pass copies at
       the pace of the slowest).

    Examples
    --------
    Every 10 min, a 3 s persist, a 283.5 s upload then a 504 s link (each
    hop keeps up although the chain takes 787.5 s):

    >>> rpo_site_pipeline(600.0, 3.0, [283.5, 504.0])
    1390.5
    >>> rpo_site_pipeline(600.0, 3.0, [283.5, 504.0], expected=True)
    1090.5

    Every 5 min, the link falls behind: every-k has no bound, newest-only
    does:

    >>> rpo_site_pipeline(300.0, 3.0, [283.5, 504.0])
    inf
    >>> rpo_site_pipeline(300.0, 3.0, [283.5, 504.0], newest_only=True)
    1594.5

    Both hops slower than the copies (every 15 min: a 1,134 s upload, a
    1,260 s link), each taking the newest copy: both waits count.

    >>> rpo_site_pipeline(900.0, 3.0, [1134.0, 1260.0], newest_only=True)
    5691.0
    """
    from .replication import _hops, chain_time  # replication never imports recovery: no circle

    require_positive(replication_interval=replication_interval)
    if launch_spacing is not None:
        require_positive(launch_spacing=launch_spacing)
        # copies enter k(tau + delta) apart and carry k tau of training: a share of the wall clock, never more
        require_fraction(**{"replication_interval / launch_spacing":
                            np.asarray(replication_interval, dtype=float) / np.asarray(launch_spacing, dtype=float)})
    if checkpoint_interval is not None:
        require_positive(checkpoint_interval=checkpoint_interval)
    require_nonnegative(write_time=write_time)
    require_nonnegative_or_inf(progress=progress)
    require_flag(newest_only=newest_only, expected=expected, streamed=streamed)
    hops = _hops(hop_times)
    interval = np.asarray(replication_interval, dtype=float)
    spacing = interval if launch_spacing is None else np.asarray(launch_spacing, dtype=float)
    write_time, progress = np.asarray(write_time, dtype=float), np.asarray(progress, dtype=float)
    latency = chain_time(hops, streamed)
    # streamed: one server of the slowest hop's time (the others add nothing: a zero-time hop is never busy)
    servers = [np.where(streamed, latency, hops[0])] + [np.where(streamed, 0.0, t) for t in hops[1:]]
    gap = spacing
    behind = np.zeros(np.shape(spacing), dtype=bool)
    waits, mean_waits = 0.0, 0.0
    for t in servers:
        busy = t > gap
        behind = behind | busy
        waits = waits + np.where(busy, t, 0.0)
        mean_waits = mean_waits + np.where(busy, gap / 2, 0.0)
        gap = np.maximum(gap, t)
    worst = interval + write_time + latency + waits
    tau = interval if checkpoint_interval is None else np.asarray(checkpoint_interval, dtype=float)
    rate = interval / spacing  # progress per second of wall clock: tau / (tau + delta)
    mean = interval / 2 + rate * (write_time + latency + (gap - spacing) / 2 + mean_waits) - (1 - rate) * tau / 2
    loss = np.where(expected, np.minimum(mean, progress / 2), np.minimum(worst, progress))
    return as_output(np.where(behind & ~np.asarray(newest_only), np.inf, loss))


@formula(r"\mathrm{RTO}_{local} = t_{det} + t_{resched} + t_{launch} + L + t_{val}")
def local_rto_phases(detection, reschedule, launch, load, validation):
    r"""Phases of recovering from a local failure, in order.

    Parameters
    ----------
    detection : float or array_like
        From the fault to the job known dead (health checks, collective
        timeouts). [s]
    reschedule : float or array_like
        Replacing the failed nodes with spares. [s]
    launch : float or array_like
        Scheduler, containers and collective initialisation at scale. [s]
    load : float or array_like
        Reading the checkpoint back (:func:`drmath.checkpoint.checkpoint_load_time`). [s]
    validation : float or array_like
        The first steps, until they reproduce the loss. [s]

    Returns
    -------
    phases : dict of str to float or ndarray
        Phase name to duration, keys :data:`LOCAL_PHASES`. [s]

    Notes
    -----
    .. formula::

    Their sum is the restart overhead :math:`u_0` of :func:`drmath.reliability.ettr`.

    References
    ----------
    .. [1] Kokolis et al., arXiv:2410.21680: u0 of 5-20 min, checkpoint load included.

    Examples
    --------
    >>> rto(local_rto_phases(180.0, 120.0, 180.0, 2.8, 120.0))
    602.8
    """
    values = dict(zip(LOCAL_PHASES, (detection, reschedule, launch, load, validation)))
    require_nonnegative(**values)
    return values


@formula(r"\mathrm{RTO}_{site} = t_{det} + t_{dec} + t_{ready} + t_{stage} + t_{launch} + L + t_{val}")
def site_rto_phases(detection, decision, readiness, staging, launch, load, validation):
    r"""Phases of failing over to the standby site, in order.

    Parameters
    ----------
    detection : float or array_like
        From the site event to it being confirmed. [s]
    decision : float or array_like
        Deciding to fail over (0 where it is automatic). [s]
    readiness : float or array_like
        Until the standby can launch the job; set by the DR tier. [s]
    staging : float or array_like
        Copying the checkpoint onto the standby's own storage; 0 when
        replication already lands there. [s]
    launch : float or array_like
        Scheduler, containers and collective initialisation on the standby. [s]
    load : float or array_like
        Reading the checkpoint on the standby. [s]
    validation : float or array_like
        The first steps, until they reproduce the loss. [s]

    Returns
    -------
    phases : dict of str to float or ndarray
        Phase name to duration, keys :data:`SITE_PHASES`. [s]

    Notes
    -----
    .. formula::

    References
    ----------
    .. [1] AWS DR whitepaper: RTO covers detection, failover of resources,
       data restore and warm-up.

    Examples
    --------
    >>> rto(site_rto_phases(300.0, 1800.0, 3600.0, 0.0, 180.0, 2.8, 120.0)) / 60
    100.04666666666667
    """
    values = dict(zip(SITE_PHASES, (detection, decision, readiness, staging, launch, load, validation)))
    require_nonnegative(**values)
    return values


@formula(r"\mathrm{RTO} = \sum_i t_i")
def rto(phases):
    r"""Recovery time: the sum of the phases.

    Parameters
    ----------
    phases : dict of str to float or array_like
        Phase name to duration, from :func:`local_rto_phases` or
        :func:`site_rto_phases`. [s]

    Returns
    -------
    rto : float or ndarray
        :math:`\sum_i t_i`. [s]

    Notes
    -----
    .. formula::

    A promise needs the distribution of this sum, from drills, not the sum of
    best cases.

    References
    ----------
    .. [1] AWS DR whitepaper.

    Examples
    --------
    >>> rto({"detection": 60.0, "load": 30.0})
    90.0
    """
    if not hasattr(phases, "items") or not phases:
        raise ValueError(f"phases must name at least one phase, got {short_repr(phases)}")
    for name, value in phases.items():
        require_nonnegative(**{str(name): value})
    # phase by phase, in order, so a number and an array add up alike
    return as_output(functools.reduce(np.add, [np.asarray(v, dtype=float) for v in phases.values()]))


@formula(r"\Delta T_{reduced} = \min\left(T_{rem} \left(\frac{G}{G_s} - 1\right),\; "
         r"R \left(1 - \frac{G_s}{G}\right)\right)",
         expected=r"\Delta T_{reduced} = \min\left(\frac{T}{2}\left(\frac{G}{G_s} - 1\right),\; "
                   r"R\left(1 - \frac{G_s}{G}\right)\right)")
@broadcasting
def resume_slip(remaining_time, standby_fraction, rebuild_time=np.inf):
    r"""Extra time at reduced capacity from finishing on a smaller standby.

    Parameters
    ----------
    remaining_time : float or array_like
        Wall-clock time the run still needed on the primary. [s]
    standby_fraction : float or array_like
        Standby size over primary size :math:`G_s/G`, in (0, 1]. [1]
    rebuild_time : float or array_like, default inf
        Time until the lost capacity is rebuilt and the run is back at full
        speed :math:`R`, e.g. :data:`drmath.presets.SITE_REBUILD_TIME`;
        ``inf`` if it never is within the run. [s]

    Returns
    -------
    resume_slip : float or ndarray
        Extra wall-clock time :math:`\Delta T_{reduced}`, one term of
        :func:`schedule_slip`. [s]

    Notes
    -----
    .. formula::

    Assumes throughput scales with GPUs. The standby runs at :math:`f = G_s/G`
    of full speed. If the run ends before the rebuild (:math:`T_{rem} \le fR`)
    it takes :math:`T_{rem}/f`; otherwise it does :math:`fR` of its work by
    then and the rest at full speed, finishing :math:`R(1 - f)` late. With
    :math:`R = \infty` (the default) the primary is never rebuilt within the
    run. For a site event at a uniform time in the run, the expected
    :math:`T_{rem}` is half the run (:func:`expected_remaining_run`), and the
    expected time at reduced capacity of a run of length :math:`T` (the last
    term of :func:`schedule_slip`):

    .. formula:: expected

    References
    ----------
    .. [1] Narayanan et al. 2021, arXiv:2104.04473, eq. (4): time scales as 1/G.
    .. [2] Derived here: the rebuild cap, from the work done at speed
       :math:`f` until :math:`R`.

    Examples
    --------
    >>> resume_slip(45 * 86_400.0, 0.5) / 86_400
    45.0

    Half speed until the lost half is rebuilt in three weeks:

    >>> resume_slip(45 * 86_400.0, 0.5, 21 * 86_400.0) / 86_400
    10.5
    """
    require_nonnegative_or_inf(remaining_time=remaining_time, rebuild_time=rebuild_time)
    require_fraction(standby_fraction=standby_fraction)
    factor = 1.0 / standby_fraction - 1.0
    with np.errstate(invalid="ignore"):  # inf × 0: a full-size standby, or nothing left, never slips
        until_done = np.where((factor == 0) | (remaining_time == 0), 0.0, remaining_time * factor)
        until_rebuilt = np.where(factor == 0, 0.0, rebuild_time * (1.0 - standby_fraction))
    return np.minimum(until_done, until_rebuilt)


@formula(r"\Delta T = \mathrm{RPO}_{site} + \mathrm{RTO}_{site} + \Delta T_{reduced}",
         expected=r"\Delta T = E[\mathrm{RPO}_{site}] + \mathrm{RTO}_{site} + \Delta T_{reduced}",
         loss=r"t_{loss} = \Delta T = E[\mathrm{RPO}_{site}] + \mathrm{RTO}_{site} + \Delta T_{reduced}")
@broadcasting
def schedule_slip(work_lost, outage, reduced_capacity_time):
    r"""How much later the run ends after a site loss.

    Parameters
    ----------
    work_lost : float or array_like
        Training to do again: the site RPO (its expected value for an
        expected slip). [s]
    outage : float or array_like
        From the site loss until training resumes: the site RTO. [s]
    reduced_capacity_time : float or array_like
        The extra time the run then takes at reduced capacity
        (:func:`resume_slip`). [s]

    Returns
    -------
    schedule_slip : float or ndarray
        :math:`\Delta T`, the delay of the run's end. [s]

    Notes
    -----
    .. formula::

    Every term delays the end one for one: the lost work is done again, no
    training happens during the outage, and the smaller standby adds
    :math:`\Delta T_{reduced}`. The same sum for every tier, so a cold tier's
    weeks of readiness count as slip. The plan's expected slip takes the
    expected site RPO:

    .. formula:: expected

    It is the time a site loss costs the run :math:`t_{loss}`, each part
    counted once, which :func:`drmath.cost.expected_disaster_loss` prices:

    .. formula:: loss

    References
    ----------
    .. [1] AWS DR whitepaper: RPO and RTO are the data lost and the time to
       recover; derived here, their sum with the time at reduced capacity is
       the delay of the run's end.

    Examples
    --------
    Forty minutes lost, a 100-minute failover, no time at reduced capacity:

    >>> schedule_slip(2400.0, 6000.0, 0.0) / 3600
    2.3333333333333335
    """
    require_nonnegative_or_inf(work_lost=work_lost, outage=outage, reduced_capacity_time=reduced_capacity_time)
    return work_lost + outage + reduced_capacity_time


@formula(r"E[T_{rem}] = T / 2")
@broadcasting
def expected_remaining_run(run_time):
    r"""Expected run time left when a site event strikes.

    Parameters
    ----------
    run_time : float or array_like
        Wall-clock time of the run :math:`T`; may be ``inf``. [s]

    Returns
    -------
    expected_remaining_run : float or ndarray
        :math:`E[T_{rem}] = T/2`, the :math:`T_{rem}` of :func:`resume_slip`. [s]

    Notes
    -----
    A site event at a uniform time :math:`t \in [0, T]` leaves
    :math:`T - t` to run, whose mean is

    .. formula::

    Events are rare (:math:`\lambda_s T \ll 1`), so given one in the run its
    time is close to uniform.

    References
    ----------
    .. [1] Derived here: the mean of :math:`T - t` for :math:`t` uniform on
       :math:`[0, T]`, the first-event time of a Poisson process of small
       :math:`\lambda_s T` (Kleinrock, *Queueing Systems, Vol. 1*, Wiley, 1975,
       Sec. 2.4).

    Examples
    --------
    >>> expected_remaining_run(90 * 86_400.0) / 86_400
    45.0
    """
    require_nonnegative_or_inf(run_time=run_time)
    return run_time / 2
