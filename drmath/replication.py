r"""Moving checkpoints between tiers and sites: hop times, chains and keeping up.

The tiers are host memory, local NVMe, the site's parallel filesystem, the
site's object store and the remote site. Remote replication is a pipeline of
hops (the upload to the object store, the inter-site link, ...): a copy is
off-site after every hop (its latency is :func:`chain_time`), and the pipeline
carries one copy per :func:`pipeline_cycle`, the time of its slowest hop (its
:func:`bottleneck_hop`). It keeps up when every hop is at most 100% busy; a
hop that is not fixes at :func:`hop_bandwidth_needed`. Which copies go, and
what the site then loses, is :func:`drmath.recovery.rpo_site_pipeline`.

References
----------
.. [1] AWS, "Disaster Recovery of Workloads on AWS: Recovery in the Cloud,"
   AWS Well-Architected whitepaper, section "Disaster recovery options in the
   cloud".
.. [2] Amazon S3 User Guide, "Performance guidelines": one concurrent request
   for each 85-90 MB/s.
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
    require_ratio,
)

__all__ = ["transfer_time", "chain_time", "pipeline_cycle", "launch_spacing", "bottleneck_hop", "pipeline_throughput",
           "replication_every", "replication_utilization", "replication_keeps_up", "hop_bandwidth_needed",
           "bandwidth_needed", "bytes_shipped", "HOPS"]

HOPS = ("object-store upload", "cross-site link")
"""The hops of remote replication, in order: :func:`bottleneck_hop` returns an index into it."""


@formula(r"t = \ell + \frac{S / c}{B\,\eta}", object_store=r"t_{os} = \frac{S / c}{B_{os}}",
          link=r"t_{link} = \ell + \frac{S / c}{B\,\eta}")
@broadcasting
def transfer_time(size, bandwidth, efficiency=1.0, latency=0.0, compression=1.0):
    r"""Time for one hop to move a payload.

    Parameters
    ----------
    size : float or array_like
        Payload before compression :math:`S`. [B]
    bandwidth : float or array_like
        Line rate of the hop :math:`B`. [B/s]
    efficiency : float or array_like, default 1.0
        Share of the line rate achieved (protocol, congestion), in (0, 1]
        :math:`\eta`. [1]
    latency : float or array_like, default 0.0
        Fixed cost per transfer (round trips, request set-up) :math:`\ell`. [s]
    compression : float or array_like, default 1.0
        Compression ratio, >= 1 :math:`c`. [1]

    Returns
    -------
    transfer_time : float or ndarray
        :math:`t`. [s]

    Notes
    -----
    .. formula::

    For the plan's two hops (:data:`HOPS`: the upload to the site's object
    store, then the link):

    .. formula:: object_store

    .. formula:: link

    References
    ----------
    .. [1] Google Cloud blog, "AI infrastructure: data center and global
       networks built for the AI era": 100 Gbps moves 1 PB in 22.2 h.

    Examples
    --------
    >>> from drmath.units import PB, Gbit_per_s, hour
    >>> round(transfer_time(1 * PB, 100 * Gbit_per_s) / hour, 1)
    22.2
    """
    require_positive(size=size, bandwidth=bandwidth)
    require_fraction(efficiency=efficiency)
    require_nonnegative(latency=latency)
    require_ratio(compression=compression)
    return latency + size / compression / (bandwidth * efficiency)


@formula(r"t_{chain} = \begin{cases} \sum_i t_i & \text{store-and-forward} \\ \max_i t_i & \text{streamed} \end{cases}",
          store_and_forward=r"t_{rep} = t_{os} + t_{link}", streamed=r"t_{rep} = \max(t_{os}, t_{link})")
def chain_time(hop_times, streamed=False):
    r"""Time for a payload to cross a chain of hops.

    Parameters
    ----------
    hop_times : sequence of float or array_like
        Each hop's :func:`transfer_time`, in order. [s]
    streamed : bool, default False
        False for store-and-forward (each hop waits for the whole payload),
        True for streaming through (the slowest hop sets the pace). [1]

    Returns
    -------
    chain_time : float or ndarray
        :math:`t_{chain}`. [s]

    Notes
    -----
    .. formula::

    For the plan's two hops (:data:`HOPS`: the upload to the site's object
    store, then the link):

    .. formula:: store_and_forward

    .. formula:: streamed

    Streaming ignores the pipeline fill of the faster hops, a first-order
    approximation when payloads are large.

    References
    ----------
    .. [1] L. Kleinrock, *Queueing Systems, Vol. 2*, Wiley, 1976 (store-and-forward).

    Examples
    --------
    >>> chain_time([64.8, 504.0])
    568.8
    >>> chain_time([64.8, 504.0], streamed=True)
    504.0
    """
    require_flag(streamed=streamed)
    # hop by hop, in order, so a number and an array add up alike
    return as_output(functools.reduce(np.maximum if streamed else np.add, _hops(hop_times)))


def _hops(hop_times):
    """The hop times as float arrays, each checked finite and >= 0 (at least one hop)."""
    if isinstance(hop_times, (str, bytes)) or not hasattr(hop_times, "__len__"):
        raise TypeError(f"hop_times must be a sequence of times, got {type(hop_times).__name__}")
    if len(hop_times) == 0:
        raise ValueError("hop_times must name at least one hop, got []")
    for i, t in enumerate(hop_times):
        require_nonnegative(**{f"hop_times[{i}]": t})
    return [np.asarray(t, dtype=float) for t in hop_times]


@formula(r"T = \max_i t_i", hops=r"T = \max(t_{os}, t_{link})")
def pipeline_cycle(hop_times):
    r"""Time between copies that a pipeline of hops can sustain: its slowest hop's time.

    Parameters
    ----------
    hop_times : sequence of float or array_like
        Each hop's :func:`transfer_time` for one copy, in order. [s]

    Returns
    -------
    pipeline_cycle : float or ndarray
        :math:`T`; the pipeline's throughput is one copy per :math:`T`. [s]

    Notes
    -----
    While copy :math:`n` crosses hop 2, copy :math:`n+1` can cross hop 1, so
    the hops work at once and the slowest one paces the chain:

    .. formula::

    For the plan's two hops (:data:`HOPS`: the upload to the site's object
    store, then the link):

    .. formula:: hops

    Its latency, the time for one copy to cross every hop, is
    :func:`chain_time` (the sum store-and-forward); a pipeline keeps up when
    every hop is at most 100% busy, i.e. :math:`T \le k\tau`
    (:func:`replication_keeps_up` of :math:`T`).

    References
    ----------
    .. [1] H. D. Friedman, "Reduction methods for tandem queuing systems,"
       Operations Research 13(1):121-131, 1965: a tandem of constant-time
       stations passes jobs at the rate of its slowest station.

    Examples
    --------
    A 283.5 s upload and a 504 s link: a copy every 504 s, each off-site
    787.5 s after it starts:

    >>> pipeline_cycle([283.5, 504.0]), chain_time([283.5, 504.0])
    (504.0, 787.5)
    """
    return chain_time(hop_times, streamed=True)


@formula(r"b = \operatorname{arg\,max}_i t_i, \qquad t_b = T", hops=r"\operatorname{argmax}(t_{os}, t_{link})")
def bottleneck_hop(hop_times):
    r"""Which hop paces the pipeline: the index of the slowest one.

    Parameters
    ----------
    hop_times : sequence of float or array_like
        Each hop's :func:`transfer_time` for one copy, in order. [s]

    Returns
    -------
    bottleneck_hop : float or ndarray
        :math:`b`, the 0-based index of the slowest hop; the first of equals. [1]

    Notes
    -----
    .. formula::

    For the plan's two hops (:data:`HOPS`: the upload to the site's object
    store, then the link):

    .. formula:: hops

    where :math:`T` is the :func:`pipeline_cycle`. Speeding up any other hop
    does not raise the pipeline's throughput.

    References
    ----------
    .. [1] Friedman 1965 (see :func:`pipeline_cycle`): the slowest station
       sets a tandem's throughput.

    Examples
    --------
    >>> bottleneck_hop([283.5, 504.0])
    1.0
    >>> bottleneck_hop([np.array([283.5, 600.0]), 504.0])
    array([1., 0.])
    """
    hops = _hops(hop_times)
    return as_output(np.argmax(np.stack(np.broadcast_arrays(*hops)), axis=0).astype(float))


@formula(r"X = \frac{S / c}{T}")
@broadcasting
def pipeline_throughput(size, cycle, compression=1.0):
    r"""Checkpoint bytes per second that a pipeline of hops carries when busy.

    Parameters
    ----------
    size : float or array_like
        Checkpoint size before compression :math:`S`. [B]
    cycle : float or array_like
        The :func:`pipeline_cycle` :math:`T`, the slowest hop's time per copy. [s]
    compression : float or array_like, default 1.0
        Compression ratio, >= 1 :math:`c`. [1]

    Returns
    -------
    pipeline_throughput : float or ndarray
        :math:`X`, in bytes sent (after compression) per second. [B/s]

    Notes
    -----
    .. formula::

    References
    ----------
    .. [1] Friedman 1965 (see :func:`pipeline_cycle`): the slowest station
       sets a tandem's throughput.

    Examples
    --------
    A 5.67 TB checkpoint over a 504 s slowest hop:

    >>> from drmath.units import GB
    >>> round(pipeline_throughput(5.67e12, 504.0) / GB, 2)
    11.25
    """
    require_positive(size=size, cycle=cycle)
    require_ratio(compression=compression)
    return size / compression / cycle


@formula(r"k = \max\left(1, \lceil T_{rep} / \tau \rceil\right)")
@broadcasting
def replication_every(replication_interval, checkpoint_interval):
    r"""Which checkpoints go off-site: every k-th.

    Parameters
    ----------
    replication_interval : float or array_like
        Target time between off-site copies. [s]
    checkpoint_interval : float or array_like
        Checkpoint interval :math:`\tau`. [s]

    Returns
    -------
    replication_every : float or ndarray
        :math:`k`, a whole number >= 1. [1]

    Notes
    -----
    .. formula::

    The effective replication interval is :math:`k \tau`, at least the target.

    References
    ----------
    .. [1] AWS DR whitepaper: RPO is set by the replication cadence.

    Examples
    --------
    >>> replication_every(3600.0, 600.0)
    6.0
    >>> replication_every(3600.0, 700.0)
    6.0
    """
    require_positive(replication_interval=replication_interval, checkpoint_interval=checkpoint_interval)
    # 1e-9 forgives float noise: 3600/600 must give 6, not 7
    return np.maximum(1.0, np.ceil(replication_interval / checkpoint_interval - 1e-9))


@formula(r"P = k\,(\tau + \delta)")
@broadcasting
def launch_spacing(replication_every, checkpoint_interval, stall):
    r"""Wall-clock time between copies entering the replication pipeline.

    Parameters
    ----------
    replication_every : float or array_like
        :math:`k`: every k-th checkpoint goes off-site (:func:`replication_every`). [1]
    checkpoint_interval : float or array_like
        Training between checkpoints :math:`\tau`. [s]
    stall : float or array_like
        How long each checkpoint stalls training :math:`\delta`: the whole
        persist when synchronous, the copy to host memory when asynchronous. [s]

    Returns
    -------
    launch_spacing : float or ndarray
        :math:`P`. [s]

    Notes
    -----
    .. formula::

    A checkpoint period is :math:`\tau` of training plus the stall
    :math:`\delta`, so copies due every k-th checkpoint arrive :math:`P` apart
    (more when a failure intervenes, never less). Each hop keeps up when its
    time per copy is at most :math:`P`; :func:`drmath.simulate.simulate_run`
    launches copies by the same rule.

    References
    ----------
    .. [1] J. W. Young, "A first order approximation to the optimum checkpoint
       interval," CACM 17(9), 1974 (the period :math:`\tau + \delta`).

    Examples
    --------
    Synchronous checkpoints that take 567 s, every 10 min, every 6th one
    off-site:

    >>> launch_spacing(6.0, 600.0, 567.0)
    7002.0
    """
    require_positive(replication_every=replication_every, checkpoint_interval=checkpoint_interval)
    require_nonnegative(stall=stall)
    return replication_every * (checkpoint_interval + stall)


@formula(r"\rho_i = \frac{t_i}{P}, \qquad \rho = \max_i \rho_i = \frac{T}{P}",
          object_store=r"\rho_{os} = t_{os} / P", link=r"\rho_{link} = t_{link} / P",
          pipeline=r"\rho = \frac{T}{P}")
@broadcasting
def replication_utilization(replication_time, replication_interval):
    r"""Share of the time between copies that a hop is busy.

    Parameters
    ----------
    replication_time : float or array_like
        One hop's time per copy :math:`t_i` (its :func:`transfer_time`); for
        the pipeline as a whole, its :func:`pipeline_cycle` :math:`T`, which
        gives the bottleneck hop's utilisation. [s]
    replication_interval : float or array_like
        Time between copies entering the pipeline :math:`P` (:func:`launch_spacing`, :math:`k(\tau + \delta)`). [s]

    Returns
    -------
    replication_utilization : float or ndarray
        :math:`\rho_i`; above 1 the hop cannot carry every copy: under
        every-k its backlog grows without bound. [1]

    Notes
    -----
    .. formula::

    For the plan's two hops (:data:`HOPS`: the upload to the site's object
    store, then the link):

    .. formula:: object_store

    .. formula:: link

    .. formula:: pipeline

    Copies reach the pipeline at least :math:`P` apart (a checkpoint
    period is :math:`\tau` of training plus the stall :math:`\delta`), so :math:`\rho_i` is an upper bound on
    the share of time hop :math:`i` is busy.

    References
    ----------
    .. [1] L. Kleinrock, *Queueing Systems, Vol. 1*, Wiley, 1975 (a queue with
       utilisation above 1 is unstable).

    Examples
    --------
    The upload (283.5 s) and the link (504 s) of a copy every 10 min:

    >>> replication_utilization(283.5, 600.0), replication_utilization(504.0, 600.0)
    (0.4725, 0.84)
    >>> replication_utilization(504.0, 3600.0)
    0.14
    """
    require_nonnegative(replication_time=replication_time)
    require_positive(replication_interval=replication_interval)
    return replication_time / replication_interval


@formula(r"t_i \le P, \qquad \text{the pipeline: } T = \max_i t_i \le P", pipeline=r"T \le P")
@broadcasting
def replication_keeps_up(replication_time, replication_interval):
    r"""Whether a hop (or a pipeline, given its cycle) carries every copy in time.

    Parameters
    ----------
    replication_time : float or array_like
        One hop's time per copy :math:`t_i`; for the pipeline, its
        :func:`pipeline_cycle` :math:`T` (every hop keeps up). [s]
    replication_interval : float or array_like
        Time between copies entering the pipeline :math:`P` (:func:`launch_spacing`, :math:`k(\tau + \delta)`). [s]

    Returns
    -------
    replication_keeps_up : bool or ndarray
        :math:`t_i \le P`. [1]

    Notes
    -----
    .. formula::

    The pipeline, as the plan states it:

    .. formula:: pipeline

    A pipeline keeps up when every hop does: its latency (:func:`chain_time`)
    may exceed :math:`P`, as copies overlap on different hops.

    References
    ----------
    .. [1] Kleinrock, *Queueing Systems, Vol. 1*, 1975: a queue is stable while
       its utilisation is at most 1; Friedman 1965 (see :func:`pipeline_cycle`)
       for a tandem of stations.

    Examples
    --------
    An 8.4-min copy every hour keeps up; every 5 min it does not:

    >>> replication_utilization(504.0, 3600.0), replication_keeps_up(504.0, 3600.0)
    (0.14, True)
    >>> replication_utilization(504.0, 300.0), replication_keeps_up(504.0, 300.0)
    (1.68, False)

    A 283.5 s upload then a 504 s link, every 10 min: 787.5 s in all, yet
    each hop fits:

    >>> replication_keeps_up(pipeline_cycle([283.5, 504.0]), 600.0)
    True
    """
    return replication_utilization(replication_time, replication_interval) <= 1.0


@formula(r"B^* = \frac{S / c}{\eta \, (P - \ell)}, \qquad B^* = \infty \text{ where } P \le \ell",
          object_store=r"B_{os}^{min} = \frac{S / c}{P}", link=r"B_{min} = \frac{S / c}{\eta\,(P - \ell)}")
@broadcasting
def hop_bandwidth_needed(size, replication_interval, efficiency=1.0, latency=0.0, compression=1.0):
    r"""Line rate at which one hop just carries a copy every interval.

    Parameters
    ----------
    size : float or array_like
        Checkpoint size before compression :math:`S`. [B]
    replication_interval : float or array_like
        Time between copies entering the pipeline :math:`P` (:func:`launch_spacing`, :math:`k(\tau + \delta)`). [s]
    efficiency : float or array_like, default 1.0
        Share of the hop's line rate achieved, in (0, 1] :math:`\eta`. [1]
    latency : float or array_like, default 0.0
        The hop's fixed cost per transfer :math:`\ell`. [s]
    compression : float or array_like, default 1.0
        Compression ratio, >= 1 :math:`c`. [1]

    Returns
    -------
    hop_bandwidth_needed : float or ndarray
        :math:`B^*`; ``inf`` where the latency alone fills the interval. [B/s]

    Notes
    -----
    A pipeline keeps up when every hop does (:func:`replication_keeps_up` of
    the :func:`pipeline_cycle`), whether the hops stream or store and forward.
    Setting the hop's :func:`transfer_time` equal to the interval and solving
    for its line rate :math:`B`:

    .. formula::

    For the plan's two hops (:data:`HOPS`: the upload to the site's object
    store, then the link), the upload having no latency
    and no overhead:

    .. formula:: object_store

    .. formula:: link

    Applied to the :func:`bottleneck_hop`, it is the line rate that fixes
    the bottleneck; applied to every hop, the line rates at which each fits.

    References
    ----------
    .. [1] Derived here: :func:`transfer_time` set equal to the interval
       :math:`P` and solved for the line rate; each station of a tandem
       must be stable (utilisation at most 1; Kleinrock, *Queueing Systems,
       Vol. 1*, Wiley, 1975; Friedman 1965).

    Examples
    --------
    A 5.67 TB checkpoint every 10 min over a link 90% efficient with 50 ms
    latency, and into an object store:

    >>> from drmath.units import GB_per_s
    >>> round(hop_bandwidth_needed(5.67e12, 600.0, 0.9, 0.05) / GB_per_s, 2)
    10.5
    >>> round(hop_bandwidth_needed(5.67e12, 600.0) / GB_per_s, 2)
    9.45
    >>> hop_bandwidth_needed(5.67e12, 600.0, latency=600.0)
    inf
    """
    require_positive(size=size, replication_interval=replication_interval)
    require_fraction(efficiency=efficiency)
    require_nonnegative(latency=latency)
    require_ratio(compression=compression)
    budget = replication_interval - latency
    # size / budget first: two positive numbers never divide to NaN, however small
    return np.where(budget > 0, size / budget / efficiency / compression, np.inf)


@formula(r"B^* = \frac{S / c}{\eta \, (k\tau - \ell - t_{os})}, \qquad "
          r"B^* = \infty \text{ where } k\tau - \ell - t_{os} \le 0")
@broadcasting
def bandwidth_needed(size, interval, efficiency, latency, upload_time, compression=1.0, streamed=False):
    r"""Link line rate at which off-site replication just keeps up.

    Parameters
    ----------
    size : float or array_like
        Checkpoint size before compression :math:`S`. [B]
    interval : float or array_like
        Effective time between off-site copies :math:`k\tau`. [s]
    efficiency : float or array_like
        Share of the line rate achieved, in (0, 1] :math:`\eta`. [1]
    latency : float or array_like
        Fixed cost per transfer :math:`\ell`. [s]
    upload_time : float or array_like
        Time of the hop before the link (the object-store upload) :math:`t_{os}`. [s]
    compression : float or array_like, default 1.0
        Compression ratio, >= 1 :math:`c`. [1]
    streamed : bool, default False
        Whether the upload and the link stream (else store-and-forward). [1]

    Returns
    -------
    bandwidth_needed : float or ndarray
        :math:`B^*`; ``inf`` where no line rate keeps up: the upload and the
        latency alone fill the interval. [B/s]

    Notes
    -----
    This is the rate for one copy in flight at a time: the whole chain must
    fit in the interval. A pipeline, whose hops carry different copies at
    once, needs only each hop to fit: :func:`hop_bandwidth_needed`, never
    more than this. Store-and-forward, the chain time is
    :math:`t_{os} + \ell + \frac{S/c}{B \eta}` (:func:`chain_time` of
    :func:`transfer_time` hops); solved for the line rate :math:`B` at equality:

    .. formula::

    Streamed, the slowest hop sets the pace, so the link alone must fit in
    :math:`k\tau` (the formula with :math:`t_{os} = 0`), and no line rate
    helps where the upload itself does not fit (:math:`t_{os} > k\tau`).

    References
    ----------
    .. [1] Derived here: :func:`transfer_time` and :func:`chain_time` set equal
       to the interval :math:`k\tau` and solved for the line rate; the queue is
       stable while utilisation is at most 1 (L. Kleinrock, *Queueing Systems,
       Vol. 1*, Wiley, 1975).

    Examples
    --------
    A 5.67 TB checkpoint every hour, 80% efficient, 1 s latency, after a 64.8 s
    upload:

    >>> from drmath.units import Gbit_per_s
    >>> round(bandwidth_needed(5.67e12, 3600.0, 0.8, 1.0, 64.8) / Gbit_per_s, 2)
    16.04
    >>> round(bandwidth_needed(5.67e12, 3600.0, 0.8, 1.0, 64.8, streamed=True) / Gbit_per_s, 2)
    15.75
    >>> bandwidth_needed(5.67e12, 3600.0, 0.8, 1.0, 4000.0, streamed=True)
    inf
    """
    require_positive(size=size, interval=interval)
    require_fraction(efficiency=efficiency)
    require_nonnegative(latency=latency, upload_time=upload_time)
    require_ratio(compression=compression)
    require_flag(streamed=streamed)
    budget = interval - latency - np.where(streamed, 0.0, upload_time)
    feasible = (budget > 0) & ~(streamed & (upload_time > interval))
    return np.where(feasible, size / compression / (efficiency * budget), np.inf)


@formula(r"V = \frac{T_{run}}{\max(P,\; T)} \cdot \frac{S}{c}")
@broadcasting
def bytes_shipped(run_time, replication_interval, size, compression=1.0, cycle=0.0):
    r"""Bytes sent off-site over the run, capped by what the slowest hop can carry.

    Parameters
    ----------
    run_time : float or array_like
        Wall-clock time of the run :math:`T_{run}`; may be ``inf``. [s]
    replication_interval : float or array_like
        Time between copies entering the pipeline :math:`P` (:func:`launch_spacing`, :math:`k(\tau + \delta)`). [s]
    size : float or array_like
        Checkpoint size before compression :math:`S`. [B]
    compression : float or array_like, default 1.0
        Compression ratio, >= 1 :math:`c`. [1]
    cycle : float or array_like, default 0.0
        The :func:`pipeline_cycle` :math:`T`, the slowest hop's time per copy;
        0 for no cap. [s]

    Returns
    -------
    bytes_shipped : float or ndarray
        :math:`V`, the volume that pays egress. [B]

    Notes
    -----
    One compressed checkpoint leaves every :math:`P`, but no hop passes
    more than one copy per :math:`T` (a hop that falls behind either skips
    copies or holds a backlog that never leaves):

    .. formula::

    :math:`T_{run} / \max(P, T)` is not rounded: the mean volume of a run
    whose last copy may fall anywhere in its interval. With the cap, no hop
    carries more than its line rate times the run.

    References
    ----------
    .. [1] Derived here: copies per run times bytes per copy; a hop of time
       :math:`T` per copy completes at most :math:`T_{run}/T` copies in the
       run. Egress is priced per byte sent (AWS Direct Connect pricing, data
       transfer out).

    Examples
    --------
    A 5.67 TB checkpoint shipped every hour of a 90-day run:

    >>> from drmath.units import PB, day
    >>> round(bytes_shipped(90 * day, 3600.0, 5.67e12) / PB, 2)
    12.25

    Over a 1 Gbit/s link, 90% efficient, one copy takes 50,400 s, so at most
    about 0.9 PB leaves in 90 days:

    >>> round(bytes_shipped(90 * day, 3600.0, 5.67e12, cycle=50_400.0) / PB, 3)
    0.875
    """
    require_nonnegative_or_inf(run_time=run_time)
    require_positive(replication_interval=replication_interval, size=size)
    require_ratio(compression=compression)
    require_nonnegative(cycle=cycle)
    return run_time / np.maximum(replication_interval, cycle) * size / compression
