r"""The one registry of plan outputs: each quantity declared once.

Every output of :func:`drmath.plan` has one :class:`Quantity` here: its kind
(how it is formatted), unit, title and group, its formula in TeX, and how
:meth:`drmath.Plan.explain` substitutes its inputs. :class:`drmath.Plan`, the
CLI's groups, the report's sections, the dashboard's cards and the comparison
all read this registry, so adding a quantity is one entry here plus its
formula in its module (and the step of :mod:`drmath.plan` that computes it).

Substitutions are TeX with placeholders: ``<name>`` is a plan output and
``<section.field>`` an input, each rendered in its own unit; ``<path|kind>``
renders with another kind of :data:`drmath.units.KINDS` (``|g`` as a bare
number). Notes are Markdown and take the same placeholders as plain text.
A formula, substitution or note may be a function of the plan, for the
quantities whose derivation depends on a choice (sync or async checkpoints,
a window- or token-driven run, replication keeping up or not).

    >>> QUANTITIES["rpo_site"].title, QUANTITIES["rpo_site"].unit
    ('Site RPO (worst)', '[s]')
    >>> in_group("rpo")
    ['rpo_local', 'rpo_local_expected', 'rpo_site', 'rpo_site_expected']
"""

from collections.abc import Callable
from dataclasses import dataclass

from .formatting import line_rate
from .presets import DR_TIERS
from .recovery import LOCAL_PHASES, SITE_PHASES

__all__ = ["Quantity", "Group", "UNITS", "QUANTITIES", "GROUPS", "SCALARS", "TABLES", "CARDS", "COMPARED",
           "PLAN_FIELDS", "in_group", "card_title", "card_detail"]

Text = str | Callable | None  # TeX or Markdown, or a function of the plan that returns it

UNITS = {"duration": "[s]", "bytes": "[B]", "bandwidth": "[B/s]", "flop": "[FLOP]", "flop_rate": "[FLOP/s]",
         "usd": "[USD]", "usd_rate": "[USD/s]", "fraction": "[1]", "count": "[1]", "rate": "[1/s]",
         "gpu_hours": "[GPU h]", "flag": "[1]", "plain": "[1]"}
"""The SI unit of each kind of quantity (the kinds of :data:`drmath.units.KINDS`)."""


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
    formula: Text
    substitution: Text = None  # None: the result alone follows the formula
    note: Text = ""
    short: str | None = None  # title on a card or headline
    card: int | None = None  # position among the cards
    detail: Callable | None = None  # the card's sub-line, a function of the plan
    compare: bool = False  # shown when plans are compared side by side
    table: bool = False  # a value per DR tier rather than one number

    @property
    def unit(self):
        """The SI unit, e.g. ``"[s]"``."""
        return UNITS[self.kind]


GROUPS = {g.id: g for g in (
    Group("run", "1. The run",
          "How much compute the run needs, how long it takes on this cluster, and what the GPU-hours cost."),
    Group("checkpoints", "2. Checkpoints",
          "How big one checkpoint is, how long it takes to persist and to load, and how much the training loop "
          "stalls for it. A checkpoint is not durable until its persist finishes."),
    Group("cadence", "3. Failures and checkpoint cadence",
          "How often the cluster is interrupted, how often to checkpoint, and the share of wall-clock time that "
          "makes progress (ETTR)."),
    Group("replication", "4. Replication",
          "How every k-th checkpoint reaches the other site, and whether replication keeps up with the cadence. "
          "If it does not, the backlog grows and the site RPO has no bound."),
    Group("rpo", "5. Recovery point (RPO)",
          "The progress lost, by failure scope: worst case (the DR convention) and expected value."),
    Group("rto", "6. Recovery time (RTO)",
          "The time until training resumes, as a sum of named phases; the site failover's standby-readiness phase "
          "is set by the DR tier."),
    Group("cost", "7. Cost",
          "What each choice costs: the standby, replication, and the expected loss from a site event, priced with "
          "the cost of delay."),
)}
"""Every group, in reading order: the CLI's groups and the report's sections."""


# --------------------------------------------------------------------------- the variants


def _window_driven(p):
    return p.run_driver == "window"


def _asynchronous(p):
    return p.scenario.checkpoint.mode == "async"


def _streamed(p):
    return p.scenario.replication.streamed


def _tier(p):
    return DR_TIERS[p.scenario.failover.tier]


def _phases(field, order):
    return " + ".join(f"<{field}.{name}>" for name in order)


_RPO_SITE = r"\mathrm{RPO}_{site} = k\tau + W + t_{rep}"
_BEHIND = r"\infty \quad (t_{rep} = <replication_time> > k\tau = <replication_interval>)"


def _behind_note(p):
    return ("**Replication does not keep up**: one copy takes <replication_time> but a new one is due every "
            "<replication_interval> (<replication_utilization> utilisation), so the backlog grows through the run "
            "and the site RPO has no bound. To fix it, raise the link to at least <replication_bandwidth_needed> "
            "(replication.link_bandwidth), or ship less often: a replication interval of at least "
            "<replication_time> (replication.interval).")


def _interval_note(p):
    if p.scenario.checkpoint.interval is None:
        return "Unset in the scenario, so Daly's optimum is used."
    if p.checkpoint_interval_floored:
        return "Set to <checkpoint.interval>, below the floor, so raised to it."
    return "Set in the scenario (checkpoint.interval)."


def _site_rto_note(p):
    tier = _tier(p)
    return (f"Tier: {tier.label}, readiness <tier.readiness|duration>"
            + ("; replication lands on the standby, so no staging" if tier.lands_on_standby
               else "; the checkpoint is staged from the object store")
            + ("; failover is automatic" if tier.automatic else "") + f". {tier.assumptions}")


def _keeps_up_detail(p):
    if p.replication_keeps_up:
        return f"link {p.format('replication_utilization')} busy"
    return f"needs ≥ {line_rate(p.replication_bandwidth_needed)}"


# --------------------------------------------------------------------------- the quantities

_ALL = (
    # 1. the run
    Quantity("training_flops", "flop", "Training compute", "run", r"C = k\,N\,D",
             r"<training.flops_per_param_token|g> \times <training.params> \times <tokens>",
             "Kaplan et al. 2020 §2.1 (k = 6; 8 with full recomputation, Narayanan et al. 2021)."),
    Quantity("compute_time", "duration", "Compute time (ETTR = 1)", "run", r"T_c = \frac{C}{G\,P\,\mathrm{MFU}}",
             r"\frac{<training_flops>}{<training.gpus> \times <training.peak_flop_rate> \times <training.mfu>}",
             "Pure compute, before failures (ETTR = 1)."),
    Quantity("time_to_train", "duration", "Time to train (wall-clock)", "run",
             lambda p: r"T = T_{window}" if _window_driven(p)
             else r"T = \frac{k\,N\,D}{G\,P\,\mathrm{MFU}\,\mathrm{ETTR}}",
             lambda p: None if _window_driven(p) else
             r"\frac{<training.flops_per_param_token|g> \times <training.params> \times <tokens>}"
             r"{<training.gpus> \times <training.peak_flop_rate> \times <training.mfu> \times <ettr>}",
             lambda p: "The window drives the run; the tokens that fit in it are derived." if _window_driven(p)
             else "Narayanan et al. 2021, eq. (4); ETTR turns compute time into wall-clock time.",
             short="Time to train", card=6, detail=lambda p: f"{p.tokens / 1e12:.3g}T tokens, {p.format('run_cost')}",
             compare=True),
    Quantity("tokens", "count", "Tokens", "run",
             lambda p: r"D = \frac{T\,G\,P\,\mathrm{MFU}\,\mathrm{ETTR}}{k\,N}" if _window_driven(p) else "D",
             lambda p: r"\frac{<time_to_train> \times <training.gpus> \times <training.peak_flop_rate> \times "
             r"<training.mfu> \times <ettr>}{<training.flops_per_param_token|g> \times <training.params>}"
             if _window_driven(p) else None,
             lambda p: "Narayanan et al. 2021, eq. (4), solved for D." if _window_driven(p)
             else "Set as an input (training.tokens); it drives the run.", compare=True),
    Quantity("gpu_hours", "gpu_hours", "GPU-hours", "run", r"H = G\,T / 3600",
             r"<training.gpus> \times <time_to_train>"),
    Quantity("run_cost", "usd", "Run cost", "run", r"C_{run} = p\,H", r"<cost.gpu_hour_price> \times <gpu_hours>",
             "Price: cost.gpu_hour_price."),
    # 2. checkpoints
    Quantity("checkpoint_size", "bytes", "Checkpoint size", "checkpoints", r"S = N\,b",
             r"<training.params> \times <checkpoint.bytes_per_param|bytes>",
             "b = 14 B/param: bf16 weights + fp32 master, Adam m and v (ZeRO §3.1 accounting).", compare=True),
    Quantity("shard_size", "bytes", "Shard per GPU", "checkpoints", r"s = S / G",
             r"<checkpoint_size> / <training.gpus>", "Every GPU writes its own shard (Llama 3: 1 MB to 4 GB per GPU)."),
    Quantity("checkpoint_write_time", "duration", "Checkpoint write (persist) time", "checkpoints",
             r"W = \frac{S}{\min(B_w,\; G\,b_w)}",
             r"\frac{<checkpoint_size>}{\min(<checkpoint.write_bandwidth>,\; <training.gpus> \times "
             r"<checkpoint.per_writer_bandwidth>)}", "A checkpoint is not durable until this persist ends."),
    Quantity("checkpoint_stall", "duration", "Checkpoint stall", "checkpoints",
             lambda p: r"\delta = s / b_h" if _asynchronous(p) else r"\delta = W",
             lambda p: r"<shard_size> / <checkpoint.host_copy_bandwidth>" if _asynchronous(p)
             else "<checkpoint_write_time>",
             lambda p: "Asynchronous: training stalls only for the copy to host memory; the persist runs behind it."
             if _asynchronous(p) else "Synchronous: training waits for the whole persist."),
    Quantity("checkpoint_load_time", "duration", "Checkpoint load time", "checkpoints", r"L = S / B_r",
             r"<checkpoint_size> / <checkpoint.read_bandwidth>"),
    Quantity("checkpoint_interval_floor", "duration", "Interval floor", "checkpoints", r"\tau_{min} = \max(W, \delta)",
             r"\max(<checkpoint_write_time>, <checkpoint_stall>)",
             "A checkpoint cannot start before the previous one is durable."),
    Quantity("checkpoint_bandwidth_share", "fraction", "Filesystem bandwidth used by checkpoints", "checkpoints",
             r"u_{fs} = \frac{S/\tau}{B_w}", r"\frac{<checkpoint_size> / <checkpoint_interval>}"
             r"{<checkpoint.write_bandwidth>}", "The rest of the filesystem's bandwidth is left for data loading."),
    # 3. failures and cadence
    Quantity("mtbf", "duration", "Cluster MTBF", "cadence", r"M = \frac{1}{G\,\lambda}",
             r"\frac{1}{<training.gpus> \times <failures.gpu_failure_rate>}",
             "Poisson interruptions; λ per GPU (Llama 3: 419 in 54 days on 16,384 GPUs). "
             "Calibrated at ≥ 4K GPUs (Kokolis et al. 2024).", compare=True),
    Quantity("expected_interruptions", "count", "Expected interruptions", "cadence", r"E[n] = T / M",
             r"<time_to_train> / <mtbf>"),
    Quantity("young_interval", "duration", "Young interval", "cadence", r"\tau_Y = \sqrt{2\,\delta\,M}",
             r"\sqrt{2 \times <checkpoint_stall> \times <mtbf>}", "Young 1974."),
    Quantity("daly_interval", "duration", "Daly interval", "cadence",
             r"\tau_D = \sqrt{2\delta M}\left[1 + \tfrac{1}{3}\sqrt{\tfrac{\delta}{2M}} + "
             r"\tfrac{1}{9}\tfrac{\delta}{2M}\right] - \delta",
             r"\tau_D(\delta = <checkpoint_stall>,\ M = <mtbf>)", "Daly 2006, eq. 37 (M when δ ≥ 2M)."),
    Quantity("optimal_interval", "duration", "Optimal checkpoint interval", "cadence",
             r"\tau^* = \max(\tau_D, \tau_{min})", r"\max(<daly_interval>, <checkpoint_interval_floor>)"),
    Quantity("checkpoint_interval", "duration", "Checkpoint interval", "cadence",
             lambda p: r"\tau = \tau^* = \max(\tau_D, \tau_{min})" if p.scenario.checkpoint.interval is None
             else r"\tau = \max(\tau_{set}, \tau_{min})",
             lambda p: r"\max(<daly_interval>, <checkpoint_interval_floor>)" if p.scenario.checkpoint.interval is None
             else r"\max(<checkpoint.interval>, <checkpoint_interval_floor>)", _interval_note, compare=True),
    Quantity("restart_overhead", "duration", "Restart overhead u0", "cadence", r"u_0 = \mathrm{RTO}_{local}",
             None, "The restart overhead of ETTR is the local recovery time, checkpoint load included."),
    Quantity("ettr", "fraction", "ETTR", "cadence", r"\mathrm{ETTR} = \frac{1 - (u_0 + \tau/2)/M}{1 + \delta/\tau}",
             r"\frac{1 - (<restart_overhead> + <checkpoint_interval>/2) / <mtbf>}"
             r"{1 + <checkpoint_stall> / <checkpoint_interval>}",
             "Kokolis et al. 2024, E[ETTR]; valid for δ, u₀ ≪ M.",
             short="ETTR", card=5, compare=True,
             detail=lambda p: f"checkpoint every {p.format('checkpoint_interval')}"),
    # 4. replication
    Quantity("replication_every", "count", "Replicate every k-th checkpoint", "replication",
             r"k = \max\left(1, \lceil T_{rep} / \tau \rceil\right)",
             r"\lceil <replication.interval> / <checkpoint_interval> \rceil", "Every k-th checkpoint goes off-site."),
    Quantity("replication_interval", "duration", "Replication interval", "replication", r"k\,\tau",
             r"<replication_every> \times <checkpoint_interval>"),
    Quantity("object_store_time", "duration", "Upload to object store", "replication",
             r"t_{os} = \frac{S / c}{B_{os}}",
             r"\frac{<checkpoint_size> / <replication.compression|g>}{<replication.object_store_bandwidth>}",
             "Parallel filesystem → the site's object store."),
    Quantity("link_time", "duration", "Transfer over the link", "replication",
             r"t_{link} = \ell + \frac{S / c}{B\,\eta}",
             r"<replication.latency> + \frac{<checkpoint_size> / <replication.compression|g>}"
             r"{<replication.link_bandwidth> \times <replication.efficiency>}", "Site object store → remote site."),
    Quantity("replication_time", "duration", "Replication time", "replication",
             lambda p: r"t_{rep} = \max(t_{os}, t_{link})" if _streamed(p) else r"t_{rep} = t_{os} + t_{link}",
             lambda p: r"\max(<object_store_time>, <link_time>)" if _streamed(p)
             else r"<object_store_time> + <link_time>",
             lambda p: "Streamed: the slowest hop sets the pace." if _streamed(p)
             else "Store-and-forward: each hop waits for the whole checkpoint.", compare=True),
    Quantity("replication_utilization", "fraction", "Link utilisation", "replication",
             r"\rho = \frac{t_{rep}}{k\,\tau}",
             r"<replication_time> / <replication_interval>", "Above 100% the backlog grows through the run."),
    Quantity("replication_keeps_up", "flag", "Replication keeps up", "replication", r"t_{rep} \le k\,\tau",
             r"<replication_time> \le <replication_interval>", short="Replication keeps up", card=8,
             detail=_keeps_up_detail, compare=True),
    Quantity("bytes_shipped", "bytes", "Bytes shipped off-site over the run", "replication",
             r"V = \frac{T}{k\tau} \cdot \frac{S}{c}",
             r"\frac{<time_to_train>}{<replication_interval>} \times "
             r"\frac{<checkpoint_size>}{<replication.compression|g>}",
             "What egress is charged for: one checkpoint every kτ, for the whole run."),
    Quantity("replication_bandwidth_needed", "bandwidth", "Link bandwidth needed to keep up", "replication",
             lambda p: r"B_{min} = \frac{S / c}{\eta\,(k\tau - \ell)}" if _streamed(p)
             else r"B_{min} = \frac{S / c}{\eta\,(k\tau - \ell - t_{os})}",
             lambda p: r"\frac{<checkpoint_size> / <replication.compression|g>}{<replication.efficiency> \times "
             + (r"(<replication_interval> - <replication.latency>)}" if _streamed(p)
                else r"(<replication_interval> - <replication.latency> - <object_store_time>)}"),
             "The link line rate at which replication just keeps up."),
    # 5. RPO
    Quantity("rpo_local", "duration", "Local RPO (worst)", "rpo", r"\mathrm{RPO}_{local} = \tau + W",
             r"<checkpoint_interval> + <checkpoint_write_time>",
             "Worst case: the failure lands just before the next checkpoint is durable. "
             "Expected loss τ/2 + W = <rpo_local_expected>.",
             short="Local RPO", card=1, detail=lambda p: f"expected {p.format('rpo_local_expected')}", compare=True),
    Quantity("rpo_local_expected", "duration", "Local RPO (expected)", "rpo",
             r"E[\mathrm{loss}_{local}] = \tau/2 + W", r"<checkpoint_interval>/2 + <checkpoint_write_time>"),
    Quantity("rpo_site", "duration", "Site RPO (worst)", "rpo",
             lambda p: _RPO_SITE if p.replication_keeps_up else _RPO_SITE + r"\ \text{only if}\ t_{rep} \le k\tau",
             lambda p: r"<replication_interval> + <checkpoint_write_time> + <replication_time>"
             if p.replication_keeps_up else _BEHIND,
             lambda p: "Worst case: the site is lost just before the next off-site copy lands. "
             "Expected kτ/2 + W + t_rep = <rpo_site_expected>." if p.replication_keeps_up else _behind_note(p),
             short="Site RPO", card=2, compare=True,
             detail=lambda p: f"expected {p.format('rpo_site_expected')}" if p.replication_keeps_up
             else "replication falls behind"),
    Quantity("rpo_site_expected", "duration", "Site RPO (expected)", "rpo",
             lambda p: r"E[\mathrm{loss}_{site}] = k\tau/2 + W + t_{rep}" if p.replication_keeps_up
             else _RPO_SITE + r"\ \text{only if}\ t_{rep} \le k\tau",
             lambda p: r"<replication_interval>/2 + <checkpoint_write_time> + <replication_time>"
             if p.replication_keeps_up else _BEHIND,
             lambda p: "" if p.replication_keeps_up else _behind_note(p)),
    # 6. RTO
    Quantity("rto_local", "duration", "Local RTO", "rto",
             r"\mathrm{RTO}_{local} = t_{det} + t_{resched} + t_{launch} + L + t_{val}",
             _phases("rto_local_phases", LOCAL_PHASES), "Phases: " + ", ".join(LOCAL_PHASES) + ".",
             short="Local RTO", card=3, compare=True,
             detail=lambda p: f"load {p.format('checkpoint_load_time')}, MTBF {p.format('mtbf')}"),
    Quantity("rto_site", "duration", "Site RTO", "rto",
             r"\mathrm{RTO}_{site} = t_{det} + t_{dec} + t_{ready} + t_{stage} + t_{launch} + L + t_{val}",
             _phases("rto_site_phases", SITE_PHASES), _site_rto_note,
             short="Site RTO", card=4, detail=lambda p: _tier(p).label, compare=True),
    Quantity("standby_fraction", "fraction", "Standby size over primary size", "rto",
             lambda p: r"f = f_{tier}" if p.scenario.failover.standby_fraction is None else r"f = f_{set}",
             lambda p: None if p.scenario.failover.standby_fraction is None else "<failover.standby_fraction>",
             lambda p: f"The {_tier(p).label} tier's own size." if p.scenario.failover.standby_fraction is None
             else "Set in the scenario (failover.standby_fraction)."),
    Quantity("standby_gpus", "count", "Standby GPUs", "rto", r"G_s = f\,G",
             r"<standby_fraction> \times <training.gpus>"),
    Quantity("schedule_slip", "duration", "Expected schedule slip after failover", "rto",
             r"\Delta T = \frac{T}{2}\left(\frac{G}{G_s} - 1\right)",
             r"\frac{<time_to_train>}{2} \left(\frac{<training.gpus>}{<standby_gpus>} - 1\right)",
             "Expected slip for a site event at a uniform time in the run, finishing on the standby."),
    # 7. cost
    Quantity("fleet_cost_rate", "usd_rate", "Fleet cost", "cost", r"F = G\,p / 3600",
             r"<training.gpus> \times <cost.gpu_hour_price>/\text{h}"),
    Quantity("standby_cost", "usd", "Standby cost", "cost", r"C_{standby} = r\,p\,G_s\,T / 3600",
             r"<tier.reserved_share|fraction> \times <cost.gpu_hour_price> \times <standby_gpus> "
             r"\times <time_to_train>",
             lambda p: f"Reserved share r of the {_tier(p).label} tier: {_tier(p).assumptions}", compare=True),
    Quantity("replication_cost", "usd", "Replication cost", "cost",
             r"C_{rep} = p_e V + p_s S_r \frac{T}{\text{month}} + p_l \frac{T}{3600}",
             r"\text{egress + remote storage + link port}",
             "V = <bytes_shipped> shipped; S_r = <replication.retained|g> retained copies; "
             "port <cost.link_hour_price>/h."),
    Quantity("site_event_probability", "fraction", "P(site event during the run)", "cost", r"P = 1 - e^{-\lambda_s T}",
             r"1 - e^{-<failures.site_event_rate> \times <time_to_train>}",
             "λ_s: failures.site_event_rate, with its stated basis."),
    Quantity("expected_disaster_loss", "usd", "Expected disaster loss", "cost",
             r"E[C_{loss}] = P\,(E[\mathrm{RPO}_{site}] + \mathrm{RTO}_{site} + \Delta T)\,(F + D)",
             r"<site_event_probability> \times (<rpo_site_expected> + <rto_site> + <schedule_slip>) \times "
             r"(<fleet_cost_rate> + <cost.delay_cost>)",
             "D is the cost of delay (cost.delay_cost): the business value of finishing on time.", compare=True),
    Quantity("total_dr_cost", "usd", "Total DR cost", "cost", r"C_{DR} = C_{standby} + C_{rep} + E[C_{loss}]",
             r"<standby_cost> + <replication_cost> + <expected_disaster_loss>", short="Total DR cost", card=7,
             compare=True,
             detail=lambda p: f"standby {p.format('standby_cost')} · loss {p.format('expected_disaster_loss')}"),
    Quantity("tier_total_costs", "usd", "Total DR cost by tier", "cost",
             r"C_{DR} = C_{standby} + C_{rep} + E[C_{loss}]",
             short="total", table=True),
    Quantity("break_even_delay_costs", "usd_rate", "Break-even cost of delay, against cold backup & restore", "cost",
             r"D^* = \max\left(0, \frac{\Delta C}{P\,\Delta L} - F\right)",
             short="pays for itself above",
             note="'no bound' means the tier never pays for itself against cold at any cost of delay.", table=True),
)

QUANTITIES = {q.name: q for q in _ALL}
"""Every output of :func:`drmath.plan`, by name, in reading order."""

SCALARS = tuple(q.name for q in _ALL if not q.table)
"""The quantities that are one number each."""

TABLES = tuple(q.name for q in _ALL if q.table)
"""The quantities with one value per DR tier."""

CARDS = tuple(sorted((q.name for q in _ALL if q.card is not None), key=lambda n: QUANTITIES[n].card))
"""The quantities shown as headline cards, in order."""

COMPARED = tuple(q.name for q in _ALL if q.compare)
"""The quantities put side by side when plans are compared."""

PLAN_FIELDS = {name: (QUANTITIES[name].kind, QUANTITIES[name].title) for name in SCALARS}
"""Every scalar quantity: its formatting kind and title."""


def in_group(group):
    """The names of the quantities in one group, in order.

    >>> in_group("rto")
    ['rto_local', 'rto_site', 'standby_fraction', 'standby_gpus', 'schedule_slip']
    """
    if group not in GROUPS:
        raise ValueError(f"unknown group {group!r}: choose from {', '.join(GROUPS)}")
    return [q.name for q in _ALL if q.group == group]


def card_title(name):
    """The short title of a quantity, for a card or a headline.

    >>> card_title("rpo_site"), card_title("mtbf")
    ('Site RPO', 'Cluster MTBF')
    """
    q = QUANTITIES[name]
    return q.short or q.title


def card_detail(plan, name):
    """The small line under a card: the numbers that explain the headline one.

    >>> import drmath
    >>> card_detail(drmath.plan(), "rto_site")
    'Warm standby'
    """
    detail = QUANTITIES[name].detail
    return detail(plan) if detail else ""
