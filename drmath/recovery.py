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

__all__ = ["rpo_local", "rpo_site_pipeline", "local_rto_phases", "site_rto_phases", "rto", "resume_slip",
           "expected_remaining_run", "site_loss_time", "LOCAL_PHASES", "SITE_PHASES"]

LOCAL_PHASES = ("detection", "reschedule", "launch", "load", "validation")
"""Phases of a local recovery, in order."""

SITE_PHASES = ("detection", "decision", "readiness", "staging", "launch", "load", "validation")
"""Phases of a site failover, in order."""


@formula(r"\mathrm{RPO}_{local} = \tau + W", expected=r"E[\mathrm{loss}_{local}] = \tau/2 + W")
@broadcasting
def rpo_local(checkpoint_interval, write_time, expected=False):
    r"""Progress lost to a local failure.

    Parameters
    ----------
    checkpoint_interval : float or array_like
        Time between checkpoints :math:`\tau`. [s]
    write_time : float or array_like
        Persist time :math:`W`: a checkpoint is not durable before it ends. [s]
    expected : bool or array_like, default False
        False for the worst case, True for the expected value. [1]

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
    :math:`W \le \tau`.

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
    require_flag(expected=expected)
    return np.where(expected, checkpoint_interval / 2, checkpoint_interval) + write_time


@formula(
    every_k=r"\mathrm{RPO}_{site} = k\tau + W + t_{rep}",
    every_k_expected=r"E[\mathrm{loss}_{site}] = k\tau/2 + W + t_{rep}",
    every_k_behind=r"\mathrm{RPO}_{site} = k\tau + W + t_{rep}\ \text{only if}\ T \le k\tau",
    every_k_behind_expected=r"E[\mathrm{loss}_{site}] = k\tau/2 + W + t_{rep}\ \text{only if}\ T \le k\tau",
    newest=r"\mathrm{RPO}_{site} = k\tau + W + t_{rep} + [T > k\tau]\,T",
    newest_expected=r"E[\mathrm{loss}_{site}] = k\tau/2 + W + t_{rep} + [T > k\tau]\,T/2",
)
@broadcasting
def rpo_site_pipeline(replication_interval, write_time, latency, cycle, newest_only=False, expected=False):
    r"""Progress lost when the site is lost, for a pipeline of hops and a replication policy.

    Parameters
    ----------
    replication_interval : float or array_like
        Effective time between off-site copies :math:`k\tau`. [s]
    write_time : float or array_like
        Persist time :math:`W`. [s]
    latency : float or array_like
        Time for one copy to cross every hop :math:`t_{rep}`
        (:func:`drmath.replication.chain_time`: the sum of the hops, their
        maximum when streamed). [s]
    cycle : float or array_like
        The slowest hop's time per copy :math:`T`
        (:func:`drmath.replication.pipeline_cycle`). [s]
    newest_only : bool or array_like, default False
        The policy: False ships every k-th checkpoint, first in, first out;
        True ships the newest only, skipping copies the pipeline could not
        take in time. [1]
    expected : bool or array_like, default False
        False for the worst case (a bound), True for the expected value. [1]

    Returns
    -------
    rpo_site_pipeline : float or ndarray
        Lost progress; ``inf`` under every-k where a hop does not keep up
        (:math:`T > k\tau`). [s]

    Notes
    -----
    *The launch rule* (shared with :func:`drmath.simulate.simulate_run`).
    Checkpoint :math:`n k\tau` (every k-th) is handed to the pipeline when it
    is durable, :math:`W` after it starts. Constant-time hops in tandem pass
    copies as their slowest hop alone would, delayed by the others'
    times [2]_, so the pipeline is one server of service time :math:`T`
    followed by a fixed delay :math:`t_{rep} - T`: a copy that enters at
    :math:`s` is off-site at :math:`s + t_{rep}` and the next copy can enter at
    :math:`s + T`. *every-k*: copies enter first in, first out (a backlog
    when :math:`T > k\tau`). *newest*: when the pipeline can take a copy, the
    newest durable one enters and older ones not yet sent are skipped; no
    copy ever waits inside the chain. In flight at time :math:`t`: the
    copies that entered in :math:`(t - t_{rep}, t]`. Off-site at :math:`t`: the
    newest copy that entered by :math:`t - t_{rep}`.

    *The bound.* Copies arrive at least :math:`k\tau` apart (a checkpoint
    takes :math:`\tau` of training). Every copy :math:`X`, durable at
    :math:`x`, has one at least as new off-site by :math:`x + D`:
    :math:`D = t_{rep}` while :math:`T \le k\tau` (the pipeline is always free on
    arrival), :math:`D = T + t_{rep}` under newest when it can be busy. A site
    event at :math:`t` whose newest off-site copy holds :math:`o` loses at
    most :math:`o + k\tau` (the next shipped checkpoint) plus the progress
    made since that checkpoint started, which is under :math:`W + D`. Every
    k-th (bounded only while :math:`T \le k\tau`), then newest-only:

    .. formula:: every_k

    .. formula:: every_k_behind

    .. formula:: newest

    *The expected value*, for a site event at a uniform time: the newest
    off-site copy landed a uniform share of the gap between landings ago
    (:math:`k\tau`, or :math:`T` for a busy pipeline; mean half of it), it
    took :math:`t_{rep}` to cross, and its checkpoint started :math:`W` before it
    entered; a busy pipeline also finds the newest copy already a uniform
    :math:`[0, k\tau)` old (mean :math:`k\tau/2`) when it takes it:

    .. formula:: every_k_expected

    .. formula:: every_k_behind_expected

    .. formula:: newest_expected

    Both treat a second of wall-clock time as a second of progress, so the
    worst case stays a bound; the expected value is first order in the
    checkpoint stall :math:`\delta/\tau` and in :math:`(k\tau + t_{rep})/M`
    (local failures). When every hop keeps up, the two policies coincide.

    References
    ----------
    .. [1] Derived here, from the launch rule above (the bound: the next
       shipped checkpoint after the newest off-site copy, plus the delay
       :math:`D` to land one at least as new).
    .. [2] H. D. Friedman, "Reduction methods for tandem queuing systems,"
       Operations Research 13(1):121-131, 1965.

    Examples
    --------
    Every 10 min, a 3 s persist, a 283.5 s upload then a 504 s link (each
    hop keeps up although the chain takes 787.5 s):

    >>> rpo_site_pipeline(600.0, 3.0, 787.5, 504.0)
    1390.5
    >>> rpo_site_pipeline(600.0, 3.0, 787.5, 504.0, expected=True)
    1090.5

    Every 5 min, the link falls behind: every-k has no bound, newest-only
    does:

    >>> rpo_site_pipeline(300.0, 3.0, 787.5, 504.0)
    inf
    >>> rpo_site_pipeline(300.0, 3.0, 787.5, 504.0, newest_only=True)
    1594.5
    """
    require_positive(replication_interval=replication_interval)
    require_nonnegative(write_time=write_time, latency=latency, cycle=cycle)
    require_flag(newest_only=newest_only, expected=expected)
    behind = cycle > replication_interval
    share = np.where(expected, 0.5, 1.0)
    bounded = share * replication_interval + write_time + latency + np.where(behind, share * cycle, 0.0)
    return np.where(behind & ~np.asarray(newest_only), np.inf, bounded)


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


@formula(r"\Delta T = \min\left(T_{rem} \left(\frac{G}{G_s} - 1\right),\; R \left(1 - \frac{G_s}{G}\right)\right)",
          expected=r"\Delta T = \min\left(\frac{T}{2}\left(\frac{G}{G_s} - 1\right),\; "
                   r"R\left(1 - \frac{G_s}{G}\right)\right)")
@broadcasting
def resume_slip(remaining_time, standby_fraction, rebuild_time=np.inf):
    r"""Schedule slip from finishing on a smaller standby.

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
        Extra wall-clock time. [s]

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
    expected slip of a run of length :math:`T`:

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


@formula(r"t_{loss} = E[\mathrm{RPO}_{site}] + \mathrm{RTO}_{site} + \Delta T")
@broadcasting
def site_loss_time(site_loss, site_rto, schedule_slip):
    r"""Time a site loss costs the run: the work lost, the outage, and the slip on a smaller standby.

    Parameters
    ----------
    site_loss : float or array_like
        Progress lost to the site event :math:`E[\mathrm{RPO}_{site}]`, the
        expected value of :func:`rpo_site_pipeline`; ``inf`` allowed. [s]
    site_rto : float or array_like
        Time until training resumes at the other site
        :math:`\mathrm{RTO}_{site}` (:func:`rto` of :func:`site_rto_phases`). [s]
    schedule_slip : float or array_like
        Slip while the standby runs short of the primary's GPUs
        :math:`\Delta T` (:func:`resume_slip`). [s]

    Returns
    -------
    site_loss_time : float or ndarray
        How much later the run ends after a site loss :math:`t_{loss}`. [s]

    Notes
    -----
    .. formula::

    It is the schedule slip a reader means by the word, and what
    :func:`drmath.cost.expected_disaster_loss` prices.

    References
    ----------
    .. [1] Derived here: redone work, then the outage, then the time at
       reduced capacity, one after the other on the run's clock.

    Examples
    --------
    >>> site_loss_time(1_800.0, 6_000.0, 0.0)
    7800.0
    """
    require_nonnegative_or_inf(site_loss=site_loss, site_rto=site_rto, schedule_slip=schedule_slip)
    return site_loss + site_rto + schedule_slip
