r"""Failures, checkpoint cadence and the effective training time ratio.

Interruptions are a Poisson process at rate :math:`G\lambda`, with
:math:`\lambda` per GPU, so the cluster MTBF is :math:`M = 1/(G\lambda)`.
Young's and Daly's intervals trade the checkpoint cost :math:`\delta` against
the work lost per failure; ETTR (Kokolis et al.) is the share of wall-clock
time that makes progress.

References
----------
.. [1] J. W. Young, "A first order approximation to the optimum checkpoint
   interval," Commun. ACM 17(9):530-531, 1974.
.. [2] J. T. Daly, "A higher order estimate of the optimum checkpoint interval
   for restart dumps," Future Gener. Comput. Syst. 22(3):303-312, 2006,
   doi:10.1016/j.future.2004.11.016.
.. [3] A. Kokolis et al., "Revisiting Reliability in Large-Scale Machine
   Learning Research Clusters," HPCA 2025, arXiv:2410.21680.
"""

import numpy as np

from ._validate import broadcasting, require_nonnegative, require_nonnegative_or_inf, require_positive

__all__ = ["cluster_mtbf", "expected_interruptions", "young_interval", "daly_interval", "waste",
           "daly_waste", "ettr"]


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
    .. math:: M = \frac{1}{G \lambda}

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
    .. math:: E[n] = T / M

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
    .. math:: \tau_Y = \sqrt{2 \delta M}

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
    .. math::

       \tau_D = \begin{cases}
         \sqrt{2\delta M}\left[1 + \frac{1}{3}\sqrt{\frac{\delta}{2M}}
           + \frac{1}{9}\frac{\delta}{2M}\right] - \delta, & \delta < 2M \\
         M, & \delta \ge 2M \end{cases}

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
    .. math:: \mathrm{Waste}(\tau) \approx \frac{\delta}{\tau} + \frac{\tau/2 + u_0}{M}

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

    .. math:: T_w = M e^{R/M} \left(e^{(\tau + \delta)/M} - 1\right) \frac{T_s}{\tau}

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


@broadcasting
def ettr(checkpoint_interval, checkpoint_cost, restart_overhead, mtbf):
    r"""Expected effective training time ratio.

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
        Share of wall-clock time making progress, clipped to [0, 1]; 0 means
        failures come faster than progress can be saved. [1]

    Notes
    -----
    .. math:: \mathrm{ETTR} \approx \frac{1 - (u_0 + \tau/2)/M}{1 + \delta/\tau}

    Kokolis et al. write the numerator as :math:`1 - N r_f (u_0 + \Delta
    t_{cp}/2)` with :math:`N r_f = 1/M`. Valid for :math:`u_0, \delta \ll M`.

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
    value = (1.0 - (restart_overhead + checkpoint_interval / 2) / mtbf) / (1.0 + checkpoint_cost / checkpoint_interval)
    return np.clip(value, 0.0, 1.0)
