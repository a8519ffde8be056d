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
"""

import numpy as np

_INF = float("inf")

from ._validate import broadcasting, require_number, as_output as _out, scalars, require_nonnegative, require_nonnegative_or_inf, require_unit_interval
from .units import hour, month

__all__ = ["gpu_hours", "run_cost", "standby_cost", "replication_cost", "site_event_probability",
           "expected_disaster_loss", "break_even_delay_cost"]


def _times(price, amount):
    """price × amount, with 0 × inf = 0: a free thing costs nothing however long it is held."""
    if scalars(price, amount):
        return 0.0 if price == 0 else price * amount
    with np.errstate(invalid="ignore"):
        return np.where(np.asarray(price) == 0, 0.0, np.asarray(price) * amount)


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
    .. math:: H = G \, T / (3600\ \mathrm{s/h})

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
    return _out(_times(gpus, duration / np.float64(hour)))


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
    .. math:: C_{run} = p \cdot G \, T / 3600

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
    return _out(_times(gpu_hour_price, gpu_hours(gpus, duration)))


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
    .. math:: C_{standby} = r \cdot p \cdot G_s T / 3600

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
    return _out(_times(reserved_share, run_cost(standby_gpus, duration, gpu_hour_price)))


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
    .. math:: C_{rep} = p_e V + p_s S_r \frac{T}{\text{month}} + p_l \frac{T}{3600}

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
    return _out(_times(egress_price, shipped) + _times(storage_month_price * retained, duration / month)
                + _times(link_hour_price, duration / hour))


@broadcasting
def site_event_probability(site_event_rate, duration):
    r"""Probability of at least one site event during the run.

    Parameters
    ----------
    site_event_rate : float or array_like
        Site-loss events per second :math:`\lambda_s`. [1/s]
    duration : float or array_like
        Wall-clock time of the run :math:`T`. [s]

    Returns
    -------
    site_event_probability : float or ndarray
        :math:`1 - e^{-\lambda_s T}`. [1]

    Notes
    -----
    .. math:: P = 1 - e^{-\lambda_s T}

    References
    ----------
    .. [1] Uptime Institute, Annual Outage Analysis 2022.

    Examples
    --------
    >>> round(site_event_probability(0.0667 / (365 * 86_400.0), 90 * 86_400.0), 4)
    0.0163
    """
    require_nonnegative(site_event_rate=site_event_rate)
    require_nonnegative_or_inf(duration=duration)
    return _out(-np.expm1(-_times(site_event_rate, duration)))


@broadcasting
def expected_disaster_loss(probability, lost_time, fleet_cost_rate, delay_cost):
    r"""Expected cost of a site disaster during the run.

    Parameters
    ----------
    probability : float or array_like
        Probability of a site event in the run :math:`P`. [1]
    lost_time : float or array_like
        Site RPO + site RTO + schedule slip :math:`L`; may be ``inf``. [s]
    fleet_cost_rate : float or array_like
        What the fleet costs per second :math:`F`. [USD/s]
    delay_cost : float or array_like
        Business value lost per second of finishing late :math:`D`. [USD/s]

    Returns
    -------
    expected_disaster_loss : float or ndarray
        :math:`P L (F + D)`; ``inf`` where :math:`L` is unbounded and
        :math:`P > 0`. [USD]

    Notes
    -----
    .. math:: E[C_{loss}] = P \cdot L \cdot (F + D)

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
    if scalars(probability, lost_time, fleet_cost_rate, delay_cost):
        rate = probability * (fleet_cost_rate + delay_cost)
        return rate * lost_time if rate > 0 else 0.0
    lost = np.asarray(lost_time, dtype=float)
    rate = np.asarray(probability) * (np.asarray(fleet_cost_rate) + delay_cost)
    # 0 * inf is 0 here: no chance of an event costs nothing, however long it would last
    with np.errstate(invalid="ignore"):
        return _out(np.where(rate > 0, rate * lost, 0.0))


@broadcasting
def break_even_delay_cost(extra_cost, saved_time, probability, fleet_cost_rate):
    r"""Cost of delay above which a tier pays for itself against a cheaper one.

    Parameters
    ----------
    extra_cost : float or array_like
        What the tier costs more than the baseline (standby + replication);
        negative when it is cheaper :math:`\Delta C`. [USD]
    saved_time : float or array_like
        How much shorter its lost time (RPO + RTO + slip) is; negative when
        longer, ``inf`` when the baseline's is unbounded :math:`\Delta L`. [s]
    probability : float or array_like
        Probability of a site event in the run :math:`P`. [1]
    fleet_cost_rate : float or array_like
        What the fleet costs per second :math:`F`. [USD/s]

    Returns
    -------
    break_even_delay_cost : float or ndarray
        :math:`D^*`, 0 if the tier pays for itself at any cost of delay, ``inf``
        if it never does. [USD/s]

    Notes
    -----
    Equal expected totals :math:`\Delta C = P\,\Delta L\,(F + D^*)` give

    .. math:: D^* = \max\left(0, \frac{\Delta C}{P \, \Delta L} - F\right)

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
    if scalars(extra_cost, saved_time, probability, fleet_cost_rate):
        if extra_cost <= 0:
            return 0.0
        if not (saved_time > 0 and probability > 0):
            return _INF
        return max(0.0, extra_cost / (probability * saved_time) - fleet_cost_rate)
    extra = np.asarray(extra_cost, dtype=float)
    saved = np.asarray(saved_time, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = np.maximum(0.0, extra / (np.asarray(probability) * saved) - fleet_cost_rate)
    value = np.where(extra <= 0, 0.0, np.where((saved > 0) & (np.asarray(probability) > 0), value, np.inf))
    return _out(value)
