r"""What the run and its disaster recovery cost, and what a disaster is expected to cost.

Prices are inputs: GPU-hours, reserved standby share, link ports, egress per
byte and remote storage per byte-month. The cost of delay is the business
value lost per second the run finishes late; without it a rare site loss never
pays for any standby.

References
----------
.. [1] AWS, "Disaster Recovery of Workloads on AWS: Recovery in the Cloud,"
   AWS Well-Architected whitepaper (cost rises from backup & restore to
   multi-site).
.. [2] AWS Direct Connect pricing (port-hours, data transfer out).
.. [3] S. Rajbhandari et al., "ZeRO," SC20, arXiv:1910.02054, Sec. 7.1
   (data-parallel communication volume).

Multi-site training is costed like the other tiers, plus what it alone needs:
losing either site interrupts the run (:func:`site_event_probability` with
``sites=2``), and every step exchanges the gradients across the sites
(:func:`cross_site_bandwidth`), on a link priced by its bandwidth
(:func:`link_cost`).
"""

import numpy as np

from ._formula import formula
from ._validate import (
    broadcasting,
    require_nonnegative,
    require_nonnegative_or_inf,
    require_number,
    require_positive,
    require_ratio,
    require_unit_interval,
)
from .presets import LINKS
from .units import hour, month

__all__ = ["excess_site_gpus", "gpu_hours", "run_cost", "standby_cost", "replication_cost", "site_event_probability",
           "expected_disaster_loss", "break_even_delay_cost", "fleet_cost_rate", "lost_time_saved",
           "cross_site_bandwidth", "link_cost", "link_hour_price", "goodput_lost_cost"]

_PORT_BANDWIDTHS = np.array([link.bandwidth for link in LINKS.values()])  # [B/s]
_PORT_HOUR_PRICES = np.array([link.hour_price for link in LINKS.values()])  # [USD]


def _times(price, amount):
    """price × amount, with 0 × inf = 0: a free thing costs nothing however long it is held."""
    with np.errstate(invalid="ignore"):
        return np.where(price == 0, 0.0, price * amount)


@formula(r"H = G\,T / 3600")
@broadcasting
def gpu_hours(gpus, duration):
    r"""GPU-hours held over a run.

    Parameters
    ----------
    gpus : float or array_like
        GPUs held :math:`G`. [1]
    duration : float or array_like
        Wall-clock time held :math:`T`; may be ``inf``. [s]

    Returns
    -------
    gpu_hours : float or ndarray
        :math:`G T / 3600`, in GPU-hours. [GPU·h]

    Notes
    -----
    .. formula::

    References
    ----------
    .. [1] Llama 3.1 model card: "39.3M GPU hours" on H100-80GB.

    Examples
    --------
    >>> gpu_hours(8_000, 90 * 86_400.0) / 1e6
    17.28
    """
    require_nonnegative(gpus=gpus)
    require_nonnegative_or_inf(duration=duration)
    return _times(gpus, duration / hour)


@formula(r"C_{run} = p\,H")
@broadcasting
def run_cost(gpus, duration, gpu_hour_price):
    r"""Price of the primary cluster for the run.

    Parameters
    ----------
    gpus : float or array_like
        GPUs :math:`G`. [1]
    duration : float or array_like
        Wall-clock time :math:`T`. [s]
    gpu_hour_price : float or array_like
        Price of one GPU for one hour :math:`p`. [USD]

    Returns
    -------
    run_cost : float or ndarray
        :math:`p \, G T / 3600`. [USD]

    Notes
    -----
    .. formula::

    with :math:`H = G\,T / 3600` the GPU-hours (:func:`gpu_hours`).

    References
    ----------
    .. [1] EC2 Capacity Blocks p5.48xlarge, $39.33/h for 8 x H100.

    Examples
    --------
    >>> round(run_cost(8_000, 90 * 86_400.0, 4.92) / 1e6, 1)
    85.0
    """
    require_nonnegative(gpus=gpus, gpu_hour_price=gpu_hour_price)
    require_nonnegative_or_inf(duration=duration)
    return _times(gpu_hour_price, gpu_hours(gpus, duration))


@formula(r"C_{standby} = r\,p\,G_s\,T / 3600",
         split=r"C_{standby} = \left(r\,p \min\left(G_s, \tfrac{n_s - 1}{n_s} G\right) + p\,G_x\right) T / 3600")
@broadcasting
def standby_cost(standby_gpus, duration, gpu_hour_price, reserved_share):
    r"""Price of keeping a standby at its tier for the run.

    Parameters
    ----------
    standby_gpus : float or array_like
        GPUs in the standby :math:`G_s`. [1]
    duration : float or array_like
        Wall-clock time it is held :math:`T`. [s]
    gpu_hour_price : float or array_like
        Full price of one GPU for one hour :math:`p`. [USD]
    reserved_share : float or array_like
        Share of the full price paid to hold it at the tier (reservation
        premium plus the value of preemptible work displaced), in [0, 1]
        :math:`r`. [1]

    Returns
    -------
    standby_cost : float or ndarray
        :math:`r \, p \, G_s T / 3600`. [USD]

    Notes
    -----
    .. formula::

    Sites that train together (multi-site, :math:`n_s` of them) hold their
    split half at the tier's share, and any GPUs beyond it
    (:func:`excess_site_gpus` :math:`G_x`, idle) at full price; the plan
    prices them as two standbys:

    .. formula:: split

    References
    ----------
    .. [1] AWS DR whitepaper: warm standby is "always running but scaled down".

    Examples
    --------
    >>> round(standby_cost(8_000, 90 * 86_400.0, 4.92, 0.25) / 1e6, 2)
    21.25
    """
    require_nonnegative(standby_gpus=standby_gpus, gpu_hour_price=gpu_hour_price)
    require_nonnegative_or_inf(duration=duration)
    require_unit_interval(reserved_share=reserved_share)
    return _times(reserved_share, run_cost(standby_gpus, duration, gpu_hour_price))


@formula(r"G_x = G \max\left(0,\; \frac{n_s f}{n_s - 1} - 1\right) \quad (n_s \ge 2)")
@broadcasting
def excess_site_gpus(gpus, standby_fraction, sites):
    r"""GPUs held beyond a multi-site tier's split, so the survivor of a site loss is larger than its share.

    Parameters
    ----------
    gpus : float or array_like
        GPUs training at once, over all sites :math:`G`. [1]
    standby_fraction : float or array_like
        What the surviving sites run at after losing one, over :math:`G`: :math:`f`. [1]
    sites : float or array_like
        Sites training at once :math:`n_s`; 1 for a standby tier (nothing is
        beyond a split then). [1]

    Returns
    -------
    excess_site_gpus : float or ndarray
        :math:`G_x`, idle GPUs over all sites. [1]

    Notes
    -----
    .. formula::

    Each of :math:`n_s` sites trains with :math:`G/n_s` GPUs. For the
    :math:`n_s - 1` survivors of any one site loss to hold :math:`fG`, every
    site must hold :math:`fG/(n_s - 1)`, so :math:`n_s fG/(n_s - 1) - G` GPUs
    sit idle beyond the split. Two sites at :math:`f = 1` hold a second fleet.

    References
    ----------
    .. [1] Derived here, from the tier's even split (AWS DR whitepaper,
       multi-site active/active).

    Examples
    --------
    >>> excess_site_gpus(8_000, 1.0, 2), excess_site_gpus(8_000, 0.5, 2), excess_site_gpus(8_000, 1.0, 1)
    (8000.0, 0.0, 0.0)
    """
    require_nonnegative(gpus=gpus)
    require_unit_interval(standby_fraction=standby_fraction)
    require_positive(sites=sites)
    share = np.where(sites > 1, sites * standby_fraction / np.maximum(sites - 1, 1) - 1.0, 0.0)
    return gpus * np.maximum(share, 0.0)


@formula(r"C_{rep} = p_e V + p_s S_r \frac{T}{\text{month}} + p_l \frac{T}{3600}")
@broadcasting
def replication_cost(shipped, egress_price, retained, storage_month_price, duration, link_hour_price):
    r"""Price of replicating checkpoints off-site for the run.

    Parameters
    ----------
    shipped : float or array_like
        Bytes sent across the link over the run :math:`V`. [B]
    egress_price : float or array_like
        Price of sending one byte out :math:`p_e`. [USD/B]
    retained : float or array_like
        Bytes kept at the remote site at any time :math:`S_r`. [B]
    storage_month_price : float or array_like
        Price of storing one byte for one month :math:`p_s`. [USD/B]
    duration : float or array_like
        Wall-clock time of the run :math:`T`. [s]
    link_hour_price : float or array_like
        Price of the link port per hour :math:`p_l`. [USD]

    Returns
    -------
    replication_cost : float or ndarray
        [USD]

    Notes
    -----
    .. formula::

    References
    ----------
    .. [1] AWS Direct Connect pricing: 100 Gbps port $22.50/h, data out
       $0.02-0.1923/GB.

    Examples
    --------
    >>> round(replication_cost(1e15, 2e-11, 1.1e13, 2.3e-11, 90 * 86_400.0, 22.5))
    69349
    """
    require_nonnegative(egress_price=egress_price, retained=retained,
                        storage_month_price=storage_month_price, link_hour_price=link_hour_price)
    require_nonnegative_or_inf(shipped=shipped, duration=duration)
    return (_times(egress_price, shipped) + _times(storage_month_price * retained, duration / month)
            + _times(link_hour_price, duration / hour))


@formula(r"P = 1 - e^{-n_s\,\lambda_s T}")
@broadcasting
def site_event_probability(site_event_rate, duration, sites=1.0):
    r"""Probability that a site event interrupts the run.

    Parameters
    ----------
    site_event_rate : float or array_like
        Site-loss events per second, per site :math:`\lambda_s`. [1/s]
    duration : float or array_like
        Wall-clock time of the run :math:`T`. [s]
    sites : float or array_like, default 1.0
        Sites the run trains on at once, any one of whose loss interrupts it
        :math:`n_s`: 1 for a primary with a standby (losing the standby does
        not stop the run), 2 for multi-site. [1]

    Returns
    -------
    site_event_probability : float or ndarray
        :math:`1 - e^{-n_s \lambda_s T}`. [1]

    Notes
    -----
    .. formula::

    Independent sites, each lost as a Poisson process of rate
    :math:`\lambda_s`: the first loss among :math:`n_s` of them is a Poisson
    process of rate :math:`n_s \lambda_s`, so
    :math:`P = 1 - (e^{-\lambda_s T})^{n_s}`, the chance that not every site
    survives.

    References
    ----------
    .. [1] Uptime Institute, Annual Outage Analysis 2022.
    .. [2] Derived here: the superposition of independent Poisson processes
       (Kleinrock, *Queueing Systems, Vol. 1*, Wiley, 1975, Sec. 2.4).

    Examples
    --------
    >>> round(site_event_probability(0.0667 / (365 * 86_400.0), 90 * 86_400.0), 4)
    0.0163
    >>> round(site_event_probability(0.0667 / (365 * 86_400.0), 90 * 86_400.0, sites=2), 4)
    0.0324
    """
    require_nonnegative(site_event_rate=site_event_rate)
    require_nonnegative_or_inf(duration=duration)
    require_ratio(sites=sites)
    return -np.expm1(-_times(sites * site_event_rate, duration))


@formula(r"E[C_{loss}] = P\,t_{loss}\,(F + D)",
          expanded=r"E[C_{loss}] = P\,\Delta T\,(F + D)",
          certain=r"C_{site} = t_{loss}\,(F + D)")
@broadcasting
def expected_disaster_loss(probability, lost_time, fleet_cost_rate, delay_cost):
    r"""Expected cost of a site disaster during the run.

    Parameters
    ----------
    probability : float or array_like
        Probability of a site event in the run :math:`P`. [1]
    lost_time : float or array_like
        Time a site loss costs the run :math:`t_{loss}`: the schedule slip,
        expected site RPO + site RTO + time at reduced capacity
        (:func:`drmath.recovery.schedule_slip`), each counted once; may be ``inf``. [s]
    fleet_cost_rate : float or array_like
        What the fleet costs per second :math:`F`. [USD/s]
    delay_cost : float or array_like
        Business value lost per second of finishing late :math:`D`. [USD/s]

    Returns
    -------
    expected_disaster_loss : float or ndarray
        :math:`P\,t_{loss}\,(F + D)`; ``inf`` where :math:`t_{loss}` is unbounded and
        :math:`P > 0`. [USD]

    Notes
    -----
    .. formula::

    With the plan's lost time, the schedule slip :math:`\Delta T`
    (:func:`drmath.recovery.schedule_slip`), and for one site loss, the event
    certain (:math:`P = 1`):

    .. formula:: expanded

    .. formula:: certain

    References
    ----------
    .. [1] AWS DR whitepaper: the tier is chosen by the cost of downtime and
       data loss against the cost of the strategy.

    Examples
    --------
    >>> round(expected_disaster_loss(0.0163, 4 * 3600.0, 10.9, 11.6))
    5281
    """
    require_unit_interval(probability=probability)
    require_nonnegative(fleet_cost_rate=fleet_cost_rate, delay_cost=delay_cost)
    require_nonnegative_or_inf(lost_time=lost_time)
    rate = probability * (fleet_cost_rate + delay_cost)
    # 0 * inf is 0 here: no chance of an event costs nothing, however long it would last
    with np.errstate(invalid="ignore"):
        return np.where(rate > 0, rate * lost_time, 0.0)


@formula(r"D^* = \max\left(0, \frac{\Delta C}{P\,\Delta L} - F\right)")
@broadcasting
def break_even_delay_cost(extra_cost, saved_time, probability, fleet_cost_rate):
    r"""Cost of delay above which a tier pays for itself against a cheaper one.

    Parameters
    ----------
    extra_cost : float or array_like
        What the tier costs more than the baseline (standby + replication);
        negative when it is cheaper :math:`\Delta C`. [USD]
    saved_time : float or array_like
        How much shorter its lost time (RPO + RTO + slip) is, from
        :func:`lost_time_saved`; negative when longer, ``inf`` when only the
        baseline's is unbounded :math:`\Delta L`. [s]
    probability : float or array_like
        Probability of a site event in the run :math:`P`. [1]
    fleet_cost_rate : float or array_like
        What the fleet costs per second :math:`F`. [USD/s]

    Returns
    -------
    break_even_delay_cost : float or ndarray
        :math:`D^*`, 0 if the tier pays for itself at any cost of delay, ``inf``
        if it never does. [USD/s]

    Raises
    ------
    ValueError
        If ``extra_cost`` and ``saved_time`` are both ``inf`` while
        ``probability > 0``: an unbounded extra cost against an unbounded
        saving has no break-even (:math:`\infty / \infty`).

    Notes
    -----
    Equal expected totals :math:`\Delta C = P\,\Delta L\,(F + D^*)` give

    .. formula::

    The edges follow from what the tier buys:

    - :math:`\Delta C \le 0` (no dearer): :math:`D^* = 0`, it pays at any cost
      of delay, even where it saves nothing;
    - :math:`\Delta C > 0` and :math:`\Delta L \le 0` or :math:`P = 0` (dearer
      and saves nothing, or no event to save from): :math:`D^* = \infty`;
    - :math:`\Delta L = \infty` with :math:`P > 0` and finite :math:`\Delta C`:
      :math:`D^* = 0`; :math:`\Delta C = \infty` with finite :math:`\Delta L`:
      :math:`D^* = \infty`;
    - both infinite with :math:`P > 0`: refused (see Raises), never NaN.

    References
    ----------
    .. [1] AWS DR whitepaper: choose the tier whose cost the avoided loss
       justifies.

    Examples
    --------
    >>> round(break_even_delay_cost(21e6, 3 * 7 * 86_400.0, 0.0163, 10.9) * 86_400 / 1e6, 1)
    60.4
    """
    require_number(extra_cost=extra_cost, saved_time=saved_time)
    require_unit_interval(probability=probability)
    require_nonnegative(fleet_cost_rate=fleet_cost_rate)
    pays = (saved_time > 0) & (probability > 0)  # else the tier never saves anything
    if np.any((extra_cost == np.inf) & (saved_time == np.inf) & (probability > 0)):
        raise ValueError("extra_cost and saved_time must not both be inf where probability > 0 (an unbounded "
                         "extra cost against an unbounded saving has no break-even), got inf and inf")
    with np.errstate(invalid="ignore"):  # P·ΔL = 0·inf where the tier never pays: masked below
        value = np.maximum(0.0, extra_cost / (probability * saved_time) - fleet_cost_rate)
    return np.where(extra_cost <= 0, 0.0, np.where(pays, value, np.inf))


@formula(r"F = G\,p / 3600")
@broadcasting
def fleet_cost_rate(gpus, gpu_hour_price):
    r"""What the training fleet costs per second.

    Parameters
    ----------
    gpus : float or array_like
        GPUs in the fleet :math:`G`. [1]
    gpu_hour_price : float or array_like
        Price of one GPU for one hour :math:`p`. [USD]

    Returns
    -------
    fleet_cost_rate : float or ndarray
        :math:`F`, the rate at which idle or lost fleet time costs money. [USD/s]

    Notes
    -----
    .. formula::

    :func:`run_cost` is :math:`F T`; :func:`expected_disaster_loss` charges
    :math:`F` for every second the fleet's work is lost.

    References
    ----------
    .. [1] EC2 Capacity Blocks p5.48xlarge, $39.33/h for 8 x H100.

    Examples
    --------
    8,000 GPUs at $4.92 per GPU-hour:

    >>> round(fleet_cost_rate(8_000, 4.92), 2)
    10.93
    """
    require_nonnegative(gpus=gpus, gpu_hour_price=gpu_hour_price)
    return gpus * gpu_hour_price / hour


@formula(r"\Delta L = L_0 - L, \qquad \Delta L = 0 \text{ where } L_0 = L = \infty")
@broadcasting
def lost_time_saved(baseline_lost_time, lost_time):
    r"""Lost time a DR tier saves against a baseline tier after a site event.

    Parameters
    ----------
    baseline_lost_time : float or array_like
        The baseline tier's (usually cold) site RPO + site RTO + schedule
        slip :math:`L_0`; may be ``inf``. [s]
    lost_time : float or array_like
        The same for the tier :math:`L`; may be ``inf``. [s]

    Returns
    -------
    lost_time_saved : float or ndarray
        :math:`\Delta L`, negative where the tier loses more; 0 where both are
        unbounded. [s]

    Notes
    -----
    .. formula::

    Both are unbounded when replication does not keep up (the site RPO has no
    bound whatever the tier): then no tier saves anything, which
    :func:`break_even_delay_cost` turns into "never pays" (``inf``).

    References
    ----------
    .. [1] Derived here: the difference of the lost times that
       :func:`expected_disaster_loss` charges; AWS DR whitepaper: a tier is
       worth its cost by the downtime and data loss it avoids.

    Examples
    --------
    Cold recovers in 3 weeks and 2 hours, warm in 3 hours:

    >>> lost_time_saved(21 * 86_400.0 + 7_200.0, 10_800.0) / 3600
    503.0
    """
    require_nonnegative_or_inf(baseline_lost_time=baseline_lost_time, lost_time=lost_time)
    with np.errstate(invalid="ignore"):  # inf - inf: both unbounded, nothing saved
        return np.where((baseline_lost_time == np.inf) & (lost_time == np.inf), 0.0, baseline_lost_time - lost_time)


@formula(r"B_x = \frac{2(n_s - 1)}{n_s}\,\frac{N\,b_g}{t_{step}}")
@broadcasting
def cross_site_bandwidth(params, step_time, sites=2.0, bytes_per_gradient=2.0):
    r"""Link bandwidth that data-parallel training across sites needs for its gradients.

    Parameters
    ----------
    params : float or array_like
        Trainable parameters :math:`N` (every one has a gradient). [1]
    step_time : float or array_like
        Time of one optimizer step :math:`t_{step}`: the global batch's
        compute, ``training.time_to_train(params, batch_tokens, gpus,
        peak_flop_rate, mfu)``. [s]
    sites : float or array_like, default 2.0
        Sites training together :math:`n_s`, each holding a full replica. [1]
    bytes_per_gradient : float or array_like, default 2.0
        Bytes per gradient element on the wire :math:`b_g`: 2 for bf16, 4 for
        fp32 (Llama 3 reduce-scatters in fp32); see
        :data:`drmath.presets.BYTES_PER_GRADIENT`. [B]

    Returns
    -------
    cross_site_bandwidth : float or ndarray
        Bandwidth each site must send (and receive) across sites, one
        direction of a full-duplex link :math:`B_x`. [B/s]

    Notes
    -----
    Each step all-reduces the :math:`N` gradients, :math:`M = N b_g` bytes.
    A ring all-reduce over :math:`p` participants is a reduce-scatter then an
    all-gather, each moving :math:`(p-1)/p \cdot M` out of every participant
    (ZeRO's :math:`2\Psi` as :math:`p` grows). Done site-aware (reduce
    within each site first, then exchange the shards between the sites, as
    hierarchical all-reduce and HSDP do), the participants at the site
    boundary are the :math:`p = n_s` sites, and the traffic must cross within one
    step to keep up with it:

    .. formula::

    Two sites give :math:`B_x = N b_g / t_{step}` each way. It is a floor:
    the exchange overlaps the whole step only if gradients stream out during
    the backward pass; one that must fit in the backward pass (about 2/3 of
    the step) needs 1.5 times as much, and a flat ring that crosses the
    boundary without the site-aware step needs about twice as much.

    References
    ----------
    .. [1] Rajbhandari et al., "ZeRO," SC20, arXiv:1910.02054, Sec. 7.1: "the
       standard DP incurs 2Psi data movement during each training step".
    .. [2] P. Patarasuk and X. Yuan, "Bandwidth optimal all-reduce algorithms
       for clusters of workstations," J. Parallel Distrib. Comput. 69(2),
       2009: :math:`2(p-1)/p` of the data per participant.
    .. [3] Llama 3, arXiv:2407.21783, Table 4: 16M tokens per global batch.

    Examples
    --------
    405B parameters in bf16 across two sites, a step of 12.9 s (16M tokens on
    8,000 H100 at 40% MFU):

    >>> from drmath.units import Gbit_per_s
    >>> round(cross_site_bandwidth(405e9, 12.88) / Gbit_per_s)
    503
    """
    require_positive(params=params, step_time=step_time, bytes_per_gradient=bytes_per_gradient)
    require_ratio(sites=sites)
    return 2.0 * (sites - 1.0) / sites * params * bytes_per_gradient / step_time


@formula(r"C_{link} = p_b \cdot B \cdot T / (3600\ \mathrm{s/h})", cross_site=r"C_x = p_b\,B_x\,T / 3600")
@broadcasting
def link_cost(bandwidth, duration, bandwidth_hour_price):
    r"""Price of holding link bandwidth for a time, at a price that scales with the bandwidth.

    Parameters
    ----------
    bandwidth : float or array_like
        Line rate held (one direction of a full-duplex port) :math:`B`. [B/s]
    duration : float or array_like
        Wall-clock time it is held :math:`T`; may be ``inf``. [s]
    bandwidth_hour_price : float or array_like
        Price of one B/s of line rate for one hour :math:`p_b`, e.g.
        ``presets.LINKS["dx-400g"].bandwidth_hour_price``. [USD/h per B/s]

    Returns
    -------
    link_cost : float or ndarray
        :math:`p_b B T / 3600`. [USD]

    Notes
    -----
    .. formula::

    The cross-site circuit for gradients, :math:`B_x` of
    :func:`cross_site_bandwidth`:

    .. formula:: cross_site

    Ports come in fixed sizes, but their price is close to proportional to
    their bandwidth (10, 100 and 400 Gbit/s Direct Connect ports cost $0.225,
    $0.225 and $0.2125 per Gbit/s-hour), so more bandwidth is never free and
    a link of any size costs its share. Per-byte egress is not included: a
    private circuit charges by the port.

    References
    ----------
    .. [1] AWS Direct Connect pricing: dedicated 400 Gbps port $85.00/h,
       100 Gbps $22.50/h, 10 Gbps $2.25/h.

    Examples
    --------
    503 Gbit/s for 90 days at the 400G port's rate:

    >>> from drmath.units import Gbit_per_s
    >>> round(link_cost(503 * Gbit_per_s, 90 * 86_400.0, 85.0 / (400 * Gbit_per_s)))
    230877
    """
    require_nonnegative(bandwidth=bandwidth, bandwidth_hour_price=bandwidth_hour_price)
    require_nonnegative_or_inf(duration=duration)
    return _times(bandwidth_hour_price * bandwidth, duration / hour)


@formula(r"p_l = \min_i \lceil B / b_i \rceil\, p_i")
@broadcasting
def link_hour_price(bandwidth):
    r"""Hourly price of a cross-site link of a given line rate, from cited port prices.

    Parameters
    ----------
    bandwidth : float or array_like
        Line rate the link must carry :math:`B`. [B/s]

    Returns
    -------
    link_hour_price : float or ndarray
        Price per hour of the cheapest bundle of identical ports that carries
        :math:`B`. [USD]

    Notes
    -----
    .. formula::

    over the port sizes :math:`b_i` and port-hour prices :math:`p_i` of
    :data:`drmath.presets.LINKS` (10, 100 and 400 Gbit/s; a link below 10 Gbit/s
    pays for one 10G port). A link
    aggregation group bundles ports of one speed [2]_, so a line rate between
    two port sizes pays for whole ports: 150 Gbit/s is fifteen 10G ports
    ($33.75/h), cheaper than two 100G ports ($45/h) or one 400G port ($85/h). The price is a step function that grows
    about in proportion to the bandwidth ($0.225, $0.225 and $0.2125 per
    Gbit/s-hour), so more link is never free. Derived here from [1]_ and [2]_.

    References
    ----------
    .. [1] AWS Direct Connect pricing: dedicated port-hours $2.25 (10 Gbps),
       $22.50 (100 Gbps), $85.00 (400 Gbps).
    .. [2] AWS Direct Connect User Guide, "Link aggregation groups": "All
       connections in the LAG must use the same bandwidth."

    Examples
    --------
    >>> from drmath.units import Gbit_per_s
    >>> link_hour_price(100 * Gbit_per_s), link_hour_price(150 * Gbit_per_s), link_hour_price(400 * Gbit_per_s)
    (22.5, 33.75, 85.0)
    """
    require_nonnegative(bandwidth=bandwidth)
    ports = np.ceil(np.asarray(bandwidth)[..., None] / _PORT_BANDWIDTHS)
    return np.min(ports * _PORT_HOUR_PRICES, axis=-1)


@formula(r"C_{goodput} = F\,(1 - \mathrm{ETTR})\,T")
@broadcasting
def goodput_lost_cost(fleet_cost_rate, ettr, duration):
    r"""What the fleet's time not spent making progress costs over the run.

    Parameters
    ----------
    fleet_cost_rate : float or array_like
        Cost of the primary fleet per second :math:`F`. [USD/s]
    ettr : float or array_like
        Effective training time ratio, the share of wall-clock time that makes
        progress :math:`\mathrm{ETTR}`. [1]
    duration : float or array_like
        Wall-clock time of the run :math:`T`; may be ``inf``. [s]

    Returns
    -------
    goodput_lost_cost : float or ndarray
        :math:`F\,(1 - \mathrm{ETTR})\,T`. [USD]

    Notes
    -----
    .. formula::

    The fleet is paid for the whole run, but only the ETTR share of it trains:
    the rest goes to checkpoint stalls, rework after failures and restarts.
    Checkpoint and replication cadence move this cost as well as the RPO, so a
    design that meets an RPO by starving goodput is priced for it. For a
    token-driven run it equals the run cost above its compute time. Derived
    here from the definition of ETTR (Kokolis et al. 2024).

    References
    ----------
    .. [1] A. Kokolis et al., "Revisiting Reliability in Large-Scale Machine
       Learning Research Clusters," arXiv:2410.21680, 2024 (ETTR).

    Examples
    --------
    8,000 GPUs at $4.92/h for 90 days at 96.5% ETTR:

    >>> round(goodput_lost_cost(8000 * 4.92 / 3600, 0.965, 90 * 86_400.0))
    2975616
    """
    require_nonnegative(fleet_cost_rate=fleet_cost_rate)
    require_unit_interval(ettr=ettr)
    require_nonnegative_or_inf(duration=duration)
    return _times(fleet_cost_rate * (1.0 - ettr), duration)
