r"""The one registry of plan outputs: each quantity declared once.

Every output of :func:`drmath.plan` has one :class:`Quantity` here: its kind
(how it is formatted), unit, title and group, its formula in TeX, and how
:meth:`drmath.Plan.explain` substitutes its inputs. :class:`drmath.Plan`, the
CLI's groups, the report's sections, the dashboard's cards and the comparison
all read this registry, so adding a quantity is one entry here plus its
formula in its module (and the step of :data:`drmath._plan.STEPS` that computes it).
It also holds the model's two contracts: the requirements a design is judged
against (:data:`TARGETS`) and the quantities :func:`drmath.bands` gives a
90% range (:data:`BANDED`). Which quantities stand as headline cards, and what
each card's sub-line says, is the views' layout: :mod:`drmath.viz.headline`.

Substitutions are TeX with placeholders: ``<name>`` is a plan output and
``<section.field>`` an input, each rendered in its own unit; ``<path|kind>``
renders with another kind of :data:`drmath.formatting.KINDS` (``|g`` as a bare
number). Notes are Markdown and take the same placeholders as plain text.
A formula, substitution or note may be a function of the plan, for the
quantities whose derivation depends on a choice (sync or async checkpoints,
a window- or token-driven run, replication keeping up or not).

    >>> QUANTITIES["rpo_site"].title, QUANTITIES["rpo_site"].unit
    ('Site RPO (worst)', '[s]')
    >>> in_group("rpo")
    ['rpo_local', 'rpo_local_expected', 'rpo_site', 'rpo_site_expected']
"""

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from . import _params_text, checkpoint, cost, recovery, reliability, replication, training
from ._moved import forwarder
from ._symbols import (
    _BY_GROUP,
    _GLOSSARY,
    _SYMBOLS_COST,
    _SYMBOLS_ETTR,
    _SYMBOLS_KEEPS_UP,
    _SYMBOLS_LOSS,
    _SYMBOLS_REDUCED,
    _SYMBOLS_RPO,
    _SYMBOLS_RTO,
    _SYMBOLS_RUN,
    where_line,
)
from ._variants import (
    asynchronous,
    behind_note,
    clip,
    collapsed_note,
    exponential,
    interval_note,
    phases,
    replica_groups,
    rpo_local_formula,
    rpo_site_formula,
    rpo_site_note,
    rpo_site_substitution,
    site_rto_note,
    stall_variant,
    streamed,
    tier,
    unbounded,
    variant,
    whole_run,
    window_driven,
)
from .formatting import format_quantity
from .recovery import LOCAL_PHASES, SITE_PHASES

__all__ = ["Quantity", "Group", "Target", "TARGETS", "UNITS", "QUANTITIES", "GROUPS", "SCALARS", "TABLES", "BANDED",
           "COMPARED", "PLAN_FIELDS", "in_group"]

Text = str | Callable | None  # TeX or Markdown, or a function of the plan that returns it

_FT_ETTR = (r"\frac{<checkpoint_interval>}{<checkpoint_interval> + <checkpoint_stall>}\, e^{-<step_time>/<mtbf>}"
            r" \max\left(0,\; 1 - \frac{<restart_overhead>}{<tier.replica_groups|g> \times <mtbf>}\right)")
_FT_ETTR_NOTE = ("Fault-tolerant replica groups (torchft-style): no restart. A failure drops the step in flight "
                 "(a step commits when no failure lands in it) and keeps one group of <tier.replica_groups|g> out "
                 "for the local RTO (Little's law); checkpoint stalls still cost δ every τ. The expected form of "
                 "committed steps x participating groups, the PyTorch blog's training efficiency (Jun 2025: "
                 "5,145/6,249 x 29.6/30 = 81.2%).")

UNITS = {"duration": "[s]", "bytes": "[B]", "bandwidth": "[B/s]", "line_rate": "[B/s]", "flop": "[FLOP]",
         "flop_rate": "[FLOP/s]", "usd": "[USD]", "usd_rate": "[USD/s]", "fraction": "[1]", "count": "[1]",
         "params": "[1]", "rate": "[1/s]", "gpu_hours": "[GPU h]", "flag": "[1]", "plain": "[1]", "hop": "[1]"}
"""The SI unit of each kind of quantity (the kinds of :data:`drmath.formatting.KINDS`)."""


@dataclass(frozen=True)
class Group:
    """A group of quantities: a CLI group and a report section."""

    id: str
    title: str
    lead: str


@dataclass(frozen=True)
class Quantity:
    """One output of :func:`drmath.plan`, declared once."""

    name: str
    kind: str
    title: str
    group: str
    formula: Text  # a formula function (its .tex), TeX where no function computes it, or a function of the plan
    substitution: Text = None  # None: the result alone follows the formula
    note: Text = ""
    short: str | None = None  # title on a card or headline (:func:`drmath.viz.headline.card_title`)
    compare: bool = False  # shown when plans are compared side by side
    table: bool = False  # a value per DR tier rather than one number
    warn: Callable | None = None  # when it returns True for a plan, the note is a warning every view shows
    symbols: dict | None = None  # its own formula symbols in words ({TeX symbol: meaning}), before its group's
    banded: bool = False  # bands() gives it a 90% range over the draws of the uncertain inputs

    def tex(self, plan):
        """The formula's TeX for one plan: the formula function's own string where one computes it.

        >>> from drmath import checkpoint, plan
        >>> QUANTITIES["checkpoint_size"].tex(plan()) is checkpoint.checkpoint_bytes.tex
        True
        """
        formula = self.formula
        if callable(formula) and not hasattr(formula, "tex"):
            formula = formula(plan)
        return formula.tex if hasattr(formula, "tex") else formula

    def where(self, plan):
        """The "where" line of the formula's symbols for one plan: each symbol of :meth:`tex` in words, its own
        meaning (``symbols``) first, then its group's (:data:`_BY_GROUP`), then the glossary's (:data:`_GLOSSARY`).

        >>> from drmath import plan
        >>> QUANTITIES["checkpoint_size"].where(plan())
        'Where $S$ is the checkpoint size; $N$ is the parameters; $b$ is the bytes saved per parameter.'
        """
        return where_line(self.tex(plan), {**_GLOSSARY, **_BY_GROUP.get(self.group, {}), **(self.symbols or {})})

    @property
    def unit(self):
        """The SI unit, e.g. ``"[s]"``."""
        return UNITS[self.kind]


GROUPS = {g.id: g for g in (
    Group("run", "The run",
          "How much compute the run needs, how long it takes on this cluster, and what the GPU-hours cost."),
    Group("checkpoints", "Checkpoints",
          "How big one checkpoint is, how long it takes to persist and to load, and how much the training loop "
          "stalls for it. A checkpoint is not durable until its persist finishes."),
    Group("cadence", "Failures and checkpoint cadence",
          "How often the cluster is interrupted, how often to checkpoint, and the share of wall-clock time that "
          "makes progress (ETTR)."),
    Group("replication", "Replication",
          "How every k-th checkpoint reaches the other site, and whether replication keeps up with the cadence. "
          "If it does not, the backlog grows and the site RPO has no bound."),
    Group("rpo", "Recovery point (RPO)",
          "The progress lost, by failure scope: worst case (the DR convention) and expected value."),
    Group("rto", "Recovery time (RTO)",
          "The time until training resumes, as a sum of named phases; the site failover's standby-readiness phase "
          "is set by the DR tier."),
    Group("cost", "Cost",
          "What each choice costs: the standby, replication, and the expected loss from a site event, priced with "
          "the cost of delay."),
    Group("requirements", "Requirements",
          "The targets the design must meet (requirements.*), each met or not, and by how much: the margin is "
          "the target minus the design's value, positive when met. A target that is not set is not judged."),
)}
"""Every group, in reading order: the CLI's groups and the report's sections (the report numbers them, once, with
its own sections: :data:`drmath.report.REPORT_SECTIONS`)."""


class Target(NamedTuple):
    """One requirement the design must meet: a target input that bounds a plan output from above.

    Its margin is a quantity of its own (``target - value``, positive when met, ``inf`` when no target is set), and
    the plan meets every requirement when every margin is at least zero (``meets_requirements``).

    >>> TARGETS[0].input, TARGETS[0].value, TARGETS[0].margin
    ('requirements.rpo_site', 'rpo_site', 'rpo_site_margin')
    """

    input: str  #: the target input, ``requirements.<field>`` [s]
    value: str  #: the plan output it bounds [s]
    margin: str  #: its margin's quantity: the target minus the value [s]
    label: str  #: its name in words, e.g. ``"Site RPO"``
    symbol: str  #: the bounded value's TeX symbol, in the margin's formula
    levers: str  #: what moves the value, in words: the inputs a missed target's note suggests


TARGETS = (
    Target("requirements.rpo_site", "rpo_site", "rpo_site_margin", "Site RPO", r"\mathrm{RPO}_{site}",
           "ship more often (replication.interval), a faster link (replication.link_bandwidth) or checkpoint more "
           "often"),
    Target("requirements.rto_site", "rto_site", "rto_site_margin", "Site RTO", r"\mathrm{RTO}_{site}",
           "a readier DR tier (failover.tier) or shorter failover phases (failover.*)"),
    Target("requirements.rpo_local", "rpo_local", "rpo_local_margin", "Local RPO", r"\mathrm{RPO}_{local}",
           "checkpoint more often (checkpoint.interval) or persist faster (checkpoint.write_bandwidth)"),
    Target("requirements.rto_local", "rto_local", "rto_local_margin", "Local RTO", r"\mathrm{RTO}_{local}",
           "shorter local recovery phases (failures.*) or faster loads (checkpoint.read_bandwidth)"),
    Target("requirements.max_slip", "schedule_slip", "max_slip_margin", "Schedule slip", r"\Delta T",
           "a readier DR tier (failover.tier), a larger standby (failover.standby_fraction) or a smaller site RPO"),
)
"""The requirements contract: every target the design is judged against (:class:`Target`), in the order the
views list them. The plan derives each margin (:func:`drmath._plan.requirements_step`), :func:`drmath.solve`
searches for the cheapest design that meets them all, and every view reads its labels and levers here."""

_BY_GROUP["requirements"].update({t.symbol + "^{target}": f"the {t.label[0].lower() + t.label[1:]} target ({t.input})"
                                  for t in TARGETS})  # each target's symbol, in the requirements group's "where"


SOLVE_HINT = "`drmath solve` finds the cheapest design that meets every target."
"""The last sentence of a missed target's note: where the reader finds the design that meets every target. A view
with its own way to it says that instead (the dashboard names its button)."""


def _margin_quantity(target):
    path, value, name, label, symbol, levers = target

    def substitution(p):
        return r"\infty \quad \text{(no target set)}" if p.scenario.get(path) is None else f"<{path}> - <{value}>"

    def note(p):
        if p.scenario.get(path) is None:
            return (f"No target set ({path}): there is nothing to judge {label} against, so no margin; "
                    "set the target to have it checked.")
        margin = getattr(p, name)
        if margin >= 0:
            return f"Met: {label} <{value}> is within the target of <{path}>, with <{name}> to spare."
        by = "it has no bound" if math.isinf(margin) else f"by {format_quantity(-margin, 'duration')}"
        return (f"**{label} target missed** {by}: <{value}> against a target of <{path}> ({path}). "
                f"To meet it: {levers}; {SOLVE_HINT}")

    return Quantity(name, "duration", f"{label} margin", "requirements",
                    rf"m = {symbol}^{{target}} - {symbol}", substitution, note,
                    warn=lambda p: getattr(p, name) < 0)


def _meets_note(p):
    missed = [t.label for t in TARGETS if getattr(p, t.margin) < 0]
    if p.goodput_collapsed:
        return ("Not met: goodput has collapsed, so the run makes almost no progress and its clipped losses say "
                "nothing" + (f"; also missed: {', '.join(missed)}." if missed else "."))
    if missed:
        return "Missed: " + ", ".join(missed) + "."
    unset = [t.input for t in TARGETS if p.scenario.get(t.input) is None]
    if len(unset) == len(TARGETS):
        return "No target is set, so there is nothing to judge the design against (requirements.*)."
    return "Every set target is met" + (f"; not set, so not judged: {', '.join(unset)}." if unset else ".")


def _shipped(p):
    """The bytes of one shipped copy in a substitution: the checkpoint over its compression ratio, never over 1."""
    return "<checkpoint_size>" if p.scenario.replication.compression == 1 else \
        r"<checkpoint_size> / <replication.compression|g>"


# --------------------------------------------------------------------------- the quantities

_ALL = (
    # 1. the run
    Quantity("params", "params", "Parameters (total)", "run", _params_text.formula(False),
             _params_text.substitution(False), _params_text.note(False), symbols=_params_text.SYMBOLS),
    Quantity("active_params", "params", "Parameters a token computes with (active)", "run", _params_text.formula(True),
             _params_text.substitution(True), _params_text.note(True), symbols=_params_text.SYMBOLS),
    Quantity("training_flops", "flop", "Training compute", "run", training.training_flops,
             r"<training.flops_per_param_token|g> \times <active_params> \times <tokens>",
             "Kaplan et al. 2020 §2.1 (k = 6; 8 with full recomputation, Narayanan et al. 2021)."),
    Quantity("compute_time", "duration", "Compute time (ETTR = 1)", "run",
             training.time_to_train.tex_variants["compute"],
             r"\frac{<training_flops>}{<training.gpus> \times <training.peak_flop_rate> \times <training.mfu>}",
             "Pure compute, before failures (ETTR = 1)."),
    Quantity("time_to_train", "duration", "Time to train (wall-clock)", "run",
             lambda p: r"T = T_{window}" if window_driven(p) else training.time_to_train,
             lambda p: None if window_driven(p) else
             r"\frac{<training.flops_per_param_token|g> \times <active_params> \times <tokens>}"
             r"{<training.gpus> \times <training.peak_flop_rate> \times <training.mfu> \times <ettr>}",
             lambda p: "The window drives the run; the tokens that fit in it are derived." if window_driven(p)
             else "Narayanan et al. 2021, eq. (4); ETTR turns compute time into wall-clock time.",
             short="Time to train", banded=True, symbols=_SYMBOLS_RUN,
             compare=True),
    Quantity("tokens", "count", "Tokens", "run",
             lambda p: training.tokens_in_window if window_driven(p) else "D",
             lambda p: r"\frac{<time_to_train> \times <training.gpus> \times <training.peak_flop_rate> \times "
             r"<training.mfu> \times <ettr>}{<training.flops_per_param_token|g> \times <active_params>}"
             if window_driven(p) else None,
             lambda p: "Narayanan et al. 2021, eq. (4), solved for D." if window_driven(p)
             else "Set as an input (training.tokens); it drives the run.", compare=True),
    Quantity("step_time", "duration", "Time of one optimizer step", "run",
             training.time_to_train.tex_variants["step"],
             r"\frac{<training.flops_per_param_token|g> \times <active_params> \times <training.batch_tokens>}"
             r"{<training.gpus> \times <training.peak_flop_rate> \times <training.mfu>}",
             "One global batch (training.batch_tokens) per step, at the cluster's sustained rate."),
    Quantity("gpu_hours", "gpu_hours", "GPU-hours", "run", cost.gpu_hours,
             r"<training.gpus> \times <time_to_train|hours>"),
    Quantity("run_cost", "usd", "Run cost", "run", cost.run_cost,
             r"<cost.gpu_hour_price|usd_per_gpu_hour> \times <gpu_hours>",
             "Price: cost.gpu_hour_price."),
    # 2. checkpoints
    Quantity("checkpoint_size", "bytes", "Checkpoint size", "checkpoints", checkpoint.checkpoint_bytes,
             r"<training.params> \times <checkpoint.bytes_per_param|bytes>",
             "b = 14 B/param: bf16 weights + fp32 master, Adam m and v (ZeRO §3.1 accounting).", compare=True),
    Quantity("shard_size", "bytes", "Shard per GPU", "checkpoints", checkpoint.shard_bytes,
             r"<checkpoint_size> / <training.gpus>", "Every GPU writes its own shard (Llama 3: 1 MB to 4 GB per GPU)."),
    Quantity("checkpoint_write_time", "duration", "Checkpoint write (persist) time", "checkpoints",
             checkpoint.checkpoint_write_time,
             r"\frac{<checkpoint_size>}{\min(<checkpoint.write_bandwidth>,\; <training.gpus> \times "
             r"<checkpoint.per_writer_bandwidth>)}",
             lambda p: "Persist (write to storage" + (", behind training" if asynchronous(p) else ", training waits")
             + "). A checkpoint is not durable until this persist ends: it floors the interval and is the write "
             "time W in the RPO."),
    Quantity("checkpoint_staging_time", "duration", "Checkpoint staging to host", "checkpoints",
             checkpoint.checkpoint_staging_time, r"<shard_size> / <checkpoint.host_copy_bandwidth>",
             "Blocking (staging to host): each GPU copies its shard to host memory, what an asynchronous "
             "checkpoint blocks for; the persist runs behind it."),
    Quantity("checkpoint_stall", "duration", "Checkpoint stall (blocking)", "checkpoints",
             variant(checkpoint.checkpoint_stall, stall_variant),
             lambda p: {"measured": "<checkpoint.blocking_time>",
                        "asynchronous": r"\min(<checkpoint_staging_time>,\; <checkpoint_write_time>)",
                        "synchronous": "<checkpoint_write_time>"}[stall_variant(p)],
             lambda p: {"measured": "Measured blocking time (checkpoint.blocking_time): it replaces the modelled "
                        + ("staging to host (<checkpoint_staging_time>)" if asynchronous(p) else "persist")
                        + "; the persist (<checkpoint_write_time>) still floors the interval and enters the RPO.",
                        "asynchronous": "Asynchronous: blocking (staging to host) only; the persist (write to "
                        "storage, <checkpoint_write_time>) runs behind training. Never longer than a synchronous "
                        "write: a trainer would write synchronously rather than wait longer.",
                        "synchronous": "Synchronous: training waits for the whole persist (write to storage)."}[
                 stall_variant(p)]),
    Quantity("checkpoint_load_time", "duration", "Checkpoint load time", "checkpoints",
             checkpoint.checkpoint_load_time,
             r"\frac{<checkpoint_size>}{\min(<checkpoint.read_bandwidth>,\; <training.gpus> \times "
             r"<checkpoint.per_writer_bandwidth>)}",
             "Loading goes through the same front-end NIC and storage limits as writing."),
    Quantity("checkpoint_interval_floor", "duration", "Interval floor", "checkpoints",
             checkpoint.checkpoint_interval_floor,
             r"\max(<checkpoint_write_time>, <checkpoint_stall>)",
             "A checkpoint cannot start before the previous one is durable."),
    Quantity("checkpoint_bandwidth_share", "fraction", "Filesystem bandwidth used by checkpoints", "checkpoints",
             checkpoint.checkpoint_bandwidth_share, r"\frac{<checkpoint_size> / <checkpoint_interval>}"
             r"{<checkpoint.write_bandwidth>}", "The rest of the filesystem's bandwidth is left for data loading."),
    Quantity("checkpoint_storage_saturated", "flag", "Checkpoints saturate the filesystem", "checkpoints",
             checkpoint.storage_saturated, r"<checkpoint_bandwidth_share> \ge 100\%",
             lambda p: "**Checkpoints take all of the filesystem's write bandwidth**: nothing is left for data "
             "loading. Checkpoint less often (checkpoint.interval) or add bandwidth (checkpoint.write_bandwidth)."
             if p.checkpoint_storage_saturated else "", warn=lambda p: p.checkpoint_storage_saturated),
    Quantity("state_per_gpu", "bytes", "Training state per GPU", "checkpoints", r"s_{st} = N\,b_{st} / G",
             r"<training.params> \times <training.state_bytes_per_param|bytes> / <training.gpus>",
             "ZeRO §3.1: bf16 weights 2 + bf16 gradients 2 + fp32 master, Adam m and v 12 bytes per parameter, "
             "fully sharded; activations not counted."),
    Quantity("state_fits_hbm", "flag", "Training state fits in HBM", "checkpoints", checkpoint.state_fits_hbm,
             r"<state_per_gpu> \le <training.hbm_per_gpu>",
             lambda p: "" if p.state_fits_hbm else
             "**The training state does not fit** in the GPUs' memory at this GPU count: at least "
             "<min_gpus_for_state> GPUs are needed (training.gpus), before activations.",
             warn=lambda p: not p.state_fits_hbm),
    Quantity("min_gpus_for_state", "count", "Fewest GPUs that hold the training state", "checkpoints",
             checkpoint.min_gpus_for_state,
             r"\lceil <training.params> \times <training.state_bytes_per_param|bytes> / <training.hbm_per_gpu> \rceil"),
    # 3. failures and cadence
    Quantity("mtbf", "duration", "Cluster MTBF", "cadence", reliability.cluster_mtbf,
             r"\frac{1}{<training.gpus> \times <failures.gpu_failure_rate>}",
             "Poisson interruptions; λ per GPU (Llama 3: 419 in 54 days on 16,384 GPUs). "
             "Calibrated at ≥ 4K GPUs (Kokolis et al. 2024).", compare=True),
    Quantity("expected_interruptions", "count", "Expected interruptions", "cadence", reliability.expected_interruptions,
             r"<time_to_train> / <mtbf>"),
    Quantity("young_interval", "duration", "Young interval", "cadence", reliability.young_interval,
             r"\sqrt{2 \times <checkpoint_stall> \times <mtbf>}", "Young 1974."),
    Quantity("daly_interval", "duration", "Daly interval", "cadence",
             reliability.daly_interval,
             lambda p: r"\sqrt{2 \times <checkpoint_stall> \times <mtbf>}\left[1 + \tfrac{1}{3}\sqrt{\tfrac{"
             r"<checkpoint_stall>}{2 \times <mtbf>}} + \tfrac{1}{9}\tfrac{<checkpoint_stall>}{2 \times <mtbf>}\right] "
             r"- <checkpoint_stall>" if p.checkpoint_stall < 2 * p.mtbf else r"M = <mtbf> \quad (\delta \ge 2M)",
             "Daly 2006, eq. 37 (M when δ ≥ 2M), with δ the checkpoint stall and M the cluster MTBF."),
    Quantity("optimal_interval", "duration", "Optimal checkpoint interval", "cadence",
             r"\tau^* = \max(\tau_D, \tau_{min})", r"\max(<daly_interval>, <checkpoint_interval_floor>)"),
    Quantity("checkpoint_interval", "duration", "Checkpoint interval", "cadence",
             lambda p: r"\tau = \tau^* = \max(\tau_D, \tau_{min})" if p.scenario.checkpoint.interval is None
             else r"\tau = \max(\tau_{set}, \tau_{min})",
             lambda p: r"\max(<daly_interval>, <checkpoint_interval_floor>)" if p.scenario.checkpoint.interval is None
             else r"\max(<checkpoint.interval>, <checkpoint_interval_floor>)", interval_note, compare=True),
    Quantity("restart_overhead", "duration", "Restart overhead u0", "cadence", r"u_0 = \mathrm{RTO}_{local}",
             None, "The restart overhead of ETTR is the local recovery time, checkpoint load included."),
    Quantity("ettr", "fraction", "ETTR", "cadence",
             lambda p: reliability.ettr_replica_groups if replica_groups(p) else
             reliability.ettr_exact if exponential(p) else reliability.ettr_weibull,
             lambda p: _FT_ETTR if replica_groups(p) else
             (r"\frac{<checkpoint_interval>\, e^{-(<restart_overhead> + <checkpoint_write_time> - "
                        r"<checkpoint_stall>)/<mtbf>}}{<mtbf> \left(e^{(<checkpoint_interval> + <checkpoint_stall>)"
                        r"/<mtbf>} - 1\right)}") if exponential(p) else (
                 r"\frac{<checkpoint_interval>}{<mtbf>} \sum_{j \ge 1} S\big(<restart_overhead> + "
                 r"<checkpoint_write_time> - <checkpoint_stall> + j\,(<checkpoint_interval> + <checkpoint_stall>)"
                 r"\big),\ k = <failures.weibull_shape>"),
             lambda p: _FT_ETTR_NOTE if replica_groups(p) else
             ("Exact in expectation for exponential failures (renewal-reward; Daly 2006's complete model "
                        "with the persist time W in the rework and failed restarts begun again), as drmath's "
                        "simulator runs the run." if exponential(p) else
                        "Expected for Weibull gaps between interruptions of shape k and mean M (renewal-reward "
                        "over the gaps, failed restarts begun again), as drmath's simulator runs the run with "
                        "that shape.")
             + " The first-order form (Kokolis et al. 2024) gives <ettr_first_order> here."
             + (" " + collapsed_note(p) if p.goodput_collapsed else ""),
             short="ETTR", banded=True, compare=True, symbols=_SYMBOLS_ETTR),
    Quantity("ettr_first_order", "fraction", "ETTR, first-order approximation", "cadence",
             reliability.ettr,
             r"\frac{1 - (<restart_overhead> + <checkpoint_interval>/2) / <mtbf>}"
             r"{1 + <checkpoint_stall> / <checkpoint_interval>}",
             "Kokolis et al. 2024, E[ETTR]: a teaching approximation, valid only for δ, u₀, τ ≪ M. It leaves the "
             "persist time W out of the rework (too optimistic when W is long) and drifts low, down to 0, once "
             "u₀ or τ is not small against M (at 100k GPUs it understates goodput by a quarter)."),
    Quantity("ettr_ceiling", "fraction", "ETTR ceiling (instant checkpoints)", "cadence",
             lambda p: reliability.ettr_replica_groups if replica_groups(p) else reliability.ettr_ceiling,
             lambda p: _FT_ETTR.replace("<checkpoint_stall>", "0") if replica_groups(p)
             else r"e^{-<restart_overhead> / <mtbf>}",
             lambda p: "The most any checkpoint cadence can keep: " + (
                 "the replica groups' goodput with instant checkpoints (δ = 0)." if replica_groups(p)
                 else "the share of time not spent restarting.")),
    Quantity("goodput_collapsed", "flag", "Goodput has collapsed", "cadence",
             reliability.goodput_collapsed,
             r"<restart_overhead> \ge <mtbf> \ \text{or}\ <ettr> < 36.8\%",
             lambda p: collapsed_note(p) if p.goodput_collapsed
             else "1/e is the ceiling when the restart equals the MTBF.",
             warn=lambda p: p.goodput_collapsed),
    Quantity("availability_interval", "duration", "Availability-optimal interval", "cadence",
             reliability.availability_interval,
             r"<checkpoint_stall> + \sqrt{2 \times (<mtbf> + <restart_overhead>) \times <checkpoint_stall> + "
             r"<checkpoint_stall>^2}",
             "Saxena et al.: the interval that maximises availability; it tends to Young's when δ ≪ u₀ ≪ M."),
    # 4. replication
    Quantity("replication_every", "count", "Replicate every k-th checkpoint", "replication",
             replication.replication_every,
             r"\lceil <replication.interval> / <checkpoint_interval> \rceil", "Every k-th checkpoint goes off-site."),
    Quantity("replication_interval", "duration", "Replication interval", "replication", replication.launch_spacing,
             r"<replication_every> \times (<checkpoint_interval> + <checkpoint_stall>)",
             "Wall-clock time between copies entering the pipeline: each checkpoint period is τ of training plus "
             "the stall δ (the whole persist when synchronous)."),
    Quantity("object_store_time", "duration", "Upload to object store", "replication",
             replication.transfer_time.tex_variants["object_store"],
             lambda p: rf"\frac{{{_shipped(p)}}}{{<replication.object_store_bandwidth>}}",
             "Parallel filesystem → the site's object store."),
    Quantity("link_time", "duration", "Transfer over the link", "replication",
             replication.transfer_time.tex_variants["link"],
             lambda p: rf"<replication.latency> + \frac{{{_shipped(p)}}}"
             r"{<replication.link_bandwidth> \times <replication.efficiency>}", "Site object store → remote site."),
    Quantity("replication_time", "duration", "Replication time", "replication",
             variant(replication.chain_time, lambda p: "streamed" if streamed(p) else "store_and_forward"),
             lambda p: r"\max(<object_store_time>, <link_time>)" if streamed(p)
             else r"<object_store_time> + <link_time>",
             lambda p: "Streamed: the slowest hop sets the pace." if streamed(p)
             else "Store-and-forward: each hop waits for the whole checkpoint.", compare=True),
    Quantity("object_store_utilization", "fraction", "Object-store upload busy", "replication",
             replication.replication_utilization.tex_variants["object_store"],
             r"<object_store_time> / <replication_interval>",
             "Each hop keeps up while it is busy at most 100% of the time."),
    Quantity("link_utilization", "fraction", "Link busy", "replication",
             replication.replication_utilization.tex_variants["link"],
             r"<link_time> / <replication_interval>"),
    Quantity("replication_cycle", "duration", "Time between copies the pipeline can take", "replication",
             replication.pipeline_cycle.tex_variants["hops"], r"\max(<object_store_time>, <link_time>)",
             "Hops in a row pass copies as fast as their slowest hop (Friedman 1965): a pipeline's throughput is "
             "its slowest stage's; its latency (the replication time) is the sum of the stages."),
    Quantity("replication_bottleneck", "hop", "Slowest hop", "replication",
             replication.bottleneck_hop.tex_variants["hops"],
             r"\operatorname{argmax}(<object_store_time>, <link_time>)"),
    Quantity("replication_utilization", "fraction", "Replication busy (slowest hop)", "replication",
             replication.replication_utilization.tex_variants["pipeline"],
             r"<replication_cycle> / <replication_interval>",
             "Above 100% the slowest hop falls behind."),
    Quantity("replication_keeps_up", "flag", "Replication keeps up", "replication",
             replication.replication_keeps_up.tex_variants["pipeline"],
             r"<replication_cycle> \le <replication_interval>",
             "Every hop keeps up: the slowest is busy at most 100% of the time.", short="Replication keeps up",
             banded=True, compare=True,
             symbols=_SYMBOLS_KEEPS_UP),
    Quantity("bytes_shipped", "bytes", "Bytes shipped off-site over the run", "replication",
             replication.bytes_shipped,
             lambda p: r"\frac{<time_to_train>}{\max(<replication_interval>,\; <replication_cycle>)} \times "
             + _shipped(p),
             "What egress is charged for: one checkpoint every P, for the whole run, and never more than the "
             "slowest hop can carry."),
    Quantity("object_store_bandwidth_needed", "bandwidth", "Upload rate needed to keep up", "replication",
             replication.hop_bandwidth_needed.tex_variants["object_store"],
             lambda p: rf"\frac{{{_shipped(p)}}}{{<replication_interval>}}",
             "The object store's upload rate at which that hop just keeps up."),
    Quantity("replication_bandwidth_needed", "line_rate", "Link bandwidth needed to keep up", "replication",
             replication.hop_bandwidth_needed.tex_variants["link"],
             lambda p: rf"\frac{{{_shipped(p)}}}{{<replication.efficiency> \times "
             r"(<replication_interval> - <replication.latency>)}",
             lambda p: "The link line rate at which that hop just keeps up; no link helps while the upload itself "
             "does not keep up (no bound)."),
    # 5. RPO
    Quantity("rpo_local", "duration", "Local RPO (worst)", "rpo",
             lambda p: rpo_local_formula(p, False),
             lambda p: clip(p, "rpo_local", False, "<step_time>" if replica_groups(p) else
                            r"<checkpoint_interval> + <checkpoint_write_time>").replace("C,", "<compute_time>,"),
             lambda p: "Fault-tolerant replica groups: a failed group drops the step in flight and the others keep "
             "every committed step, so a local failure loses one step at worst, half of one on average "
             "(<rpo_local_expected>)." if replica_groups(p) else
             "Worst case: the failure lands just before the next checkpoint is durable; never more than the "
             "run's whole progress C. Expected loss τ/2 + W = <rpo_local_expected>."
             + (" **The local RPO reaches the run's whole progress**: a checkpoint interval as long as the run "
                "protects nothing (checkpoint.interval)." if whole_run(p, "rpo_local") else ""),
             warn=lambda p: whole_run(p, "rpo_local"),
             short="Local RPO", banded=True, compare=True, symbols=_SYMBOLS_RPO),
    Quantity("rpo_local_expected", "duration", "Local RPO (expected)", "rpo",
             lambda p: rpo_local_formula(p, True),
             lambda p: clip(p, "rpo_local_expected", True, "<step_time>/2" if replica_groups(p) else
                            r"<checkpoint_interval>/2 + <checkpoint_write_time>").replace("C/2,", "<compute_time>/2,")),
    Quantity("rpo_site", "duration", "Site RPO (worst)", "rpo", lambda p: rpo_site_formula(p, False),
             lambda p: rpo_site_substitution(p, False), rpo_site_note,
             short="Site RPO", banded=True, compare=True, warn=lambda p: whole_run(p, "rpo_site"),
             symbols=_SYMBOLS_RPO),
    Quantity("rpo_site_expected", "duration", "Site RPO (expected)", "rpo", lambda p: rpo_site_formula(p, True),
             lambda p: rpo_site_substitution(p, True), lambda p: behind_note(p) if unbounded(p) else ""),
    # 6. RTO
    Quantity("rto_local", "duration", "Local RTO", "rto",
             recovery.local_rto_phases,
             phases("rto_local_phases", LOCAL_PHASES),
             lambda p: "Phases: " + ", ".join(LOCAL_PHASES) + "." + (
                 " Fault-tolerant replica groups: the time a failed group is out before it rejoins, while the "
                 "others keep training; its load is the state fetched from a healthy peer over the group's NICs "
                 "(<checkpoint_size> over <tier.replica_groups|g> groups' share of the GPUs), and it has nothing to "
                 "validate." if replica_groups(p) else ""),
             short="Local RTO", banded=True, compare=True, symbols=_SYMBOLS_RTO),
    Quantity("rto_site", "duration", "Site RTO", "rto",
             recovery.site_rto_phases,
             phases("rto_site_phases", SITE_PHASES), site_rto_note,
             short="Site RTO", banded=True, compare=True,
             symbols=_SYMBOLS_RTO),
    Quantity("standby_fraction", "fraction", "Standby size over primary size", "rto",
             lambda p: r"f = f_{tier}" if p.scenario.failover.standby_fraction is None else r"f = f_{set}",
             lambda p: None if p.scenario.failover.standby_fraction is None else "<failover.standby_fraction>",
             lambda p: f"The {tier(p).label} tier's own size." if p.scenario.failover.standby_fraction is None
             else "Set in the scenario (failover.standby_fraction)."),
    Quantity("standby_gpus", "count", "Standby GPUs", "rto", r"G_s = f\,G",
             r"<standby_fraction> \times <training.gpus>"),
    Quantity("excess_site_gpus", "count", "GPUs beyond the multi-site split", "rto",
             cost.excess_site_gpus,
             lambda p: r"<training.gpus> \times \max\left(0,\; \frac{<tier.sites|g> \times <standby_fraction>}"
             r"{<tier.sites|g> - 1} - 1\right)" if tier(p).sites > 1 else None,
             lambda p: "Capacity held so the survivor of a site loss is larger than its share of the split; idle, so "
             "charged at full price in the standby cost." if tier(p).sites > 1
             else "Zero: one site trains; the standby is priced by its tier's reserved share."),
    Quantity("reduced_capacity_time", "duration", "Time at reduced capacity", "rto",
             recovery.resume_slip.tex_variants["expected"],
             r"\min\left(\frac{<time_to_train>}{2} \left(\frac{<training.gpus>}{<standby_gpus>} - 1\right),\; "
             r"<tier.rebuild_time|duration> \left(1 - \frac{<standby_gpus>}{<training.gpus>}\right)\right)",
             "The extra time a site loss adds by finishing on a smaller standby, for a site event at a uniform time "
             "in the run: the run continues there until the lost site's GPUs are rebuilt (R, the same for every "
             "tier).", short="Reduced capacity", banded=True, symbols=_SYMBOLS_REDUCED),
    Quantity("schedule_slip", "duration", "Expected schedule slip after a site loss", "rto",
             recovery.schedule_slip.tex_variants["expected"],
             r"<rpo_site_expected> + <rto_site> + <reduced_capacity_time>",
             "How much later the run ends after a site loss: the work done again, the outage until training resumes "
             "and the extra time at reduced capacity, for every tier."),
    Quantity("tier_rpo_sites", "duration", "Site RPO by tier", "rto",
             lambda p: rpo_site_formula(p, False), short="site RPO", table=True,
             note="The same for every tier but multi-site, whose sites each hold the training state: it loses the "
                  "local RPO."),
    Quantity("tier_rto_sites", "duration", "Site RTO by tier", "rto",
             recovery.site_rto_phases,
             short="site RTO", table=True,
             note="Each tier's own readiness, staging and decision (automatic tiers skip it); the other phases "
                  "are the scenario's."),
    Quantity("tier_rto_locals", "duration", "Local RTO by tier", "rto", recovery.local_rto_phases,
             short="local RTO", table=True,
             note="The same restart for every checkpoint-restart tier; fault-tolerant replica groups: the time a "
                  "failed group is out while the others train (no restart)."),
    Quantity("tier_ettrs", "fraction", "Goodput (ETTR) by tier", "rto",
             lambda p: reliability.ettr_exact, short="goodput", table=True,
             note="Checkpoint-restart: ETTR, the same for every such tier. Fault-tolerant replica groups: "
                  "committed steps x participating groups (torchft, PyTorch blog Jun 2025)."),
    Quantity("tier_schedule_slips", "duration", "Expected schedule slip by tier", "rto",
             recovery.schedule_slip.tex_variants["expected"], short="slip", table=True,
             note=lambda p: "Each tier at its own standby size." if p.scenario.failover.standby_fraction is None
             else "Every tier at the standby size set in the scenario (failover.standby_fraction)."),
    # 7. cost
    Quantity("fleet_cost_rate", "usd_rate", "Fleet cost", "cost", cost.fleet_cost_rate,
             r"<training.gpus> \times <cost.gpu_hour_price|usd_per_gpu_hour>"),
    Quantity("standby_cost", "usd", "Standby cost", "cost",
             lambda p: cost.standby_cost.tex if not p.excess_site_gpus else cost.standby_cost.tex_variants["split"],
             lambda p: r"<tier.reserved_share|fraction> \times <cost.gpu_hour_price|usd_per_gpu_hour> \times "
             r"<standby_gpus> \times <time_to_train|hours>" if not p.excess_site_gpus else
             r"\left(<tier.reserved_share|fraction> \times <cost.gpu_hour_price|usd_per_gpu_hour> \times "
             r"\min\left(<standby_gpus>, \tfrac{<tier.sites|g> - 1}{<tier.sites|g>} \times <training.gpus>\right) + "
             r"<cost.gpu_hour_price|usd_per_gpu_hour> \times <excess_site_gpus>\right) \times <time_to_train|hours>",
             lambda p: f"Reserved share r of the {tier(p).label} tier: {tier(p).assumptions}", compare=True),
    Quantity("replication_cost", "usd", "Replication cost", "cost",
             cost.replication_cost,
             lambda p: r"<cost.egress_price> \times <bytes_shipped> + <cost.storage_month_price> \times "
             r"<replication.retained|g> \times " + _shipped(p) + r" \times \frac{<time_to_train>}{\text{month}} + "
             r"<link_hour_price|usd_per_hour> \times <time_to_train|hours>",
             "Egress and storage prices per byte (cost.egress_price, cost.storage_month_price); S_r is "
             "<replication.retained|g> retained copies; the link is priced per hour by its bandwidth "
             "(link_hour_price)."),
    Quantity("link_hour_price", "usd", "Replication link price per hour", "cost",
             lambda p: cost.link_hour_price if p.scenario.cost.link_hour_price is None
             else r"p_l = p_{set}",
             lambda p: r"\text{cheapest bundle of 10/100/400G ports for } <replication.link_bandwidth>"
             if p.scenario.cost.link_hour_price is None else "<cost.link_hour_price>",
             lambda p: "AWS Direct Connect port-hours: 2.25, 22.50 and 85.00 USD for 10, 100 and 400 Gbps "
             "ports; a LAG bundles ports of one speed, so the price grows with the line rate."
             if p.scenario.cost.link_hour_price is None
             else "Set in the scenario (cost.link_hour_price): the same whatever the link's bandwidth."),
    Quantity("site_event_probability", "fraction", "P(site event during the run)", "cost",
             cost.site_event_probability,
             r"1 - e^{-<tier.sites|g> \times <failures.site_event_rate> \times <time_to_train>}",
             "λ_s: failures.site_event_rate, with its stated basis; n_s sites train at once (two for multi-site), "
             "and losing any one interrupts the run."),
    Quantity("cross_site_bandwidth", "line_rate", "Cross-site bandwidth for gradients", "cost",
             cost.cross_site_bandwidth,
             lambda p: None if tier(p).sites == 1 else  # one site: zero, and no division by n_s = 1
             r"\frac{2(<tier.sites|g> - 1)}{<tier.sites|g>} \times \frac{<training.params> \times "
             r"<failover.gradient_bytes|bytes>}{<step_time>}",
             "Zero unless sites train together. Each site reduces within itself, then the sites exchange the "
             "gradients once per step (a ring all-reduce sends 2(p−1)/p of the data, ZeRO §7.1); a floor, since "
             "the exchange must also fit in the step."),
    Quantity("cross_site_cost", "usd", "Cross-site bandwidth cost", "cost",
             cost.link_cost.tex_variants["cross_site"],
             r"<cost.link_bandwidth_hour_price> \times <cross_site_bandwidth> \times <time_to_train|hours>",
             "p_b: price of one B/s of circuit for an hour (cost.link_bandwidth_hour_price)."),
    Quantity("expected_disaster_loss", "usd", "Expected disaster loss", "cost",
             cost.expected_disaster_loss.tex_variants["expanded"],
             r"<site_event_probability> \times <schedule_slip> \times "
             r"(<fleet_cost_rate> + <cost.delay_cost>)",
             "D is the cost of delay (cost.delay_cost): the business value of finishing on time.", compare=True),
    Quantity("site_loss_time", "duration", "Time lost to a site loss", "cost",
             recovery.schedule_slip.tex_variants["loss"],
             r"<rpo_site_expected> + <rto_site> + <reduced_capacity_time>",
             "If the site is lost: the work since the last off-site copy (expected), the time until training "
             "resumes at the other site, and the extra time while the standby runs short of the primary's GPUs: "
             "the schedule slip, each counted once.",
             short="Site loss", banded=True, compare=True, symbols=_SYMBOLS_LOSS),
    Quantity("site_loss_cost", "usd", "Cost of a site loss", "cost",
             cost.expected_disaster_loss.tex_variants["certain"],
             r"<site_loss_time> \times (<fleet_cost_rate> + <cost.delay_cost>)",
             "The fleet's time and the cost of delay (cost.delay_cost) for one site loss: the expected disaster "
             "loss with the event certain (P = 1).", compare=True),
    Quantity("total_dr_cost", "usd", "Total DR cost", "cost", r"C_{DR} = C_{standby} + C_{rep} + C_x + E[C_{loss}]",
             r"<standby_cost> + <replication_cost> + <cross_site_cost> + <expected_disaster_loss>",
             short="Total DR cost", banded=True, compare=True, symbols=_SYMBOLS_COST),
    Quantity("goodput_lost_cost", "usd", "Goodput lost", "cost", cost.goodput_lost_cost,
             r"<fleet_cost_rate> \times (1 - <ettr>) \times <time_to_train>",
             "The fleet's time spent on checkpoint stalls, rework and restarts, priced at its own cost: checkpoint "
             "and replication cadence move it as well as the RPO."),
    Quantity("total_cost_of_resilience", "usd", "Total cost of resilience", "cost",
             r"C_{res} = C_{DR} + C_{goodput}", r"<total_dr_cost> + <goodput_lost_cost>",
             "What solve() minimises: the DR cost plus the goodput the cadences cost, so a design that meets an RPO "
             "by starving goodput is never cheap.", compare=True),
    Quantity("tier_standby_costs", "usd", "Standby cost by tier", "cost", cost.standby_cost,
             short="standby", table=True, note="Each tier's reserved share r and standby size."),
    Quantity("tier_link_costs", "usd", "Replication and cross-site cost by tier", "cost",
             r"C_{rep} + C_x", short="replication + cross-site", table=True,
             note="Replication is the same for every tier; only multi-site adds a cross-site circuit for gradients."),
    Quantity("tier_disaster_losses", "usd", "Expected disaster loss by tier", "cost",
             cost.expected_disaster_loss.tex_variants["expanded"],
             short="expected loss", table=True),
    Quantity("tier_total_costs", "usd", "Total DR cost by tier", "cost",
             r"C_{DR} = C_{standby} + C_{rep} + C_x + E[C_{loss}]",
             short="total", table=True),
    Quantity("tier_goodput_lost_costs", "usd", "Goodput lost by tier", "cost", cost.goodput_lost_cost,
             short="goodput lost", table=True,
             note="The fleet's time lost to stalls, rework and restarts (or, with replica groups, to dropped steps "
                  "and groups out), priced at its own cost."),
    Quantity("tier_resilience_costs", "usd", "Total cost of resilience by tier", "cost",
             r"C_{res} = C_{DR} + C_{goodput}", short="DR + goodput", table=True,
             note="Total DR cost plus goodput lost: where recovery without restart pays for itself."),
    Quantity("break_even_delay_costs", "usd_rate", "Break-even cost of delay, against cold backup & restore", "cost",
             cost.break_even_delay_cost,
             short="pays for itself above",
             note="'no bound' means the tier never pays for itself against cold at any cost of delay.", table=True),
    # 8. requirements
    *(_margin_quantity(target) for target in TARGETS),
    Quantity("meets_requirements", "flag", "Meets every requirement", "requirements",
             r"\min_i m_i \ge 0 \;\wedge\; \neg\,\text{collapsed}",
             lambda p: r"\min(" + ", ".join(f"<{t.margin}>" for t in TARGETS) + r") \ge 0", _meets_note,
             compare=True),
)

QUANTITIES = {q.name: q for q in _ALL}
"""Every output of :func:`drmath.plan`, by name, in reading order."""

SCALARS = tuple(q.name for q in _ALL if not q.table)
"""The quantities that are one number each."""

TABLES = tuple(q.name for q in _ALL if q.table)
"""The quantities with one value per DR tier."""

BANDED = tuple(q.name for q in _ALL if q.banded)
"""The quantities :func:`drmath.bands` gives a 90% range (5th, 50th and 95th percentiles), in reading order:
the model's choice of what is worth a band, the headline numbers of a design."""

COMPARED = tuple(q.name for q in _ALL if q.compare)
"""The quantities put side by side when plans are compared."""

PLAN_FIELDS = {name: (QUANTITIES[name].kind, QUANTITIES[name].title) for name in SCALARS}
"""Every scalar quantity: its formatting kind and title."""


def in_group(group):
    """The names of the quantities in one group, in order.

    >>> in_group("rto")[:5]
    ['rto_local', 'rto_site', 'standby_fraction', 'standby_gpus', 'excess_site_gpus']
    """
    if group not in GROUPS:
        raise ValueError(f"unknown group {group!r}: choose from {', '.join(GROUPS)}")
    return [q.name for q in _ALL if q.group == group]


MOVED = {name: "drmath.viz.headline" for name in ("CARDS", "card_title", "card_detail")}
"""The cards' layout moved to the views (issue 33): each old name, and the module it lives in now."""

__getattr__ = forwarder(__name__, MOVED)
