r"""Failures, checkpoint cadence and the effective training time ratio.

Interruptions are a Poisson process at rate :math:`G\lambda`, with
:math:`\lambda` per GPU, so the cluster MTBF is :math:`M = 1/(G\lambda)`.
Young's and Daly's intervals trade the checkpoint cost :math:`\delta` against
the work lost per failure. ETTR is the share of wall-clock time that makes
progress: :func:`ettr_exact` is its exact expectation for exponential failures
(the headline), :func:`ettr` the first-order form of Kokolis et al., kept as a
named approximation. The published helpers (an availability-optimal interval,
an interval for an overhead budget, an MTBF from a count, Llama 3's Table 5,
availability against downtime) sit beside them.

References
----------
.. [1] J. W. Young, "A first order approximation to the optimum checkpoint
   interval," Commun. ACM 17(9):530-531, 1974.
.. [2] J. T. Daly, "A higher order estimate of the optimum checkpoint interval
   for restart dumps," Future Gener. Comput. Syst. 22(3):303-312, 2006,
   doi:10.1016/j.future.2004.11.016.
.. [3] A. Kokolis et al., "Revisiting Reliability in Large-Scale Machine
   Learning Research Clusters," HPCA 2025, arXiv:2410.21680.
.. [4] N. R. Saxena, S. Hukerikar, M. Blaz, S. Raj, "Optimal Checkpoint
   Interval with Availability as an Objective Function," arXiv:2410.18124,
   2024.
.. [5] Llama Team, AI @ Meta, "The Llama 3 Herd of Models,"
   arXiv:2407.21783, 2024, Sec. 3.3.4 and Table 5.
"""

from types import MappingProxyType

import numpy as np

from ._formula import formula
from ._validate import (
    _checker,
    as_output,
    broadcasting,
    require_fraction,
    require_nonnegative,
    require_nonnegative_or_inf,
    require_positive,
    require_unit_interval,
    short_repr,
)
from .units import year

__all__ = ["cluster_mtbf", "expected_interruptions", "young_interval", "daly_interval", "waste",
           "daly_waste", "ettr", "ettr_exact", "ettr_weibull", "ettr_ceiling", "goodput_collapsed",
           "replica_group_goodput", "committed_step_fraction", "participating_fraction", "ettr_replica_groups",
           "availability_interval", "overhead_budget_interval", "mtbf_from_count", "interruption_shares",
           "downtime_from_availability", "availability_from_downtime", "LLAMA3_TABLE5", "LLAMA3_CATEGORY_COUNTS",
           "COLLAPSED_ETTR", "WEIBULL_TERMS"]

COLLAPSED_ETTR = float(np.exp(-1.0))
"""ETTR below which goodput counts as collapsed (:func:`goodput_collapsed`): :math:`1/e \approx 0.368`,
the most any cadence can keep once the restart takes as long as the MTBF (:func:`ettr_ceiling`). [1]"""


@formula(r"M = \frac{1}{G\,\lambda}")
@broadcasting
def cluster_mtbf(gpus, gpu_failure_rate):
    r"""Mean time between interruptions of a job spanning the cluster.

    Parameters
    ----------
    gpus : float or array_like
        GPUs in the job :math:`G`. [1]
    gpu_failure_rate : float or array_like
        Interruptions per GPU per second :math:`\lambda`. [1/s]

    Returns
    -------
    cluster_mtbf : float or ndarray
        :math:`M`. [s]

    Notes
    -----
    .. formula::

    Calibrated at >= 4K GPUs; Kokolis et al. measured 7.9 h at 1,024 GPUs where
    this law gives 28.8 h, so small jobs fail more often than it predicts.

    References
    ----------
    .. [1] Kokolis et al., HPCA 2025, arXiv:2410.21680: MTTF = (N_nodes r_f)^-1.

    Examples
    --------
    Llama 3: 419 unexpected interruptions in 54 days on 16,384 GPUs.

    >>> from drmath.units import day, hour
    >>> round(cluster_mtbf(16_384, 419 / (16_384 * 54 * day)) / hour, 2)
    3.09
    """
    require_positive(gpus=gpus, gpu_failure_rate=gpu_failure_rate)
    return 1.0 / (gpus * gpu_failure_rate)


@formula(r"E[n] = T / M")
@broadcasting
def expected_interruptions(duration, mtbf):
    r"""Expected interruptions over a run.

    Parameters
    ----------
    duration : float or array_like
        Wall-clock time :math:`T`. [s]
    mtbf : float or array_like
        Cluster MTBF :math:`M`. [s]

    Returns
    -------
    expected_interruptions : float or ndarray
        :math:`T / M = G\lambda T`. [1]

    Notes
    -----
    .. formula::

    References
    ----------
    .. [1] Kokolis et al., HPCA 2025, arXiv:2410.21680.

    Examples
    --------
    >>> from drmath.units import day, hour
    >>> round(expected_interruptions(90 * day, 6.33 * hour))
    341
    """
    require_nonnegative_or_inf(duration=duration)
    require_positive(mtbf=mtbf)
    return duration / mtbf


@formula(r"\tau_Y = \sqrt{2\,\delta\,M}")
@broadcasting
def young_interval(checkpoint_cost, mtbf):
    r"""Young's first-order optimum checkpoint interval.

    Parameters
    ----------
    checkpoint_cost : float or array_like
        Blocking time per checkpoint :math:`\delta`. [s]
    mtbf : float or array_like
        Cluster MTBF :math:`M`. [s]

    Returns
    -------
    young_interval : float or ndarray
        :math:`\tau_Y`. [s]

    Notes
    -----
    .. formula::

    It minimises the first-order :func:`waste` exactly. Assumes Poisson
    failures and :math:`\delta \ll M`.

    References
    ----------
    .. [1] Young, Commun. ACM 17(9), 1974.

    Examples
    --------
    >>> round(young_interval(300.0, 86_400.0) / 60, 9)
    120.0
    """
    require_positive(checkpoint_cost=checkpoint_cost, mtbf=mtbf)
    # sqrt(2δ)·sqrt(M), not sqrt(2δM): the product of two tiny inputs would underflow to 0
    return np.sqrt(2.0 * checkpoint_cost) * np.sqrt(mtbf)


@formula(r"\tau_D = \sqrt{2\delta M}\left[1 + \tfrac{1}{3}\sqrt{\tfrac{\delta}{2M}} + "
          r"\tfrac{1}{9}\tfrac{\delta}{2M}\right] - \delta")
@broadcasting
def daly_interval(checkpoint_cost, mtbf):
    r"""Daly's higher-order optimum checkpoint interval (2006, eq. 37).

    Parameters
    ----------
    checkpoint_cost : float or array_like
        Blocking time per checkpoint :math:`\delta`. [s]
    mtbf : float or array_like
        Cluster MTBF :math:`M`. [s]

    Returns
    -------
    daly_interval : float or ndarray
        :math:`\tau_D`, compute time between checkpoints. [s]

    Notes
    -----
    .. formula::

    where :math:`\delta < 2M`, and :math:`\tau_D = M` where :math:`\delta \ge 2M`.
    It does not depend on the restart time.

    References
    ----------
    .. [1] Daly, Future Gener. Comput. Syst. 22(3), 2006, eq. (37); as
       implemented in LLNL SCR ``scr_ckpt_interval.py``.

    Examples
    --------
    Daly's Fig. 3 (delta = 5 min, M = 24 h) gives 117 min:

    >>> round(daly_interval(300.0, 86_400.0) / 60, 1)
    116.7
    """
    require_positive(checkpoint_cost=checkpoint_cost, mtbf=mtbf)
    delta, m = checkpoint_cost, mtbf
    x = delta / (2.0 * m)
    tau = np.sqrt(2.0 * delta) * np.sqrt(m) * (1.0 + np.sqrt(x) / 3.0 + x / 9.0) - delta
    return np.where(delta < 2.0 * m, tau, m)


@formula(r"\mathrm{Waste}(\tau) \approx \frac{\delta}{\tau} + \frac{\tau/2 + u_0}{M}")
@broadcasting
def waste(checkpoint_interval, checkpoint_cost, restart_overhead, mtbf):
    r"""First-order expected waste: the share of time not making progress.

    Parameters
    ----------
    checkpoint_interval : float or array_like
        Compute time between checkpoints :math:`\tau`. [s]
    checkpoint_cost : float or array_like
        Blocking time per checkpoint :math:`\delta`. [s]
    restart_overhead : float or array_like
        Time from an interruption to training again, checkpoint load
        included :math:`u_0`. [s]
    mtbf : float or array_like
        Cluster MTBF :math:`M`. [s]

    Returns
    -------
    waste : float or ndarray
        Share of wall-clock time lost. [1]

    Notes
    -----
    .. formula::

    Valid while the waste is much less than 1; :func:`young_interval`
    minimises it.

    References
    ----------
    .. [1] T. Hérault and Y. Robert, *Fault-Tolerance Techniques for
       High-Performance Computing*, Springer, 2015.

    Examples
    --------
    >>> round(waste(600.0, 10.0, 600.0, 22_800.0), 4)
    0.0561
    """
    require_positive(checkpoint_interval=checkpoint_interval, checkpoint_cost=checkpoint_cost,
                     mtbf=mtbf)
    require_nonnegative(restart_overhead=restart_overhead)
    return checkpoint_cost / checkpoint_interval + (checkpoint_interval / 2 + restart_overhead) / mtbf


@formula(r"T_w = M e^{R/M} \left(e^{(\tau + \delta)/M} - 1\right) \frac{T_s}{\tau}")
@broadcasting
def daly_waste(checkpoint_interval, checkpoint_cost, restart_overhead, mtbf):
    r"""Daly's complete-model waste, the share of wall-clock time lost.

    Parameters
    ----------
    checkpoint_interval : float or array_like
        Compute time between checkpoints :math:`\tau`. [s]
    checkpoint_cost : float or array_like
        Blocking time per checkpoint :math:`\delta`. [s]
    restart_overhead : float or array_like
        Restart time :math:`R`. [s]
    mtbf : float or array_like
        Cluster MTBF :math:`M`. [s]

    Returns
    -------
    daly_waste : float or ndarray
        :math:`1 - T_s / T_w`. [1]

    Notes
    -----
    Daly's expected wall-clock time for :math:`T_s` of work is

    .. formula::

    so the waste :math:`1 - T_s/T_w` does not depend on :math:`T_s`. It allows
    failures during checkpoints and restarts; :func:`daly_interval`
    approximates its minimum.

    References
    ----------
    .. [1] Daly, Future Gener. Comput. Syst. 22(3), 2006, Sec. 4.

    Examples
    --------
    >>> round(daly_waste(7_000.0, 300.0, 600.0, 86_400.0), 4)
    0.0874
    """
    require_positive(checkpoint_interval=checkpoint_interval, checkpoint_cost=checkpoint_cost,
                     mtbf=mtbf)
    require_nonnegative(restart_overhead=restart_overhead)
    # a huge exponent overflows to inf, and the ratio to 0: waste -> 1, as it should
    ratio = checkpoint_interval / (mtbf * np.exp(restart_overhead / mtbf)
                                   * np.expm1((checkpoint_interval + checkpoint_cost) / mtbf))
    return 1.0 - ratio


@formula(r"\mathrm{ETTR}_1 = \frac{1 - (u_0 + \tau/2)/M}{1 + \delta/\tau}")
@broadcasting
def ettr(checkpoint_interval, checkpoint_cost, restart_overhead, mtbf):
    r"""First-order ETTR of Kokolis et al.: a named approximation of :func:`ettr_exact`.

    Parameters
    ----------
    checkpoint_interval : float or array_like
        Time between checkpoints :math:`\tau`. [s]
    checkpoint_cost : float or array_like
        Blocking time per checkpoint :math:`\delta`; 0 for non-blocking. [s]
    restart_overhead : float or array_like
        Restart and initialisation overhead, checkpoint load included
        :math:`u_0`. [s]
    mtbf : float or array_like
        Cluster MTBF :math:`M`. [s]

    Returns
    -------
    ettr : float or ndarray
        Share of wall-clock time making progress, clipped to [0, 1]; 0 where
        :math:`u_0 + \tau/2 \ge M`, though the run still progresses there. [1]

    Notes
    -----
    .. formula::

    Kokolis et al. write the numerator as :math:`1 - N r_f (u_0 + \Delta
    t_{cp}/2)` with :math:`N r_f = 1/M`. It is the first-order expansion in
    :math:`1/M` of :func:`ettr_exact` without the persist time, and it drifts
    from the exact expectation in two ways:

    - it leaves the persist time :math:`W` out of the rework: a checkpoint is
      not durable until :math:`W` after it starts, so the exact form loses
      :math:`W - \delta/2` more per interruption (optimistic by about
      :math:`W/M`: 0.959 against 0.937 at a 567 s persist and a 6.3 h MTBF);
    - its loss term :math:`(u_0 + \tau/2)/M` is linear: it charges every
      interruption a full restart and half an interval, though the next
      interruption often cuts both short, so it turns pessimistic once
      :math:`u_0` or :math:`\tau` is not small against :math:`M` (0.426
      against 0.561 at 100,000 GPUs on RSC-1, a 10 min restart against an
      18 min MTBF) and reaches 0 while the run still makes progress.

    Use it for teaching and for :math:`u_0, \tau, W \ll M`.

    References
    ----------
    .. [1] Kokolis et al., HPCA 2025, arXiv:2410.21680, E[ETTR].

    Examples
    --------
    Kokolis's hypothetical 16,000-GPU job on RSC-1 (1.8 h MTBF, u0 = 5 min,
    non-blocking writes) gives about 0.7 at 60-min checkpoints:

    >>> round(ettr(3600.0, 0.0, 300.0, 24 * 3600 / (2000 * 6.5e-3)), 3)
    0.684
    """
    require_positive(checkpoint_interval=checkpoint_interval, mtbf=mtbf)
    require_nonnegative(checkpoint_cost=checkpoint_cost, restart_overhead=restart_overhead)
    progress = np.clip(1.0 - (restart_overhead + checkpoint_interval / 2) / mtbf, 0.0, 1.0)  # before the /: -inf/inf
    return np.clip(progress / (1.0 + checkpoint_cost / checkpoint_interval), 0.0, 1.0)


@formula(r"\mathrm{ETTR} = \frac{\tau\, e^{-(u_0 + W - \delta)/M}}{M\left(e^{(\tau + \delta)/M} - 1\right)}",
          rework=r"E[R] = \tau \sum_{j \ge 1} e^{-(jc - \delta + W)/M} = \frac{\tau\, e^{(\delta - W)/M}}{e^{c/M} - 1}",
          small=r"\mathrm{ETTR} \approx \frac{\tau}{\tau + \delta}\left(1 - "
                r"\frac{u_0 + \tau/2 + W - \delta/2}{M}\right)")
@broadcasting
def ettr_exact(checkpoint_interval, checkpoint_cost, write_time, restart_overhead, mtbf):
    r"""Exact expected ETTR for exponential failures, persist time and failed restarts included.

    Parameters
    ----------
    checkpoint_interval : float or array_like
        Compute time between checkpoints :math:`\tau`. [s]
    checkpoint_cost : float or array_like
        Blocking time per checkpoint (the stall) :math:`\delta`. [s]
    write_time : float or array_like
        Persist time :math:`W`: a checkpoint taken at the start of its stall
        is durable :math:`W` later (:math:`W = \delta` when synchronous). [s]
    restart_overhead : float or array_like
        Time from an interruption to training again, checkpoint load included
        (the local RTO) :math:`u_0`. [s]
    mtbf : float or array_like
        Cluster MTBF :math:`M`. [s]

    Returns
    -------
    ettr_exact : float or ndarray
        Long-run share of wall-clock time that makes kept progress, in (0, 1]:
        positive and smooth everywhere, also where :math:`u_0 \ge M`
        (it underflows to 0 only below about 1e-308). [1]

    Notes
    -----
    A renewal-reward argument, on the model of :func:`drmath.simulate_run`.
    A cycle runs from one start of training to the next. Training lasts
    :math:`X \sim \mathrm{Exp}(M)` until the next interruption (memoryless,
    whatever happened before). Checkpoint :math:`j \ge 1` of the cycle starts
    at :math:`j\tau + (j-1)\delta` and is durable at :math:`jc - \delta + W`,
    with :math:`c = \tau + \delta`, so the kept progress is
    :math:`\tau \cdot \#\{j : X \ge jc - \delta + W\}`, of mean

    .. formula:: rework

    A restart of :math:`u_0` is hit by an interruption with probability
    :math:`1 - e^{-u_0/M}` and then begins again, so getting back to training
    takes :math:`M(e^{u_0/M} - 1)` on average, and a cycle lasts
    :math:`E[L] = M + M(e^{u_0/M} - 1) = M e^{u_0/M}`. The renewal-reward
    theorem gives ETTR :math:`= E[R]/E[L]`:

    .. formula::

    With :math:`W = \delta` (synchronous) this is Daly's complete model,
    :math:`1 -` :func:`daly_waste`. Its expansion for :math:`\tau, u_0, W \ll M`,

    .. formula:: small

    is :func:`ettr` with the persist time added to the rework. It is the
    long-run ratio: a finite run of length :math:`T` also saves its first
    restart and needs no durable checkpoint for its last stretch, so its
    own ETTR reads higher by a share of order :math:`(M e^{u_0/M} + \tau)/T`.
    Exponential failures are assumed; other laws (the simulator's Weibull
    gaps) give other values. Computed as :math:`(\tau/c)\, g(c/M)\, e^{-(u_0 + W + \tau)/M}`
    with :math:`g(x) = x/(1 - e^{-x})`, so it neither overflows nor loses
    precision at either end.

    References
    ----------
    .. [1] Derived here (renewal-reward, as above); it reduces to Daly's
       complete model for :math:`W = \delta`: J. T. Daly, Future Gener.
       Comput. Syst. 22(3), 2006, Sec. 4.
    .. [2] S. M. Ross, *Stochastic Processes*, 2nd ed., Wiley, 1996,
       Thm. 3.6.1 (renewal-reward).

    Examples
    --------
    100,000 H100 at RSC-1's rate (18 min MTBF, 10 min restart, 13 s interval,
    0.8 s persist): the first-order form says 0.426, the simulator 0.561.

    >>> round(ettr_exact(13.29, 0.0838, 0.81, 600.81, 1063.4), 3)
    0.561
    >>> round(ettr(13.29, 0.0838, 600.81, 1063.4), 3)
    0.426
    """
    require_positive(checkpoint_interval=checkpoint_interval, mtbf=mtbf)
    require_nonnegative(checkpoint_cost=checkpoint_cost, write_time=write_time,
                        restart_overhead=restart_overhead)
    tau, m = checkpoint_interval, mtbf
    cycle = tau + checkpoint_cost
    x = cycle / m
    # g(x) = x / (1 - e^-x): 1 at x = 0 (also where x underflows), about x for large x
    safe = np.where(x > 0, x, 1.0)
    g = np.where(x > 0, safe / -np.expm1(-safe), 1.0)
    # e^-(u0 + W + τ)/M; the sum of three inputs <= 3e30 stays finite
    exponent = (restart_overhead + write_time + tau) / m
    decay = np.exp(-exponent)
    direct = (tau / cycle) * np.where(decay > 0, g, 0.0) * decay
    # where decay underflows, in logs: log g = log c - log M - log(1 - e^-x) for large x (x itself may be inf)
    with np.errstate(divide="ignore"):
        log_g = np.where(x > 1.0, np.log(cycle) - np.log(m) - np.log1p(-np.exp(-np.maximum(x, 1.0))),
                         np.log(np.where(x > 1.0, 1.0, g)))
        log_value = np.log(tau / cycle) + log_g - exponent
    value = np.where(decay > 0, direct, np.exp(log_value))
    return np.minimum(value, 1.0)


WEIBULL_TERMS = 24
"""Checkpoints after each restart that :func:`ettr_weibull` sums one by one before its tail integral. [1]"""

WEIBULL_SHAPES = (0.1, 10.0)
"""The Weibull shapes :func:`ettr_weibull` takes [1]: HPC fleets fit 0.5-1 (Schroeder and Gibson), and outside
this range the scale :math:`M / \\Gamma(1 + 1/k)` under- or overflows."""

_require_shape = _checker("require_shape", "Every value must be a Weibull shape in WEIBULL_SHAPES.",
                          lambda a: (a >= WEIBULL_SHAPES[0]) & (a <= WEIBULL_SHAPES[1]),
                          f"in [{WEIBULL_SHAPES[0]}, {WEIBULL_SHAPES[1]:g}]")


@formula(r"\mathrm{ETTR} = \frac{\tau}{M} \sum_{j \ge 1} S(u_0 + W - \delta + j c), \quad "
         r"S(t) = e^{-(t/\lambda)^k}, \quad \lambda = \frac{M}{\Gamma(1 + 1/k)}",
         tail=r"\sum_{j > J} S(a + jc) \approx \frac{1}{c} \int_{t_J}^{\infty} S(t)\,dt - \frac{c}{24} h(t_J) S(t_J) "
              r"= \frac{M}{c}\, Q\!\left(\tfrac1k, (t_J/\lambda)^{k}\right) - \frac{c}{24} h(t_J) S(t_J), \quad "
              r"t_J = a + (J + \tfrac12)c, \ h(t) = \frac{k}{\lambda}\left(\frac{t}{\lambda}\right)^{k-1}")
@broadcasting
def ettr_weibull(checkpoint_interval, checkpoint_cost, write_time, restart_overhead, mtbf, shape):
    r"""Expected ETTR when the times between interruptions are Weibull: a renewal model, exact at shape 1.

    Parameters
    ----------
    checkpoint_interval : float or array_like
        Compute time between checkpoints :math:`\tau`. [s]
    checkpoint_cost : float or array_like
        Blocking time per checkpoint (the stall) :math:`\delta`. [s]
    write_time : float or array_like
        Persist time :math:`W`: a checkpoint is durable :math:`W` after its stall starts. [s]
    restart_overhead : float or array_like
        Time from an interruption to training again (the local RTO) :math:`u_0`. [s]
    mtbf : float or array_like
        Mean time between interruptions :math:`M`, the Weibull's mean. [s]
    shape : float or array_like
        Weibull shape :math:`k` of the times between interruptions, in :data:`WEIBULL_SHAPES` (0.1 to 10);
        below 1 the hazard falls after each failure, and failures cluster. [1]

    Returns
    -------
    ettr_weibull : float or ndarray
        Long-run share of wall-clock time that makes kept progress, in [0, 1]. [1]

    Notes
    -----
    A renewal-reward argument on the model of :func:`drmath.simulate_run` with ``failure_shape`` :math:`k`:
    each interruption starts a new gap :math:`G` of survival :math:`S(t) = P(G > t)`, Weibull of mean
    :math:`M`. The restart takes the first :math:`u_0` of the gap (a gap shorter than :math:`u_0` is lost
    whole, and the next gap begins again), then training alternates :math:`\tau` of compute and a stall
    :math:`\delta`; checkpoint :math:`j` (cycle :math:`c = \tau + \delta`) is durable at
    :math:`u_0 + jc - \delta + W` into the gap, and an interruption keeps the durable checkpoints. So the
    kept progress per gap is :math:`\tau \cdot \#\{j : G \ge u_0 + jc - \delta + W\}`, a gap lasts :math:`M`
    on average, and ETTR is their ratio:

    .. formula::

    The first :data:`WEIBULL_TERMS` terms (:math:`J`) are summed; the rest, with :math:`a = u_0 + W - \delta`,
    by the midpoint rule with its Euler-Maclaurin correction (:math:`h` is the hazard), as an integral of the
    survival function, whose closed form is the regularised upper incomplete gamma function :math:`Q`
    (:func:`scipy.special.gammaincc`):

    .. formula:: tail

    At :math:`k = 1` the sum is geometric and the result is :func:`ettr_exact` (to rounding);
    :func:`drmath.plan` uses :func:`ettr_exact` there and this function where
    ``failures.weibull_shape`` is not 1. It is the long-run ratio, like :func:`ettr_exact`.

    References
    ----------
    .. [1] Derived here (renewal-reward over the gaps between interruptions, as above); the renewal-reward
       theorem: S. M. Ross, *Stochastic Processes*, 2nd ed., Wiley, 1996, Thm. 3.6.1.
    .. [2] B. Schroeder and G. A. Gibson, "A large-scale study of failures in high-performance computing
       systems," IEEE Trans. Dependable Secure Comput. 7(4), 2010 (Weibull shapes 0.7-0.8).

    Examples
    --------
    At shape 1 it is :func:`ettr_exact`. At shape 0.7 failures cluster: more restarts are hit, but the long
    gaps between the clusters keep more work, and with the same mean gap the goodput is higher:

    >>> round(ettr_weibull(13.29, 0.0838, 0.81, 600.81, 1063.4, 1.0), 6) == round(ettr_exact(13.29, 0.0838,
    ...     0.81, 600.81, 1063.4), 6)
    True
    >>> round(ettr_weibull(13.29, 0.0838, 0.81, 600.81, 1063.4, 0.7), 3)
    0.63
    """
    from scipy import special

    require_positive(checkpoint_interval=checkpoint_interval, mtbf=mtbf)
    _require_shape(shape=shape)
    require_nonnegative(checkpoint_cost=checkpoint_cost, write_time=write_time, restart_overhead=restart_overhead)
    tau, delta, m, k = (np.asarray(x, dtype=float) for x in (checkpoint_interval, checkpoint_cost, mtbf, shape))
    c = tau + delta
    scale = m * np.exp(-special.gammaln(1.0 + 1.0 / k))  # λ = M / Γ(1 + 1/k)
    a = restart_overhead + write_time - delta
    j = np.arange(1, WEIBULL_TERMS + 1)
    t = np.maximum(a[..., None] + j * c[..., None], 0.0)
    head = np.exp(-((t / scale[..., None]) ** k[..., None])).sum(axis=-1)
    edge = np.maximum(a + (WEIBULL_TERMS + 0.5) * c, 0.0)
    z = (edge / scale) ** k
    with np.errstate(invalid="ignore"):  # 0 * inf where the edge is 0 and k < 1: the correction is 0 there
        hazard_survival = np.nan_to_num(k / scale * (edge / scale) ** (k - 1.0) * np.exp(-z))
    tail = (m / c) * special.gammaincc(1.0 / k, z) - c / 24.0 * hazard_survival
    total = head + tail
    with np.errstate(over="ignore", invalid="ignore"):  # tau / m overflows where nothing survives: ETTR is 0
        ettr = np.where(total > 0, tau / m * total, 0.0)
    return np.clip(ettr, 0.0, 1.0)


@formula(r"\sup_{\tau > 0,\ W \ge \delta \ge 0} \mathrm{ETTR} = e^{-u_0/M}")
@broadcasting
def ettr_ceiling(restart_overhead, mtbf):
    r"""The most ETTR any checkpoint cadence can reach, given the restart time.

    Parameters
    ----------
    restart_overhead : float or array_like
        Time from an interruption to training again :math:`u_0`. [s]
    mtbf : float or array_like
        Cluster MTBF :math:`M`. [s]

    Returns
    -------
    ettr_ceiling : float or ndarray
        :math:`e^{-u_0/M}`, in (0, 1]. [1]

    Notes
    -----
    .. formula::

    :func:`ettr_exact` is :math:`e^{-u_0/M}` times a factor at most 1 when
    :math:`W \ge \delta` (the loss to checkpoints and rework), which tends
    to 1 for free, instant checkpoints taken ever more often. Once the restart
    is as long as the MTBF, no cadence keeps more than :math:`1/e \approx
    0.37` of the time.

    References
    ----------
    .. [1] Derived here: the limit :math:`\delta = W = 0`, :math:`\tau \to 0`
       of :func:`ettr_exact`.

    Examples
    --------
    A 10 min restart against an 18 min MTBF (100,000 GPUs on RSC-1):

    >>> round(ettr_ceiling(600.81, 1063.4), 3)
    0.568
    """
    require_nonnegative(restart_overhead=restart_overhead)
    require_positive(mtbf=mtbf)
    return np.exp(-(restart_overhead / mtbf))


@formula(r"u_0 \ge M \ \text{or}\ \mathrm{ETTR} < 1/e")
@broadcasting
def goodput_collapsed(ettr, restart_overhead, mtbf):
    r"""Whether goodput has collapsed: the run barely progresses, and a forecast of it means little.

    Parameters
    ----------
    ettr : float or array_like
        Expected ETTR, from :func:`ettr_exact`, in [0, 1]. [1]
    restart_overhead : float or array_like
        Time from an interruption to training again :math:`u_0`. [s]
    mtbf : float or array_like
        Cluster MTBF :math:`M`. [s]

    Returns
    -------
    goodput_collapsed : bool or ndarray
        True where :math:`u_0 \ge M` or :math:`\mathrm{ETTR} < 1/e`. [1]

    Notes
    -----
    .. formula::

    The two conditions say one thing from two sides. With :math:`u_0 \ge M`
    a restart is more likely than not (:math:`1 - e^{-1} = 63\%`) to be cut
    short by the next interruption, and no cadence keeps more than
    :data:`COLLAPSED_ETTR` :math:`= 1/e` of the time (:func:`ettr_ceiling`).
    An ETTR under that share, from any cause (an interval far too long for
    the MTBF, a persist longer than the MTBF), loses more time than such a
    restart would. Either way the fix is the cluster (faster restarts, fewer
    failures, fewer GPUs per job), not the cadence alone, and token counts
    computed there are fragile: a small change in :math:`M` moves them by a
    large factor.

    References
    ----------
    .. [1] Derived here: the threshold is :func:`ettr_ceiling` at
       :math:`u_0 = M`.

    Examples
    --------
    100,000 GPUs at three times RSC-1's rate (a 6 min MTBF against a 10 min
    restart) have collapsed; at RSC-1's rate (18 min) they have not:

    >>> low, high = ettr_exact(7.68, 0.0838, 0.81, 600.81, 357.14), ettr_exact(13.29, 0.0838, 0.81, 600.81, 1063.4)
    >>> round(low, 3), goodput_collapsed(low, 600.81, 357.14)
    (0.182, True)
    >>> round(high, 3), goodput_collapsed(high, 600.81, 1063.4)
    (0.561, False)
    """
    require_unit_interval(ettr=ettr)
    require_nonnegative(restart_overhead=restart_overhead)
    require_positive(mtbf=mtbf)
    return (restart_overhead >= mtbf) | (ettr < COLLAPSED_ETTR)


@formula(r"g = \frac{n_c}{n} \cdot \frac{\bar r}{R}")
@broadcasting
def replica_group_goodput(committed_steps, total_steps, participating_groups, groups):
    r"""Goodput of a fault-tolerant run with replica groups, from what it counted: committed steps times groups.

    Parameters
    ----------
    committed_steps : float or array_like
        Steps that committed :math:`n_c` (a step that a group's failure
        interrupts is dropped, not committed). [1]
    total_steps : float or array_like
        Steps attempted :math:`n`. [1]
    participating_groups : float or array_like
        Mean number of replica groups taking part in a step :math:`\bar r`. [1]
    groups : float or array_like
        Replica groups :math:`R`, each holding a full replica of the model
        state. [1]

    Returns
    -------
    replica_group_goodput : float or ndarray
        Training efficiency :math:`g`, in [0, 1]: the share of the fleet's
        step capacity that became committed progress. [1]

    Notes
    -----
    .. formula::

    A fault-tolerant run (torchft-style: data-parallel replica groups that
    drop out on a failure and rejoin by fetching the state from a healthy
    peer, with no job restart) loses progress two ways: steps that do not
    commit, and groups that sit out while they rejoin. The first factor
    counts the one, the second the other.

    References
    ----------
    .. [1] PyTorch blog on torchft (Meta + Crusoe), Jun 2025: 300 L40S in 30 groups of 10, Llama-3 1B, a failure
       every 60 s: 5,145 of 6,249 steps committed (82.3%), 29.6 of 30 groups
       participating on average: 81.2% training efficiency.

    Examples
    --------
    >>> round(replica_group_goodput(5_145, 6_249, 29.6, 30), 3)
    0.812
    """
    require_nonnegative(committed_steps=committed_steps, participating_groups=participating_groups)
    require_positive(total_steps=total_steps, groups=groups)
    for part, whole, part_name, whole_name in ((committed_steps, total_steps, "committed_steps", "total_steps"),
                                               (participating_groups, groups, "participating_groups", "groups")):
        over = np.asarray(part > whole)
        if over.any():  # the first pair out of range, as numbers, for a number and an array alike
            first = tuple(float(np.broadcast_to(x, over.shape)[over].flat[0]) for x in (part, whole))
            raise ValueError(f"{part_name} must be in [0, {whole_name}], got {first[0]!r} > {first[1]!r}")
    return committed_steps / total_steps * (participating_groups / groups)


@formula(r"f_c = e^{-t_{step}/M}")
@broadcasting
def committed_step_fraction(step_time, mtbf):
    r"""Share of a fault-tolerant run's steps that commit: those no failure interrupts.

    Parameters
    ----------
    step_time : float or array_like
        Time of one optimizer step :math:`t_{step}`. [s]
    mtbf : float or array_like
        Cluster MTBF :math:`M`. [s]

    Returns
    -------
    committed_step_fraction : float or ndarray
        :math:`f_c` in (0, 1]. [1]

    Notes
    -----
    .. formula::

    A failure anywhere in a step stops its all-reduce, so the step is
    dropped and tried again by the groups that remain; with Poisson failures
    a step commits when none lands in it. Two failures in one step cost that
    step once, so periodic failures (as a benchmark injects them) drop one
    step per failure, :math:`1 - t_{step}/M`, a little less than this.

    References
    ----------
    .. [1] torchft blog, Jun 2025: 6,249 steps in 19 h with 1,100 failures,
       5,145 committed (82.3%); one dropped step per injected failure gives
       6,249 - 1,100 = 5,149.
    .. [2] Derived here: the Poisson probability of no failure in a step.

    Examples
    --------
    The torchft run's step (19 h / 6,249 steps) and MTBF (19 h / 1,100):

    >>> round(committed_step_fraction(19 * 3600 / 6_249, 19 * 3600 / 1_100), 3)
    0.839
    """
    require_nonnegative(step_time=step_time)
    require_positive(mtbf=mtbf)
    return np.exp(-(step_time / mtbf))


@formula(r"f_p = \max\left(0,\; 1 - \frac{u}{R\,M}\right)")
@broadcasting
def participating_fraction(rejoin_time, mtbf, groups):
    r"""Mean share of replica groups taking part in a step, while failed ones rejoin.

    Parameters
    ----------
    rejoin_time : float or array_like
        Time a failed group is out, from the failure until it takes part
        again (the local RTO of a fault-tolerant run) :math:`u`. [s]
    mtbf : float or array_like
        Cluster MTBF :math:`M`. [s]
    groups : float or array_like
        Replica groups :math:`R`. [1]

    Returns
    -------
    participating_fraction : float or ndarray
        :math:`\bar r / R` in [0, 1]. [1]

    Notes
    -----
    .. formula::

    Little's law: failures arrive every :math:`M` on average and each keeps
    one group out for :math:`u`, so :math:`u/M` groups are out at a time, of
    :math:`R`. It holds while some group remains; at :math:`u \ge RM` none
    does, and the run stalls (0).

    References
    ----------
    .. [1] J. D. C. Little, "A proof for the queuing formula L = lambda W,"
       Oper. Res. 9(3):383-387, 1961.
    .. [2] torchft blog, Jun 2025: 29.6 of 30 groups participating on average
       with a failure every 60 s, i.e. 0.4 groups out, each for about
       0.4 x 60 = 24 s.

    Examples
    --------
    >>> round(participating_fraction(24.0, 60.0, 30) * 30, 1)
    29.6
    """
    require_nonnegative(rejoin_time=rejoin_time)
    require_positive(mtbf=mtbf, groups=groups)
    out = rejoin_time / np.where(rejoin_time > 0, groups * mtbf, 1.0)  # no rejoin is none out, even at a tiny R M
    return np.maximum(0.0, 1.0 - out)


@formula(r"\mathrm{ETTR}_{ft} = \frac{\tau}{\tau + \delta}\, e^{-t_{step}/M} \max\left(0,\; 1 - \frac{u}{R\,M}\right)")
@broadcasting
def ettr_replica_groups(checkpoint_interval, checkpoint_cost, step_time, rejoin_time, mtbf, groups):
    r"""Expected goodput of a fault-tolerant run: replica groups drop out and rejoin, and nothing restarts.

    Parameters
    ----------
    checkpoint_interval : float or array_like
        Compute time between checkpoints :math:`\tau` (still taken, for a
        site loss). [s]
    checkpoint_cost : float or array_like
        Blocking time per checkpoint :math:`\delta`. [s]
    step_time : float or array_like
        Time of one optimizer step :math:`t_{step}`. [s]
    rejoin_time : float or array_like
        Time a failed group is out :math:`u` (the local RTO). [s]
    mtbf : float or array_like
        Cluster MTBF :math:`M`. [s]
    groups : float or array_like
        Replica groups :math:`R`. [1]

    Returns
    -------
    ettr_replica_groups : float or ndarray
        Share of wall-clock capacity that makes committed progress, in
        [0, 1]. [1]

    Notes
    -----
    .. formula::

    The expected form of :func:`replica_group_goodput`: its committed steps
    are :func:`committed_step_fraction` and its participating groups
    :func:`participating_fraction`, and checkpoint stalls still cost
    :math:`\delta` every :math:`\tau`. Nothing is reworked beyond the dropped
    step: the other groups keep the progress. Assumed: failures hit one group
    at a time at the cluster's rate, the step time does not change while a
    group is out (the survivors take a smaller batch), and a group that
    rejoins takes a healthy group's state.

    References
    ----------
    .. [1] torchft blog, Jun 2025: "training efficiency" as committed steps
       times participating groups.
    .. [2] Derived here, from Little's law and Poisson failures.

    Examples
    --------
    The torchft run (a failure every 60 s, a 10.9 s step, 30 groups, each
    failed group out 24 s) counted 81.2%; Poisson failures at that rate give:

    >>> round(ettr_replica_groups(3600.0, 0.0, 19 * 3600 / 6_249, 24.0, 60.0, 30), 3)
    0.822
    """
    require_positive(checkpoint_interval=checkpoint_interval)
    require_nonnegative(checkpoint_cost=checkpoint_cost)
    return (checkpoint_interval / (checkpoint_interval + checkpoint_cost)
            * committed_step_fraction(step_time, mtbf) * participating_fraction(rejoin_time, mtbf, groups))


@formula(r"\tau_A = \delta + \sqrt{2\,(M + u_0)\,\delta + \delta^2}")
@broadcasting
def availability_interval(checkpoint_cost, recovery_time, mtbf):
    r"""Availability-optimal checkpoint interval of Saxena et al.

    Parameters
    ----------
    checkpoint_cost : float or array_like
        Checkpoint save time :math:`\delta`. [s]
    recovery_time : float or array_like
        Recovery time after a failure :math:`u_0`. [s]
    mtbf : float or array_like
        Mean time to failure :math:`M`. [s]

    Returns
    -------
    availability_interval : float or ndarray
        :math:`\tau_A` that maximises availability. [s]

    Notes
    -----
    .. formula::

    It tends to Young's :math:`\sqrt{2 M \delta}` (:func:`young_interval`)
    when :math:`\delta \ll u_0 \ll M`, and assumes a detection latency much
    shorter than :math:`\tau_A`. Saxena et al. write it
    :math:`T_c = T_s + \sqrt{2 (T_f + T_r) T_s + T_s^2}`.

    References
    ----------
    .. [1] Saxena, Hukerikar, Blaz, Raj, arXiv:2410.18124, 2024, abstract.

    Examples
    --------
    Daly's Fig. 3 inputs (5 min save, 10 min recovery, 24 h MTBF): Young
    gives 120 min.

    >>> round(availability_interval(300.0, 600.0, 86_400.0) / 60, 1)
    125.5
    """
    require_positive(checkpoint_cost=checkpoint_cost, mtbf=mtbf)
    require_nonnegative(recovery_time=recovery_time)
    ts = checkpoint_cost
    # sqrt(2 Ts (Tf + Tr + Ts/2)): one product under the root, factored so tiny inputs do not underflow
    return ts + np.sqrt(2.0 * ts) * np.sqrt(mtbf + recovery_time + ts / 2.0)


@formula(r"\frac{\delta}{\tau} \le b \iff \tau \ge \frac{\delta}{b}")
@broadcasting
def overhead_budget_interval(checkpoint_cost, overhead_budget):
    r"""Shortest checkpoint interval whose checkpoint overhead stays within a budget.

    Parameters
    ----------
    checkpoint_cost : float or array_like
        Blocking time per checkpoint :math:`\delta`. [s]
    overhead_budget : float or array_like
        Largest checkpoint overhead :math:`\delta/\tau` allowed, in (0, 1]. [1]

    Returns
    -------
    overhead_budget_interval : float or ndarray
        :math:`\tau`. [s]

    Notes
    -----
    .. formula::

    The rule torchtitan's checkpointing guide sizes the interval with; it
    ignores failures (compare :func:`young_interval`).

    References
    ----------
    .. [1] TorchTitan DCP post (discuss.pytorch.org, thread 211250): "50 s
       overhead and <= 1% waste -> checkpoint every 5,000 s".

    Examples
    --------
    >>> overhead_budget_interval(50.0, 0.01)
    5000.0
    """
    require_nonnegative(checkpoint_cost=checkpoint_cost)
    require_fraction(overhead_budget=overhead_budget)
    return checkpoint_cost / overhead_budget


@formula(r"\hat M = \frac{T}{n}")
@broadcasting
def mtbf_from_count(duration, interruptions):
    r"""MTBF measured from a count of interruptions over a period.

    Parameters
    ----------
    duration : float or array_like
        Length of the observed period :math:`T`. [s]
    interruptions : float or array_like
        Interruptions counted in it :math:`n`, at least 1. [1]

    Returns
    -------
    mtbf_from_count : float or ndarray
        :math:`M = T / n`. [s]

    Notes
    -----
    .. formula::

    The maximum-likelihood estimate for a Poisson process. Enter it directly
    where the per-GPU law :func:`cluster_mtbf` does not hold, as for small
    jobs (Kokolis et al. measured 7.9 h at 1,024 GPUs, against 28.8 h from
    the law).

    References
    ----------
    .. [1] Llama 3, arXiv:2407.21783, Sec. 3.3.4: "During a 54-day snapshot
       period of pre-training, we experienced a total of 466 job
       interruptions. Of these, 47 were planned".

    Examples
    --------
    Llama 3: 419 unexpected interruptions in 54 days, or 466 with the planned
    ones.

    >>> from drmath.units import day, hour
    >>> round(mtbf_from_count(54 * day, 419) / hour, 2), round(mtbf_from_count(54 * day, 466) / hour, 2)
    (3.09, 2.78)
    """
    require_positive(duration=duration)
    require_nonnegative(interruptions=interruptions)
    bad = np.asarray(interruptions) < 1
    if bad.any():
        first = float(np.asarray(interruptions, dtype=float)[bad].flat[0])
        raise ValueError(f"interruptions must be at least 1 (no interruption measures no MTBF), got {first!r}")
    return duration / interruptions


LLAMA3_TABLE5 = MappingProxyType({
    "GPU": MappingProxyType({"Faulty GPU": 148, "GPU HBM3 Memory": 72, "GPU SRAM Memory": 19,
                             "GPU System Processor": 17, "Silent Data Corruption": 6,
                             "GPU Thermal Interface + Sensor": 6}),
    "Dependency": MappingProxyType({"Software Bug": 54, "Dependency": 2}),
    "Network": MappingProxyType({"Network Switch/Cable": 35}),
    "Unplanned Maintenance": MappingProxyType({"Host Maintenance": 32}),
    "Host": MappingProxyType({"NIC": 7, "SSD": 3, "Power Supply": 3, "Server Chassis": 2, "IO Expansion Board": 2,
                              "CPU": 2, "System Memory": 2}),
    "Unknown": MappingProxyType({"NCCL Watchdog Timeouts": 7}),
})
"""Llama 3 Table 5: the 419 unexpected interruptions of the 54-day snapshot, category -> component -> count [1].

Source: Llama Team, AI @ Meta, "The Llama 3 Herd of Models," arXiv:2407.21783, Sec. 3.3.4, Table 5
(counts as printed [V1]). The printed percentages are not used: "Faulty GPU" is printed 30.1% though
148/419 = 35.3%, and the text's "GPU … 58.7%" sums the printed GPU rows; the counts are authoritative
(:func:`interruption_shares` derives the shares from them)."""

LLAMA3_CATEGORY_COUNTS = MappingProxyType({category: sum(rows.values()) for category, rows in LLAMA3_TABLE5.items()})
"""Llama 3 Table 5 summed by category, derived from :data:`LLAMA3_TABLE5`: GPU 268, Dependency 56, Network 35,
Unplanned Maintenance 32, Host 21, Unknown 7 (419 in all) [1]."""


@formula(r"s_i = \frac{n_i}{\sum_j n_j}")
def interruption_shares(counts):
    r"""Share of interruptions by cause, derived from the counts.

    Parameters
    ----------
    counts : dict of str to float or array_like
        Cause to number of interruptions, each >= 0, not all 0 (e.g.
        :data:`LLAMA3_CATEGORY_COUNTS`). [1]

    Returns
    -------
    interruption_shares : dict of str to float or ndarray
        Cause to :math:`n_i / \sum_j n_j`, in the order given; the shares sum
        to 1. [1]

    Notes
    -----
    .. formula::

    References
    ----------
    .. [1] Llama 3, arXiv:2407.21783, Table 5 (counts; its printed "Faulty
       GPU 30.1%" is 148/419 = 35.3%, and the text's "GPU 58.7%" is 64.0% by
       count).

    Examples
    --------
    >>> shares = interruption_shares(LLAMA3_CATEGORY_COUNTS)
    >>> round(shares["GPU"], 3), round(shares["Host"], 3)
    (0.64, 0.05)
    """
    if not hasattr(counts, "items") or not counts:
        raise ValueError(f"counts must name at least one cause, got {short_repr(counts)}")
    values = {}
    for name, value in counts.items():
        require_nonnegative(**{str(name): value})
        values[name] = np.asarray(value, dtype=float)
    # cause by cause, in order, so a number and an array add up alike
    total = sum(values.values(), np.zeros(()))
    if not np.all(total > 0):
        raise ValueError("counts must not all be 0: no interruption has no shares")
    return {name: as_output(value / total) for name, value in values.items()}


@formula(r"D = (1 - A)\, P")
@broadcasting
def downtime_from_availability(availability, period=year):
    r"""Downtime over a period at a given availability (e.g. the annual downtime of a datacenter tier).

    Parameters
    ----------
    availability : float or array_like
        Share of the period up :math:`A`, in [0, 1]. [1]
    period : float or array_like, default one year (365 days)
        The period :math:`P`. [s]

    Returns
    -------
    downtime_from_availability : float or ndarray
        :math:`(1 - A) P`. [s]

    Notes
    -----
    .. formula::

    :func:`availability_from_downtime` is its inverse.

    References
    ----------
    .. [1] Uptime Institute legacy Tier availability (secondary transcription):
       Tier I 99.671% = 28.8 h per year, Tier IV 99.995% = 26.3 min per year.

    Examples
    --------
    >>> from drmath.units import hour, minute
    >>> round(downtime_from_availability(0.99671) / hour, 1), round(downtime_from_availability(0.99995) / minute, 1)
    (28.8, 26.3)
    """
    require_unit_interval(availability=availability)
    require_positive(period=period)
    return (1.0 - availability) * period


@formula(r"A = 1 - \frac{D}{P}")
@broadcasting
def availability_from_downtime(downtime, period=year):
    r"""Availability from the downtime over a period.

    Parameters
    ----------
    downtime : float or array_like
        Time down in the period :math:`D`, at most :math:`P`. [s]
    period : float or array_like, default one year (365 days)
        The period :math:`P`. [s]

    Returns
    -------
    availability_from_downtime : float or ndarray
        :math:`1 - D/P`, in [0, 1]. [1]

    Notes
    -----
    .. formula::

    The inverse of :func:`downtime_from_availability`.

    References
    ----------
    .. [1] Uptime Institute legacy Tier availability (secondary transcription):
       Tier III 99.982% = 1.6 h per year.

    Examples
    --------
    >>> from drmath.units import hour
    >>> round(availability_from_downtime(1.6 * hour) * 100, 3)
    99.982
    """
    require_nonnegative(downtime=downtime)
    require_positive(period=period)
    over = np.asarray(downtime > period)
    if over.any():
        first, limit = (float(np.broadcast_to(np.asarray(x, dtype=float), over.shape)[over].flat[0])
                        for x in (downtime, period))
        raise ValueError(f"downtime must be at most the period ({limit!r} s), got {first!r}")
    return 1.0 - downtime / period
