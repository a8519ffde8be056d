r"""The registry's choices that depend on a plan: which variant of a formula it takes, its substitution, its note.

A quantity of :mod:`drmath.quantities` whose derivation depends on the design (sync or async checkpoints, a
window- or token-driven run, replication keeping up or not, a loss clipped at the run's progress, a tier whose
every site holds the training state) declares its formula, substitution or note as a function of the plan; those
functions live here, so the registry stays one entry per quantity. Each reads the plan's numbers and inputs and
picks among the formula module's own TeX (``tex`` and ``tex_variants``): no formula is written twice. They are
the registry's helpers, not API: :mod:`drmath.quantities` is their one reader.

    >>> import drmath
    >>> rpo_site_formula(drmath.plan(), False) == drmath.recovery.rpo_site_pipeline.tex_variants["every_k"]
    True
"""

import math

from . import recovery
from .presets import DR_TIERS


def window_driven(p):
    return p.run_driver == "window"


def asynchronous(p):
    return p.scenario.checkpoint.mode == "async"


def stall_variant(p):
    """Which blocking time the plan's stall is: measured (given), or the async or sync model."""
    if p.scenario.checkpoint.blocking_time is not None:
        return "measured"
    return "asynchronous" if asynchronous(p) else "synchronous"


def streamed(p):
    return p.scenario.replication.streamed


def tier(p):
    return DR_TIERS[p.scenario.failover.tier]


def variant(func, pick):
    """A formula that is one of ``func``'s named variants, picked by a function of the plan."""
    return lambda p: func.tex_variants[pick(p)]


def phases(field, order):
    return " + ".join(f"<{field}.{name}>" for name in order)


def behind_note(p):
    upload = p.replication_bottleneck == 0
    fix = ("raise the object store's upload rate to at least <object_store_bandwidth_needed> "
           "(replication.object_store_bandwidth)" if upload else
           "raise the link to at least <replication_bandwidth_needed> (replication.link_bandwidth)")
    return ("**Replication does not keep up**: its slowest hop, the <replication_bottleneck>, takes "
            "<replication_cycle> per copy but a new one is due every <replication_interval> "
            "(<replication_utilization> busy), so the backlog grows through the run and the site RPO has no bound. "
            f"To fix it, {fix}, or ship less often: a replication interval of at least <replication_cycle> "
            "(replication.interval), or ship the newest copy only (replication.policy = newest), which skips "
            "stale copies and bounds the RPO.")


def replica_groups(p):
    """The tier recovers a local failure without a restart (fault-tolerant replica groups): how many groups."""
    return tier(p).replica_groups


def own_state(p):
    """The tier keeps the training state at every site: a site loss costs the local RPO."""
    return tier(p).state_at_each_site


def unbounded(p):
    return (not own_state(p) and not p.replication_keeps_up and p.scenario.replication.policy == "every-k")


def whole_run(p, name):
    """The loss reaches the whole run's progress (clipped there) or has no bound."""
    value = getattr(p, name)
    return math.isinf(value) or value >= p.compute_time * (1 - 1e-9)


def clipped(p, name, expected):
    """Whether a loss is clipped at the run's progress (C, or C/2 for an expected one)."""
    value = getattr(p, name)
    return math.isfinite(value) and value >= (p.compute_time / 2 if expected else p.compute_time) * (1 - 1e-9)


def clip(p, name, expected, tex):
    """``tex``, inside ``min(C, ...)`` where the clip at the run's progress binds."""
    return rf"\min({'C/2' if expected else 'C'},\; {tex})" if clipped(p, name, expected) else tex


def rpo_local_formula(p, expected):
    """:func:`drmath.recovery.rpo_local`'s formula, or its clipped variant where the clip at the progress binds."""
    clip_binds = clipped(p, "rpo_local_expected" if expected else "rpo_local", expected)
    name = "_".join(["clipped"] * clip_binds + ["expected"] * expected)
    func = recovery.rpo_local_replica_groups if replica_groups(p) else recovery.rpo_local
    return func.tex_variants[name] if name else func.tex


def rpo_site_formula(p, expected):
    """The variant of :func:`drmath.recovery.rpo_site_pipeline`'s formula this plan's policy takes.

    A tier whose every site holds the training state loses the local RPO instead.
    """
    if own_state(p):
        return (r"E[\mathrm{loss}_{site}] = E[\mathrm{loss}_{local}]" if expected
                else r"\mathrm{RPO}_{site} = \mathrm{RPO}_{local}")
    if p.scenario.replication.policy == "newest":
        name = "newest"
    else:
        name = "every_k_behind" if unbounded(p) else "every_k"
    if clipped(p, "rpo_site_expected" if expected else "rpo_site", expected):  # never an unbounded one
        name += "_clipped"
    return recovery.rpo_site_pipeline.tex_variants[name + ("_expected" if expected else "")]


def rpo_site_substitution(p, expected):
    if own_state(p):
        return "<rpo_local_expected>" if expected else "<rpo_local>"
    if unbounded(p):
        return r"\infty \quad (T = <replication_cycle> > P = <replication_interval>)"
    interval = "<replication_every|g> \\times <checkpoint_interval>" + ("/2" if expected else "")
    text = "<checkpoint_write_time> + <replication_time>"
    if not p.replication_keeps_up:  # newest: a copy may wait at each hop slower than the copies reach it
        text += r" + \text{waits at the busy hops}"
    if expected:  # wall-clock time since the copy's checkpoint started, as progress: r = tau / (tau + delta)
        period = "<checkpoint_interval> + <checkpoint_stall>"
        text = (rf"{interval} + \tfrac{{<checkpoint_interval>}}{{{period}}}\,({text}) - "
                rf"\tfrac{{<checkpoint_stall>}}{{{period}}} \times <checkpoint_interval>/2")
    else:
        text = f"{interval} + {text}"
    cap = "<compute_time>/2" if expected else "<compute_time>"
    return rf"\min({cap},\; {text})" if clipped(p, "rpo_site_expected" if expected else "rpo_site", expected) \
        else text


def rpo_site_note(p):
    if own_state(p):
        return ("Multi-site: each site holds the training state and writes its own checkpoints, so losing one site "
                "costs what a local failure costs, the survivor's own local RPO; cross-site checkpoint copies protect "
                "nothing here, and the replication inputs do not enter the site RPO. Expected <rpo_site_expected>.")
    if unbounded(p):
        return behind_note(p)
    text = ("Worst case: the site is lost just before the next off-site copy lands (a copy enters the pipeline "
            "once durable, W after it starts, copies enter P = k(τ + δ) apart, δ the checkpoint stall, and one is "
            "off-site t_rep later)")
    if not p.replication_keeps_up:
        text += (", after waiting at each hop slower than the copies reach it (b_i = 1: t_i above the gap g_i "
                 "between copies arriving there) for up to that hop's time t_i")
    text += ". Expected <rpo_site_expected>."
    if whole_run(p, "rpo_site"):
        text = ("**The site RPO reaches the run's whole progress** (<compute_time> of training), so it is clipped "
                "there: a site loss late in the run loses everything since the start, and off-site copies protect "
                "nothing. Ship more often (replication.interval) or over a faster link (replication.link_bandwidth). "
                + text)
    return text


def collapsed_note(p):
    return ("**Goodput has collapsed**: restarts are not small against the MTBF, so the run barely progresses "
            "(ETTR <ettr>, at most <ettr_ceiling> at any cadence); the tokens and times derived from it are not a "
            "forecast. Shorten the local recovery (failures.*) or use fewer, more reliable GPUs.")


def interval_note(p):
    if p.scenario.checkpoint.interval is None:
        return "Unset in the scenario, so Daly's optimum is used."
    if p.checkpoint_interval_floored:
        return "Set to <checkpoint.interval>, below the floor, so raised to it."
    return "Set in the scenario (checkpoint.interval)."


def site_rto_note(p):
    chosen = tier(p)
    return (f"Tier: {chosen.label}, readiness <tier.readiness|duration>"
            + ("; replication lands on the standby, so no staging" if chosen.lands_on_standby
               else "; the checkpoint is staged from the object store")
            + ("; failover is automatic" if chosen.automatic else "") + f". {chosen.assumptions}")


def exponential(p):
    """Whether the plan's failures are exponential (``failures.weibull_shape`` 1), so ETTR is the exact form."""
    return p.scenario.failures.weibull_shape == 1.0
