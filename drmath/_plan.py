r"""``plan()``: every output of a scenario, derived in named steps and explained.

Data flows one way: inputs -> :class:`~drmath.Scenario` -> :func:`plan` ->
:class:`Plan` -> views. The derivation runs as small named steps, in the way
pvlib's ModelChain runs its models: each step reads the inputs and what the
steps before it produced, and calls the formulas of one module.

    >>> [name for name, _ in STEPS]
    ['checkpoint', 'cadence', 'training', 'replication', 'failover', 'cost', 'requirements']
    >>> p = plan(Scenario().with_changes({"training.gpus": 16_384}))
    >>> round(p.mtbf / 3600, 2)
    3.09

Every output is declared once, in :mod:`drmath.quantities`; :class:`Plan` has
one field per quantity, and :meth:`Plan.explain` renders the quantity's
registered formula with this plan's numbers substituted (through ``drmath._explain``); :func:`explain` does the
same for a scenario, or for the seed case.
:func:`drmath.solve` (in ``drmath._solve``) searches the same steps for the cheapest design.

This module is private, as scikit-learn's are: its public names are handed on from :mod:`drmath`
(``drmath.plan``, ``drmath.Plan``, ``drmath.sweep``, ``drmath.compare``), so the module and the
function :func:`drmath.plan` never share a name.
"""

import dataclasses
import functools
import math

import numpy as np

from . import checkpoint, cost, presets, recovery, reliability, replication, training
from ._explain import Explanation, _explain, _fill
from ._formula import tex_of
from ._validate import short_repr
from .formatting import format_quantity
from .quantities import PLAN_FIELDS, QUANTITIES, SCALARS, TABLES, TARGETS
from .scenario import FIELDS, Scenario, _split

__all__ = ["Plan", "plan", "explain", "formulas", "sweep", "Sweep", "compare", "STEPS", "COLLAPSED"]

COLLAPSED = ("ettr", "tokens", "time_to_train")
"""What a collapsed goodput leaves without meaning: :meth:`Plan.format` shows ``"collapsed"`` there (the run's
length only when the tokens drive it; a window is still the window)."""


# --------------------------------------------------------------------------- the steps
# Each step takes the flat inputs ``v`` (any numeric one may be an array, for a sweep)
# and the outputs so far, and returns its own outputs. Names starting with "_" are
# intermediate: later steps read them, the Plan does not keep them.


def checkpoint_step(v, out):
    """Checkpoint size, shard, persist, stall, load and the interval floor."""
    size = checkpoint.checkpoint_bytes(v["training.params"], v["checkpoint.bytes_per_param"])
    shard = checkpoint.shard_bytes(size, v["training.gpus"])
    write = checkpoint.checkpoint_write_time(size, v["checkpoint.write_bandwidth"], v["training.gpus"],
                                             v["checkpoint.per_writer_bandwidth"])
    staging = checkpoint.checkpoint_staging_time(shard, v["checkpoint.host_copy_bandwidth"])
    stall = checkpoint.checkpoint_stall(write, staging, v["checkpoint.mode"] == "async",
                                        v["checkpoint.blocking_time"])  # measured, when given, replaces the model
    load = checkpoint.checkpoint_load_time(size, v["checkpoint.read_bandwidth"], v["training.gpus"],
                                           v["checkpoint.per_writer_bandwidth"])
    # replica groups (a fault-tolerant tier) each hold the whole state: R replicas over the G GPUs
    state = checkpoint.checkpoint_bytes(v["training.params"], v["training.state_bytes_per_param"]) * _groups(v)
    return dict(checkpoint_size=size, shard_size=shard, checkpoint_write_time=write,
                checkpoint_staging_time=staging, checkpoint_stall=stall,
                checkpoint_load_time=load, checkpoint_interval_floor=checkpoint.checkpoint_interval_floor(write, stall),
                state_per_gpu=checkpoint.shard_bytes(state, v["training.gpus"]),
                state_fits_hbm=checkpoint.state_fits_hbm(state, v["training.gpus"], v["training.hbm_per_gpu"]),
                min_gpus_for_state=checkpoint.min_gpus_for_state(state, v["training.hbm_per_gpu"]))


def _groups(v):
    """Replica groups of the scenario's tier: 1 for checkpoint-restart (one replica of the state)."""
    return max(presets.DR_TIERS[v["failover.tier"]].replica_groups, 1)


def cadence_step(v, out):
    """Failures, the local recovery, the checkpoint interval and ETTR (or, with replica groups, their goodput)."""
    measured = v["failures.measured_mtbf"]
    if measured is None:
        mtbf = reliability.cluster_mtbf(v["training.gpus"], v["failures.gpu_failure_rate"])
    else:
        mtbf = measured
    groups = presets.DR_TIERS[v["failover.tier"]].replica_groups
    if groups:  # a failed group rejoins: its state from a healthy peer over its own NICs, nothing to validate
        peer = replication.transfer_time(out["checkpoint_size"],
                                         v["training.gpus"] / groups * v["checkpoint.per_writer_bandwidth"])
        phases = recovery.local_rto_phases(v["failures.detection_time"], v["failures.reschedule_time"],
                                           v["failures.launch_time"], peer, 0.0)
    else:
        phases = recovery.local_rto_phases(v["failures.detection_time"], v["failures.reschedule_time"],
                                           v["failures.launch_time"], out["checkpoint_load_time"],
                                           v["failures.validation_time"])
    u0 = recovery.rto(phases)
    stall, floor = out["checkpoint_stall"], out["checkpoint_interval_floor"]
    daly = reliability.daly_interval(stall, mtbf)
    optimal = np.maximum(daly, floor)
    chosen = optimal if v["checkpoint.interval"] is None else v["checkpoint.interval"]
    tau = np.maximum(chosen, floor)
    share = checkpoint.checkpoint_bandwidth_share(out["checkpoint_size"], tau, v["checkpoint.write_bandwidth"])
    ettr = reliability.ettr_exact(tau, stall, out["checkpoint_write_time"], u0, mtbf)
    shape = np.asarray(v["failures.weibull_shape"], dtype=float)
    if np.any(shape != 1.0):  # Weibull gaps: the renewal model; shape 1 stays exactly the exponential form
        ettr = np.where(shape == 1.0, ettr, reliability.ettr_weibull(tau, stall, out["checkpoint_write_time"], u0,
                                                                     mtbf, np.where(shape == 1.0, 2.0, shape)))
    ceiling, lost = reliability.ettr_ceiling(u0, mtbf), u0
    if groups:  # no restart: committed steps x participating groups (Little's law holds for any gaps)
        step = training.time_to_train(v["training.params"], v["training.batch_tokens"], v["training.gpus"],
                                      v["training.peak_flop_rate"], v["training.mfu"], 1.0,
                                      v["training.flops_per_param_token"])
        ettr = reliability.ettr_replica_groups(tau, stall, step, u0, mtbf, groups)
        ceiling = reliability.ettr_replica_groups(tau, 0.0, step, u0, mtbf, groups)  # instant checkpoints
        lost = u0 / groups  # one group of R out: every group is out (no progress) once u0 reaches R M
    return dict(mtbf=mtbf, rto_local_phases=phases, rto_local=u0, restart_overhead=u0,
                young_interval=reliability.young_interval(stall, mtbf), daly_interval=daly, optimal_interval=optimal,
                checkpoint_interval=tau, checkpoint_interval_floored=chosen < floor,
                checkpoint_bandwidth_share=share, checkpoint_storage_saturated=checkpoint.storage_saturated(share),
                ettr=ettr, ettr_first_order=reliability.ettr(tau, stall, u0, mtbf),
                ettr_ceiling=ceiling, goodput_collapsed=reliability.goodput_collapsed(ettr, lost, mtbf),
                availability_interval=reliability.availability_interval(stall, u0, mtbf))


def training_step(v, out):
    """Compute, and the run's length or its tokens (whichever the scenario does not set).

    A token computes with the active parameters (a mixture of experts' routed few); the state, the checkpoint and
    the gradients exchanged between sites hold them all (the other steps read ``training.params``).
    """
    total, k = v["training.params"], v["training.flops_per_param_token"]
    params = total * v["training.active_share"]
    cluster = (v["training.gpus"], v["training.peak_flop_rate"], v["training.mfu"])
    ettr = out["ettr"]
    if v["training.tokens"] is None:
        run = v["training.window"] * np.ones_like(ettr)
        tokens = training.tokens_in_window(params, run, *cluster, ettr, k)
    else:
        tokens = v["training.tokens"] * np.ones_like(ettr)
        run = training.time_to_train(params, tokens, *cluster, ettr, k)
    return dict(run_driver="window" if v["training.tokens"] is None else "tokens",
                params=total * np.ones_like(ettr), active_params=params * np.ones_like(ettr),
                training_flops=training.training_flops(params, tokens, k),
                compute_time=training.time_to_train(params, tokens, *cluster, 1.0, k),
                time_to_train=run, tokens=tokens, gpu_hours=cost.gpu_hours(v["training.gpus"], run),
                run_cost=cost.run_cost(v["training.gpus"], run, v["cost.gpu_hour_price"]),
                expected_interruptions=reliability.expected_interruptions(run, out["mtbf"]),
                step_time=training.time_to_train(params, v["training.batch_tokens"], *cluster, 1.0, k))


def replication_step(v, out):
    """Every k-th checkpoint off-site: the hops, whether it keeps up, and the RPOs."""
    size, tau, write = out["checkpoint_size"], out["checkpoint_interval"], out["checkpoint_write_time"]
    compression, efficiency = v["replication.compression"], v["replication.efficiency"]
    latency = v["replication.latency"]
    k = replication.replication_every(v["replication.interval"], tau)
    interval = replication.launch_spacing(k, tau, out["checkpoint_stall"])  # wall-clock: k(tau + delta)
    upload = replication.transfer_time(size, v["replication.object_store_bandwidth"], compression=compression)
    link = replication.transfer_time(size, v["replication.link_bandwidth"], efficiency, latency, compression)
    hops = [upload, link]  # in the order of replication.HOPS
    t_rep = replication.chain_time(hops, v["replication.streamed"])  # a copy is off-site after every hop
    cycle = replication.pipeline_cycle(hops)  # one copy per slowest hop
    upload_keeps_up = replication.replication_keeps_up(upload, interval)
    progress = out["compute_time"]  # no loss exceeds the run's whole progress
    rpo_offsite = functools.partial(recovery.rpo_site_pipeline, k * tau, write, hops,
                                    v["replication.policy"] == "newest", streamed=v["replication.streamed"],
                                    launch_spacing=interval, progress=progress, checkpoint_interval=tau)
    return dict(replication_every=k, replication_interval=interval, object_store_time=upload, link_time=link,
                object_store_utilization=replication.replication_utilization(upload, interval),
                link_utilization=replication.replication_utilization(link, interval),
                replication_time=t_rep, replication_cycle=cycle,
                replication_bottleneck=replication.bottleneck_hop(hops),
                replication_utilization=replication.replication_utilization(cycle, interval),
                replication_keeps_up=replication.replication_keeps_up(cycle, interval),
                object_store_bandwidth_needed=replication.hop_bandwidth_needed(size, interval, compression=compression),
                replication_bandwidth_needed=np.where(upload_keeps_up, replication.hop_bandwidth_needed(
                    size, interval, efficiency, latency, compression), np.inf),
                bytes_shipped=replication.bytes_shipped(out["time_to_train"], interval, size, compression, cycle),
                **_rpo_local(v, out, tau, write, progress),
                _rpo_offsite=rpo_offsite(expected=False), _rpo_offsite_expected=rpo_offsite(expected=True))


def _rpo_local(v, out, tau, write, progress):
    """The local RPOs: back to the last durable checkpoint, or with replica groups only the step in flight."""
    if _groups(v) > 1:  # the other groups keep every committed step
        return dict(rpo_local=recovery.rpo_local_replica_groups(out["step_time"], progress=progress),
                    rpo_local_expected=recovery.rpo_local_replica_groups(out["step_time"], True, progress))
    return dict(rpo_local=recovery.rpo_local(tau, write, progress=progress),
                rpo_local_expected=recovery.rpo_local(tau, write, expected=True, progress=progress))


def failover_step(v, out):
    """The site failover of the scenario's DR tier: the site RPO, its phases, standby and schedule slip."""
    tier = presets.DR_TIERS[v["failover.tier"]]
    fraction = tier.standby_fraction if v["failover.standby_fraction"] is None else v["failover.standby_fraction"]
    size = out["checkpoint_size"]
    staging = 0.0 if tier.lands_on_standby else replication.transfer_time(size, v["failover.staging_bandwidth"])
    standby_load = checkpoint.checkpoint_load_time(size, v["checkpoint.read_bandwidth"], fraction * v["training.gpus"],
                                                   v["checkpoint.per_writer_bandwidth"])  # the standby's own GPUs
    phases = recovery.site_rto_phases(v["failover.detection_time"],
                                      0.0 if tier.automatic else v["failover.decision_time"], tier.readiness, staging,
                                      v["failures.launch_time"], standby_load, v["failures.validation_time"])
    rto_site = recovery.rto(phases)
    # a tier whose every site holds the training state loses what a local failure loses: the survivor's own RPO
    rpo_site = out["rpo_local"] if tier.state_at_each_site else out["_rpo_offsite"]
    rpo_site_expected = out["rpo_local_expected"] if tier.state_at_each_site else out["_rpo_offsite_expected"]
    reduced = recovery.resume_slip(recovery.expected_remaining_run(out["time_to_train"]), fraction, tier.rebuild_time)
    return dict(rpo_site=rpo_site, rpo_site_expected=rpo_site_expected, rto_site_phases=phases, rto_site=rto_site,
                standby_fraction=fraction, standby_gpus=fraction * v["training.gpus"],
                excess_site_gpus=cost.excess_site_gpus(v["training.gpus"], fraction, tier.sites),
                reduced_capacity_time=reduced,
                schedule_slip=recovery.schedule_slip(rpo_site_expected, rto_site, reduced))


def cost_step(v, out):
    """The standby, replication and the expected loss from a site event, priced."""
    tier = presets.DR_TIERS[v["failover.tier"]]
    run, size, compression = out["time_to_train"], out["checkpoint_size"], v["replication.compression"]
    retained = v["replication.retained"] * size / compression
    link_price = (cost.link_hour_price(v["replication.link_bandwidth"]) if v["cost.link_hour_price"] is None
                  else v["cost.link_hour_price"])  # priced by its bandwidth unless a price is set
    replication_cost = cost.replication_cost(out["bytes_shipped"], v["cost.egress_price"], retained,
                                             v["cost.storage_month_price"], run, link_price)
    probability = cost.site_event_probability(v["failures.site_event_rate"], run, tier.sites)
    cross_site = cost.cross_site_bandwidth(v["training.params"], out["step_time"], tier.sites,
                                           v["failover.gradient_bytes"])  # 0 for one site
    cross_site_cost = cost.link_cost(cross_site, run, v["cost.link_bandwidth_hour_price"])
    fleet = cost.fleet_cost_rate(v["training.gpus"], v["cost.gpu_hour_price"])
    # sites that train together hold their split at the tier's share, and any GPUs beyond it (idle) at full price
    held = out["standby_gpus"] if tier.sites == 1 else np.minimum(out["standby_gpus"],
                                                                   v["training.gpus"] * (tier.sites - 1) / tier.sites)
    standby = (cost.standby_cost(held, run, v["cost.gpu_hour_price"], tier.reserved_share)
               + cost.standby_cost(out["excess_site_gpus"], run, v["cost.gpu_hour_price"], 1.0))
    lost = out["schedule_slip"]  # the work lost, the outage and the time at reduced capacity: each once
    loss = cost.expected_disaster_loss(probability, lost, fleet, v["cost.delay_cost"])
    site_loss = cost.expected_disaster_loss(1.0, lost, fleet, v["cost.delay_cost"])  # the event, certain
    total = standby + replication_cost + cross_site_cost + loss
    goodput = cost.goodput_lost_cost(fleet, out["ettr"], run)
    return dict(fleet_cost_rate=fleet, standby_cost=standby, replication_cost=replication_cost,
                link_hour_price=link_price, cross_site_bandwidth=cross_site, cross_site_cost=cross_site_cost,
                site_event_probability=probability, expected_disaster_loss=loss, total_dr_cost=total,
                goodput_lost_cost=goodput, total_cost_of_resilience=total + goodput, site_loss_time=lost,
                site_loss_cost=site_loss)


def requirements_step(v, out):
    """Each target met or missed: its margin (target − value, inf when unset) and whether all are met.

    A run whose goodput has collapsed meets no requirement: its losses are clipped at the little progress
    it makes, so a tiny site RPO there says nothing about a design anyone would run.
    """
    margins = {}
    for t in TARGETS:
        reached = np.asarray(out[t.value], dtype=float)
        margins[t.margin] = np.full(reached.shape, np.inf) if v[t.input] is None else v[t.input] - reached
    met = np.broadcast_arrays(*(m >= 0 for m in margins.values()), ~np.asarray(out["goodput_collapsed"]))
    return dict(margins, meets_requirements=np.logical_and.reduce(met))


STEPS = (("checkpoint", checkpoint_step), ("cadence", cadence_step), ("training", training_step),
         ("replication", replication_step), ("failover", failover_step), ("cost", cost_step),
         ("requirements", requirements_step))
"""The derivation, in order: (name, step)."""

_TIER_STEPS = ("failover", "cost")  # what changes from one DR tier to another


def _derive(v):
    """Every output from the flat inputs ``v``, step by step."""
    out = {}
    for _, step in STEPS:
        out.update(step(v, out))
    return out


def _compare_tiers(v, out):
    """Every tier's total DR cost and break-even cost of delay, given the tier-independent outputs."""
    every = {}
    for name in presets.DR_TIERS:
        tier_v, tier_out = {**v, "failover.tier": name}, dict(out)
        if _groups(tier_v) != _groups(v):  # another local recovery: every step changes, not the tier's alone
            every[name] = _derive(tier_v)
            continue
        for step_name, step in STEPS:
            if step_name in _TIER_STEPS:
                tier_out.update(step(tier_v, tier_out))
        every[name] = tier_out
    cold = every[presets.BASELINE_TIER]

    def each(output):
        return {name: t[output] for name, t in every.items()}

    return {"tier_rpo_sites": each("rpo_site"), "tier_rto_sites": each("rto_site"),
            "tier_schedule_slips": each("schedule_slip"),
            "tier_standby_costs": each("standby_cost"),
            "tier_link_costs": {name: t["replication_cost"] + t["cross_site_cost"] for name, t in every.items()},
            "tier_disaster_losses": each("expected_disaster_loss"), "tier_total_costs": each("total_dr_cost"),
            "tier_rto_locals": each("rto_local"), "tier_ettrs": each("ettr"),
            "tier_goodput_lost_costs": each("goodput_lost_cost"),
            "tier_resilience_costs": each("total_cost_of_resilience"),
            "break_even_delay_costs": {
                name: cost.break_even_delay_cost(t["standby_cost"] + t["cross_site_cost"]
                                                 - cold["standby_cost"] - cold["cross_site_cost"],
                                                 cost.lost_time_saved(cold["site_loss_time"], t["site_loss_time"]),
                                                 t["site_event_probability"], t["fleet_cost_rate"])
                for name, t in every.items()}}


# --------------------------------------------------------------------------- the plan


def _py(value):
    """numpy scalar -> Python scalar; arrays stay arrays."""
    if isinstance(value, dict):
        return {k: _py(x) for k, x in value.items()}
    if isinstance(value, str) or np.ndim(value):
        return value
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    return float(value)


class _PlanMethods:
    """What every Plan can do; its fields come from :mod:`drmath.quantities`."""

    @functools.cached_property
    def _tiers(self):
        v = self.scenario.flat()
        return _py(_compare_tiers(v, _derive(v)))

    def tier_table(self):
        """Every DR tier side by side: site RTO, slip and cost parts, in SI.

        Returns
        -------
        table : pandas.DataFrame
            One row per tier (its name as the index), one column per per-tier quantity
            (:data:`drmath.quantities.TABLES`), site RPO first.

        Examples
        --------
        >>> t = plan().tier_table()
        >>> list(t.index)[:2], round(float(t.loc["warm", "tier_rto_sites"]) / 3600, 2)
        (['cold', 'pilot-light'], 1.67)
        """
        import pandas as pd

        return pd.DataFrame({name: getattr(self, name) for name in TABLES})

    def explain(self, *names):
        """The worked derivation of one or more quantities, as Markdown with LaTeX.

        Parameters
        ----------
        *names : str
            Quantities of this plan, e.g. ``"rpo_site"``.

        Returns
        -------
        text : Explanation
            The formula, the inputs substituted with units, and the result; a
            ``str`` that Jupyter renders as Markdown.

        Examples
        --------
        >>> print(plan().explain("mtbf").splitlines()[0])
        **Cluster MTBF: 6.33 h**
        """
        if not names:
            raise ValueError("explain() needs at least one quantity, e.g. explain('rpo_site')")
        return Explanation("\n".join(_explain(self, name) for name in names))

    def sweep(self, path, values, outputs=None):
        """This plan's outputs along one of its inputs: :func:`sweep` of the plan's own scenario.

        A view that draws curves around a plan asks the plan for them, so it never plans anything itself.

        Parameters
        ----------
        path : str
            The numeric input to vary, ``section.field``.
        values : array_like
            Its values, each checked against the field's range.
        outputs : sequence of str, optional
            Quantities to return; all scalar ones when omitted.

        Returns
        -------
        curves : Sweep
            Each output, one entry per value.

        Examples
        --------
        >>> p = plan()
        >>> curves = p.sweep("training.gpus", [4096, p.scenario.training.gpus], ["mtbf"])
        >>> float(curves["mtbf"][1]) == p.mtbf
        True
        """
        return sweep(self.scenario, path, values, outputs)

    def warnings(self):
        """What is wrong with this design, in words: each registered warning that holds, by quantity.

        Returns
        -------
        warnings : dict of str to Explanation
            Markdown naming the problem and the input that fixes it; empty when nothing is wrong.

        Examples
        --------
        >>> list(plan(Scenario().with_changes({"training.gpus": 8})).warnings())
        ['state_fits_hbm']
        """
        return {q.name: Explanation(_fill(self, q.note, False).strip())
                for q in QUANTITIES.values() if q.warn is not None and q.warn(self)}

    def format(self, name, digits=3):
        """The human reading of one quantity, e.g. ``"6.31 h"``; ``"collapsed"`` for what a collapsed goodput
        makes meaningless (:data:`COLLAPSED`), so every view shows the word, never a number like 4.2e-48.

        >>> plan(Scenario().with_changes({"training.gpus": 100_000, "failures.launch_time": 86_400.0})).format("ettr")
        'collapsed'
        """
        if name not in PLAN_FIELDS:
            raise ValueError(f"unknown plan field {short_repr(name)}: choose from {', '.join(PLAN_FIELDS)}")
        window = name == "time_to_train" and self.run_driver == "window"  # a window is still the window
        if self.goodput_collapsed and name in COLLAPSED and not window:
            return "collapsed"
        return format_quantity(getattr(self, name), QUANTITIES[name].kind, digits)

    def to_dict(self):
        """Every field in SI, keyed by name; ``inf`` stays ``inf`` (see :meth:`to_json_dict`)."""
        out = {"run_driver": self.run_driver, "checkpoint_interval_floored": self.checkpoint_interval_floored}
        out.update({name: getattr(self, name) for name in SCALARS})
        out.update({name: dict(getattr(self, name)) for name in _DICT_FIELDS})
        return out

    def to_json_dict(self):
        """Like :meth:`to_dict`, but JSON-safe: each ``inf`` becomes ``None`` with
        ``"<field>_unbounded": True`` beside it."""
        out = {}
        for key, value in self.to_dict().items():
            if isinstance(value, dict):
                out[key] = {k: (None if _is_inf(x) else x) for k, x in value.items()}
                unbounded = sorted(k for k, x in value.items() if _is_inf(x))
                if unbounded:
                    out[f"{key}_unbounded"] = unbounded
            elif _is_inf(value):
                out[key] = None
                out[f"{key}_unbounded"] = True
            else:
                out[key] = value
        return out

    def to_series(self):
        """Every scalar quantity in SI as a pandas Series, indexed by name.

        >>> plan().to_series().loc[["checkpoint_size", "ettr", "replication_keeps_up"]]
        quantity
        checkpoint_size         5670000000000.0
        ettr                           0.964534
        replication_keeps_up               True
        Name: value, dtype: object
        """
        import pandas as pd

        series = pd.Series({name: getattr(self, name) for name in SCALARS}, name="value", dtype=object)
        series.index.name = "quantity"
        return series


def _is_inf(value):
    return isinstance(value, float) and math.isinf(value)


for _name in TABLES:  # each per-tier quantity reads the one tier comparison
    setattr(_PlanMethods, _name, property(lambda self, name=_name: self._tiers[name],
                                          doc=f"{QUANTITIES[_name].title}: one value per DR tier. "
                                              f"{QUANTITIES[_name].unit}"))
del _name

_DICT_FIELDS = ("rto_local_phases", "rto_site_phases") + TABLES

Plan = dataclasses.make_dataclass(
    "Plan",
    [("scenario", Scenario), ("run_driver", str), ("checkpoint_interval_floored", bool)]
    + [(name, float) for name in SCALARS] + [("rto_local_phases", dict), ("rto_site_phases", dict)],
    bases=(_PlanMethods,), frozen=True)
Plan.__module__ = __name__
Plan.__doc__ = (
    "Every derived number of a scenario, in SI, with :meth:`explain` for each.\n\n"
    "One field per quantity of :mod:`drmath.quantities` (" + ", ".join(SCALARS) + "), plus the scenario, "
    "``run_driver`` (``'window'`` or ``'tokens'``), ``checkpoint_interval_floored`` and the RTO phases. "
    "``rpo_site`` (and what depends on it) is ``inf`` when replication does not keep up; "
    "``replication_keeps_up`` is then False and ``explain('rpo_site')`` says what would fix it.")


def plan(scenario=None):
    """Derive every number of a scenario.

    Parameters
    ----------
    scenario : Scenario, optional
        The inputs; the seed case when omitted.

    Returns
    -------
    plan : Plan
        Every derived number in SI, with ``explain()``.

    Examples
    --------
    >>> p = plan()
    >>> p.replication_keeps_up, round(p.checkpoint_size / 1e12, 2)
    (True, 5.67)
    """
    scenario = Scenario() if scenario is None else scenario
    if not isinstance(scenario, Scenario):
        raise TypeError(f"plan() needs a Scenario, got {type(scenario).__name__}")
    out = _derive(scenario.flat())
    return Plan(scenario=scenario, **{f.name: _py(out[f.name]) for f in dataclasses.fields(Plan)[1:]})


def explain(*names, of=None):
    """The worked derivation of one or more quantities, as Markdown with LaTeX.

    Parameters
    ----------
    *names : str
        Plan quantities, e.g. ``"rpo_site"`` (``Plan`` lists them).
    of : Plan or Scenario, optional
        Whose numbers: a plan, or a scenario to plan; the seed case when omitted.

    Returns
    -------
    text : Explanation
        The formula, the inputs substituted with units, and the result; a ``str`` that Jupyter renders
        as Markdown. The same as ``plan(of).explain(*names)``.

    Raises
    ------
    ValueError
        If no name is given, or a name is not a plan quantity (the message lists them).

    Examples
    --------
    >>> print(explain("mtbf").splitlines()[0])
    **Cluster MTBF: 6.33 h**
    >>> print(explain("mtbf", of=Scenario().with_changes({"training.gpus": 16_384})).splitlines()[0])
    **Cluster MTBF: 3.09 h**
    """
    if of is not None and not isinstance(of, (Plan, Scenario)):
        raise TypeError(f"explain(of=...) needs a Plan or a Scenario, got {type(of).__name__}")
    return (of if isinstance(of, Plan) else plan(of)).explain(*names)


def formulas(*items, of=None):
    r"""Formulas as the library writes them, for a page to show: Markdown of display math, one per item.

    A notebook never types a formula (DESIGN.md, "Rules of the house"); it shows the library's own string, so
    the page and the number beside it cannot drift apart. ``tests/test_notebook_formulas.py`` holds the pages to it.

    Parameters
    ----------
    *items : str, callable or (callable, str or int)
        A plan quantity (``"rpo_site"``: its registered formula, in the branch the plan ``of`` takes), a formula
        function (its ``tex``), or a function with a variant: a name of its ``tex_variants``, or the index of a
        ``.. math::`` block of its docstring (:func:`drmath._formula.tex_of`). [1]
    of : Plan or Scenario, optional
        Whose branch a quantity's formula shows (sync or async checkpoints, replication keeping up or not); the
        seed case when omitted. [1]

    Returns
    -------
    text : Explanation
        ``$$…$$`` per item, a blank line apart: a ``str`` that Jupyter renders as Markdown. [1]

    Raises
    ------
    ValueError
        If no item is given, a name is not a plan quantity, or a function holds no such formula.

    Examples
    --------
    >>> from drmath import checkpoint
    >>> print(formulas(checkpoint.checkpoint_bytes, (checkpoint.checkpoint_stall, "synchronous")))
    $$S = N\,b$$
    <BLANKLINE>
    $$\delta = W$$
    <BLANKLINE>
    >>> formulas("rpo_local") == formulas(recovery.rpo_local)
    True
    """
    if not items:
        raise ValueError("formulas() needs at least one formula, e.g. formulas(drmath.checkpoint.checkpoint_bytes)")
    p = None
    texts = []
    for item in items:
        if isinstance(item, str):
            if item not in QUANTITIES:
                raise ValueError(f"formulas(): unknown plan quantity {short_repr(item)}: choose from "
                                 f"{', '.join(sorted(QUANTITIES))}")
            if p is None:
                p = of if isinstance(of, Plan) else plan(of)
            texts.append(QUANTITIES[item].tex(p))
        elif isinstance(item, tuple) and len(item) == 2:
            texts.append(tex_of(*item))
        elif callable(item):
            texts.append(tex_of(item))
        else:
            raise ValueError(f"formulas(): {short_repr(item)} is not a quantity name, a formula function or a "
                             "(function, variant) pair")
    return Explanation("\n\n".join(f"$${tex}$$" for tex in texts) + "\n")


# --------------------------------------------------------------------------- sweeps and comparisons


class Sweep(dict):
    """Plan outputs along one input: ``{quantity: ndarray}``, with the input as ``path`` and ``values``."""

    def __init__(self, path, values, curves):
        super().__init__(curves)
        self.path, self.values = path, values

    def to_frame(self):
        """A tidy table: one row per value of the input, one column per quantity (SI).

        >>> s = sweep(Scenario(), "training.gpus", [4096, 8192], ["mtbf"])
        >>> s.to_frame().round(0)
           training.gpus     mtbf
        0         4096.0  44540.0
        1         8192.0  22270.0
        """
        import pandas as pd

        return pd.DataFrame({self.path: self.values, **self})


def sweep(scenario, path, values, outputs=None):
    """Every plan output along one input, in one vectorised pass.

    Parameters
    ----------
    scenario : Scenario
        The base inputs.
    path : str
        The numeric input to vary, ``section.field``.
    values : array_like
        Its values, each checked against the field's range.
    outputs : sequence of str, optional
        Quantities to return; all scalar ones when omitted.

    Returns
    -------
    curves : Sweep
        Each output, one entry per value (a dict of ndarray, with ``to_frame()``).

    Examples
    --------
    >>> curves = sweep(Scenario(), "replication.link_bandwidth", [1e9, 1e10], ["rpo_site"])
    >>> curves["rpo_site"].shape
    (2,)
    """
    _split(path)
    info = FIELDS[path]
    if info.choices is not None or info.kind == "flag":
        raise ValueError(f"{path} is a choice, not a number: compare plans per choice instead of sweeping")
    arr = np.asarray(values, dtype=float)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"values for {path} must be a non-empty 1-D array, got shape {arr.shape}")
    for x in (arr.min(), arr.max()) if np.isfinite(arr).all() else arr[~np.isfinite(arr)][:1]:
        info.coerce(float(x))
    if info.integer and not np.all(arr == np.round(arr)):
        raise ValueError(f"{path} values must be whole numbers: must be {info.range_text()}")
    names = list(SCALARS) if outputs is None else list(outputs)
    for name in names:
        if name not in PLAN_FIELDS:
            raise ValueError(f"unknown plan field {short_repr(name)}: choose from {', '.join(PLAN_FIELDS)}")
    v = scenario.flat()
    v[path] = arr
    derived = _derive(v)
    return Sweep(path, arr, {name: _along(derived[name], arr) for name in names})


def _along(value, values):
    """One output along the sweep: its own array, or a constant repeated where it does not depend on the input."""
    value = np.asarray(value, dtype=float)
    if value.shape != values.shape:
        return np.full(values.shape, value)
    return value.copy() if np.shares_memory(value, values) else value  # never the swept values themselves


def compare(plans, names=None, fields=None):
    """Plans side by side: one row per quantity, one column per plan (SI values).

    Parameters
    ----------
    plans : sequence of Plan
        The plans; the first is the baseline.
    names : sequence of str, optional
        Column names; ``plan 1``, ``plan 2`` … when omitted.
    fields : sequence of str, optional
        Quantities; :data:`drmath.quantities.COMPARED` when omitted.

    Returns
    -------
    table : pandas.DataFrame
        Indexed by quantity, with a ``title`` column, then one column per plan.

    Examples
    --------
    >>> small = plan(Scenario().with_changes({"training.gpus": 4096}))
    >>> compare([plan(), small], ["8K", "4K"], ["mtbf", "rpo_site"]).round(0)  # doctest: +NORMALIZE_WHITESPACE
                         title       8K       4K
    quantity
    mtbf          Cluster MTBF  22805.0  44540.0
    rpo_site  Site RPO (worst)   4275.0   4400.0
    """
    import pandas as pd

    from .quantities import COMPARED

    plans = list(plans)
    if not plans or not all(isinstance(p, Plan) for p in plans):
        raise ValueError("compare() needs one or more Plans")
    names = [f"plan {i + 1}" for i in range(len(plans))] if names is None else list(names)
    if len(names) != len(plans) or len(set(names)) != len(names):
        raise ValueError(f"compare() needs one distinct name per plan, got {len(names)} for {len(plans)} plans")
    fields = list(COMPARED if fields is None else fields)
    for name in fields:
        if name not in PLAN_FIELDS:
            raise ValueError(f"unknown plan field {short_repr(name)}: choose from {', '.join(PLAN_FIELDS)}")
    table = pd.DataFrame({"title": [PLAN_FIELDS[f][1] for f in fields],
                          **{n: [getattr(p, f) for f in fields] for n, p in zip(names, plans)}},
                         index=pd.Index(fields, name="quantity"))
    return table
