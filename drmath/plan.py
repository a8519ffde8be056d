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
registered formula with this plan's numbers substituted.
"""

import dataclasses
import functools
import math
import re

import numpy as np

from . import checkpoint, cost, presets, recovery, reliability, replication, training
from ._validate import short_repr
from .formatting import markdown_text
from .quantities import _TARGETS, PLAN_FIELDS, QUANTITIES, SCALARS, TABLES
from .scenario import FIELDS, SECTIONS, Scenario, _split
from .units import format_quantity

__all__ = ["Plan", "plan", "sweep", "Sweep", "compare", "Explanation", "STEPS", "solve", "Solution", "SEARCHED",
           "DEFAULT_GRID"]


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
    stall = checkpoint.checkpoint_stall(write, shard, v["checkpoint.host_copy_bandwidth"],
                                        v["checkpoint.mode"] == "async")
    load = checkpoint.checkpoint_load_time(size, v["checkpoint.read_bandwidth"], v["training.gpus"],
                                           v["checkpoint.per_writer_bandwidth"])
    state = checkpoint.checkpoint_bytes(v["training.params"], v["training.state_bytes_per_param"])
    return dict(checkpoint_size=size, shard_size=shard, checkpoint_write_time=write, checkpoint_stall=stall,
                checkpoint_load_time=load, checkpoint_interval_floor=checkpoint.checkpoint_interval_floor(write, stall),
                state_per_gpu=checkpoint.shard_bytes(state, v["training.gpus"]),
                state_fits_hbm=checkpoint.state_fits_hbm(state, v["training.gpus"], v["training.hbm_per_gpu"]),
                min_gpus_for_state=checkpoint.min_gpus_for_state(state, v["training.hbm_per_gpu"]))


def cadence_step(v, out):
    """Failures, the local recovery, the checkpoint interval and ETTR."""
    measured = v["failures.measured_mtbf"]
    if measured is None:
        mtbf = reliability.cluster_mtbf(v["training.gpus"], v["failures.gpu_failure_rate"])
    else:
        mtbf = measured
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
    return dict(mtbf=mtbf, rto_local_phases=phases, rto_local=u0, restart_overhead=u0,
                young_interval=reliability.young_interval(stall, mtbf), daly_interval=daly, optimal_interval=optimal,
                checkpoint_interval=tau, checkpoint_interval_floored=chosen < floor,
                checkpoint_bandwidth_share=share, checkpoint_storage_saturated=checkpoint.storage_saturated(share),
                ettr=ettr, ettr_first_order=reliability.ettr(tau, stall, u0, mtbf),
                ettr_ceiling=reliability.ettr_ceiling(u0, mtbf),
                goodput_collapsed=reliability.goodput_collapsed(ettr, u0, mtbf),
                availability_interval=reliability.availability_interval(stall, u0, mtbf))


def training_step(v, out):
    """Compute, and the run's length or its tokens (whichever the scenario does not set)."""
    params, k = v["training.params"], v["training.flops_per_param_token"]
    cluster = (v["training.gpus"], v["training.peak_flop_rate"], v["training.mfu"])
    ettr = out["ettr"]
    if v["training.tokens"] is None:
        run = v["training.window"] * np.ones_like(ettr)
        tokens = training.tokens_in_window(params, run, *cluster, ettr, k)
    else:
        tokens = v["training.tokens"] * np.ones_like(ettr)
        run = training.time_to_train(params, tokens, *cluster, ettr, k)
    return dict(run_driver="window" if v["training.tokens"] is None else "tokens",
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
    interval = k * tau
    upload = replication.transfer_time(size, v["replication.object_store_bandwidth"], compression=compression)
    link = replication.transfer_time(size, v["replication.link_bandwidth"], efficiency, latency, compression)
    hops = [upload, link]  # in the order of replication.HOPS
    t_rep = replication.chain_time(hops, v["replication.streamed"])  # a copy is off-site after every hop
    cycle = replication.pipeline_cycle(hops)  # one copy per slowest hop
    upload_keeps_up = replication.replication_keeps_up(upload, interval)
    rpo_site = functools.partial(recovery.rpo_site_pipeline, interval, write, t_rep, cycle,
                                 v["replication.policy"] == "newest")
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
                rpo_local=recovery.rpo_local(tau, write),
                rpo_local_expected=recovery.rpo_local(tau, write, expected=True),
                rpo_site=rpo_site(expected=False), rpo_site_expected=rpo_site(expected=True))


def failover_step(v, out):
    """The site failover of the scenario's DR tier: its phases, standby and schedule slip."""
    tier = presets.DR_TIERS[v["failover.tier"]]
    fraction = tier.standby_fraction if v["failover.standby_fraction"] is None else v["failover.standby_fraction"]
    size = out["checkpoint_size"]
    staging = 0.0 if tier.lands_on_standby else replication.transfer_time(size, v["failover.staging_bandwidth"])
    standby_load = checkpoint.checkpoint_load_time(size, v["checkpoint.read_bandwidth"], fraction * v["training.gpus"],
                                                   v["checkpoint.per_writer_bandwidth"])  # the standby's own GPUs
    phases = recovery.site_rto_phases(v["failover.detection_time"],
                                      0.0 if tier.automatic else v["failover.decision_time"], tier.readiness, staging,
                                      v["failures.launch_time"], standby_load, v["failures.validation_time"])
    return dict(rto_site_phases=phases, rto_site=recovery.rto(phases), standby_fraction=fraction,
                standby_gpus=fraction * v["training.gpus"],
                schedule_slip=recovery.resume_slip(recovery.expected_remaining_run(out["time_to_train"]), fraction,
                                                   tier.rebuild_time))


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
    standby = cost.standby_cost(out["standby_gpus"], run, v["cost.gpu_hour_price"], tier.reserved_share)
    lost = out["rpo_site_expected"] + out["rto_site"] + out["schedule_slip"]
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
    """Each target met or missed: its margin (target − value, inf when unset) and whether all are met."""
    margins = {}
    for path, value, name, *_ in _TARGETS:
        reached = np.asarray(out[value], dtype=float)
        margins[name] = np.full(reached.shape, np.inf) if v[path] is None else v[path] - reached
    return dict(margins, meets_requirements=np.logical_and.reduce(
        np.broadcast_arrays(*(m >= 0 for m in margins.values()))))


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
        for step_name, step in STEPS:
            if step_name in _TIER_STEPS:
                tier_out.update(step(tier_v, tier_out))
        every[name] = tier_out
    cold = every["cold"]

    def each(output):
        return {name: t[output] for name, t in every.items()}

    return {"tier_rto_sites": each("rto_site"), "tier_schedule_slips": each("schedule_slip"),
            "tier_standby_costs": each("standby_cost"),
            "tier_link_costs": {name: t["replication_cost"] + t["cross_site_cost"] for name, t in every.items()},
            "tier_disaster_losses": each("expected_disaster_loss"), "tier_total_costs": each("total_dr_cost"),
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
            (:data:`drmath.quantities.TABLES`), plus ``rpo_site`` [s] (the same for every tier:
            replication does not depend on the tier).

        Examples
        --------
        >>> t = plan().tier_table()
        >>> list(t.index)[:2], round(float(t.loc["warm", "tier_rto_sites"]) / 3600, 2)
        (['cold', 'pilot-light'], 1.67)
        """
        import pandas as pd

        table = pd.DataFrame({name: getattr(self, name) for name in TABLES})
        table.insert(0, "rpo_site", self.rpo_site)
        return table

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
        """The human reading of one quantity, e.g. ``"6.31 h"``."""
        if name not in PLAN_FIELDS:
            raise ValueError(f"unknown plan field {short_repr(name)}: choose from {', '.join(PLAN_FIELDS)}")
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


# --------------------------------------------------------------------------- explain


class Explanation(str):
    """A worked derivation: Markdown with LaTeX, rendered as Markdown by Jupyter."""

    def _repr_markdown_(self):
        return str(self)


_PLACEHOLDER = re.compile(r"<([a-z_][a-z0-9_]*(?:\.[a-z0-9_]+)?)(?:\|([a-z_]+))?>")


def _lookup(p, key):
    """The value and kind of a placeholder: a quantity, an input, a phase or the tier's preset."""
    head, _, rest = key.partition(".")
    if head == "tier":
        return getattr(presets.DR_TIERS[p.scenario.failover.tier], rest), "plain"
    if head in SECTIONS:
        return p.scenario.get(key), FIELDS[key].kind
    if rest:
        return getattr(p, head)[rest], "duration"
    return getattr(p, key), QUANTITIES[key].kind


def _text(p, key, kind):
    value, own = _lookup(p, key)
    return f"{value:g}" if kind == "g" else format_quantity(value, kind or own)


def _tex_text(text):
    escaped = text.replace("\\", r"\\").replace("$", r"\$").replace("%", r"\%").replace("#", r"\#")
    return r"\text{" + escaped.replace(",", "{,}") + "}"


def _fill(p, template, tex):
    """A registry template with this plan's numbers in place of its placeholders."""
    if callable(template):
        template = template(p)
    if not template:
        return template

    def one(match):
        text = _text(p, match.group(1), match.group(2))
        return _tex_text(text) if tex else markdown_text(text)  # "$" outside math is money, not TeX

    return _PLACEHOLDER.sub(one, template)


def _explain(p, name):
    if name in ("rto_local_phases", "rto_site_phases"):
        name = name.removesuffix("_phases")
    if name not in QUANTITIES:
        known = ", ".join(sorted(set(QUANTITIES) | {"rto_local_phases", "rto_site_phases"}))
        raise ValueError(f"unknown plan field {short_repr(name)}: choose from {known}")
    q = QUANTITIES[name]
    formula, note = _fill(p, q.formula, True), _fill(p, q.note, False)
    if q.table:
        values = getattr(p, name)
        baseline = name == "break_even_delay_costs"  # against cold, so cold itself is the baseline
        rows = "\n".join(f"| {presets.DR_TIERS[k].label} | "
                         f"{'baseline' if baseline and k == 'cold' else markdown_text(format_quantity(x, q.kind))} |"
                         for k, x in values.items())
        text = f"**{q.title}**\n\n$${formula}$$\n\n| tier | {q.short} |\n|---|---|\n{rows}\n"
        return text + (f"\n{note}\n" if note else "")
    result = p.format(name)
    substitution = _fill(p, q.substitution, True)
    line = f"{substitution} = {_tex_text(result)}" if substitution else _tex_text(result)
    text = f"**{q.title}: {markdown_text(result)}**\n\n$${formula}$$\n\n$$= {line}$$\n"
    return text + (f"\n{note}\n" if note else "")



# --------------------------------------------------------------------------- the inverse problem

SEARCHED = ("failover.tier", "replication.link_bandwidth", "replication.interval", "checkpoint.interval",
            "failover.standby_fraction")
"""The inputs :func:`solve` searches: the DR tier and the four levers each tier is tuned with."""

_GBIT = 1e9 / 8  # [B/s] per Gbit/s
_MIN = 60.0  # [s]

DEFAULT_GRID = {
    "replication.link_bandwidth": tuple(g * _GBIT for g in (10, 20, 40, 100, 200, 400, 800, 1200, 1600, 3200)),
    "replication.interval": tuple(m * _MIN for m in (5, 10, 15, 20, 30, 45, 60, 120, 240, 480)),
    "checkpoint.interval": (None,) + tuple(m * _MIN for m in (1, 2, 5, 10, 15, 30, 60)),
    "failover.standby_fraction": (None, 0.25, 0.5, 0.75, 1.0),
}
"""What :func:`solve` tries for each numeric lever; None is the field unset (Daly's optimum, the tier's own size).
Link sizes are whole ports or bundles of them (10 to 3,200 Gbit/s), cadences from minutes to hours."""


@dataclasses.dataclass(frozen=True)
class Solution:
    """What :func:`solve` found: the design, its plan, each target met or not, the Pareto front and why the
    cheaper tiers fail."""

    scenario: Scenario  #: the design: the input scenario with the searched levers set
    plan: "Plan"  #: its plan
    feasible: bool  #: whether it meets every target
    meets: dict  #: ``{requirement path: met}`` for each set target
    changes: dict  #: ``{path: value}`` of the searched levers (None: unset)
    front: object  #: pandas DataFrame, cheapest first: the Pareto front of total cost of resilience against site RPO
    #: and site RTO over every searched design (the levers of :data:`SEARCHED`, NaN where a lever is unset, then
    #: total_cost_of_resilience, total_dr_cost, rpo_site, rto_site, meets_requirements; SI)
    reasons: dict  #: ``{tier: why}`` for every other tier: the target it cannot meet, or what it costs
    message: str  #: one paragraph: the answer, or the closest design and what it would take
    searched: int  #: grid points evaluated

    def set_flags(self):
        """The design as ``--set section.field=value`` arguments (readable units, exact values).

        >>> s = Scenario().with_changes({"requirements.rto_site": 14_400.0})
        >>> solve(s).set_flags()[0]
        'failover.tier=multi-site'
        """
        return [f"{path}={_flag_text(path, value)}" for path, value in self.changes.items()]


def _flag_text(path, value):
    """A value as text that reads back to exactly the same number (units where they are exact)."""
    from .scenario_io import parse_value

    if value is None:
        return "unset"
    if isinstance(value, str):
        return value
    candidates = []
    if FIELDS[path].unit == "[B/s]":
        candidates.append(f"{value / _GBIT:g} Gbps")
    if FIELDS[path].unit == "[s]":
        candidates += [f"{value / 3600:g} h", f"{value / _MIN:g} min"]
    for text in candidates:
        if parse_value(path, text) == value:
            return text
    return repr(float(value))


def _pareto(cost_, rpo, rto):
    """Indices of the points no other point dominates (lower or equal on all three, lower on one)."""
    order = np.lexsort((rto, rpo, cost_))  # a dominating point always sorts strictly earlier
    keys = np.stack([cost_[order], rpo[order], rto[order]], axis=1)
    keep_unique = np.ones(len(order), dtype=bool)
    keep_unique[1:] = np.any(keys[1:] != keys[:-1], axis=1)  # equal points: keep one
    dominated = np.zeros(len(order), dtype=bool)
    r, t = rpo[order], rto[order]
    for level in np.unique(t):
        seen = np.where(t <= level, r, np.inf)
        before = np.concatenate([[np.inf], np.minimum.accumulate(seen)[:-1]])  # best RPO earlier, RTO <= level
        at = t == level
        dominated[at] |= before[at] <= r[at]
    return order[keep_unique & ~dominated]


def _grid_points(base, grid):
    """The flat lever arrays of the grid (one entry per point), validated against the fields' ranges."""
    axes = []
    for path, values in grid.items():
        info = FIELDS[path]
        numbers = []
        for x in values:
            if x is not None:
                info.coerce(float(x))
            elif not info.optional:
                raise ValueError(f"solve() grid for {path}: None is allowed only for optional fields")
            numbers.append(np.nan if x is None else float(x))
        if not numbers:
            raise ValueError(f"solve() grid for {path} is empty")
        axes.append(np.asarray(numbers))
    mesh = np.meshgrid(*axes, indexing="ij")
    return {path: m.ravel() for path, m in zip(grid, mesh)}


_TARGET_LABELS = {path: label for path, _, _, label, *_ in _TARGETS}


def solve(scenario=None, tiers=None, grid=None):
    """The cheapest design that meets every requirement, and the Pareto front of cost against site RPO and RTO.

    Searches the DR tier, the replication link's bandwidth, the replication interval, the checkpoint interval
    and the standby size (:data:`SEARCHED`) over a grid, every point through the same steps as :func:`plan`,
    vectorised: one pass per tier. The objective is ``total_cost_of_resilience`` (total DR cost + the goodput
    the cadences cost); the link is priced by its bandwidth (``cost.link_hour_price`` is unset in every
    design, since the search moves the bandwidth).

    Parameters
    ----------
    scenario : Scenario, optional
        The inputs, with the targets in its ``requirements`` section; the seed case when omitted.
    tiers : sequence of str, optional
        DR tiers to search; all of :data:`drmath.presets.DR_TIERS` when omitted.
    grid : mapping of str to sequence, optional
        Values to try per numeric lever (None: the field unset); :data:`DEFAULT_GRID` for the rest.

    Returns
    -------
    solution : Solution
        The design (or, when nothing meets every target, the closest one), its plan, ``meets``, the front as
        a DataFrame, the reason each other tier loses, and a one-paragraph message.

    Examples
    --------
    >>> s = Scenario().with_changes({"requirements.rpo_site": 900.0, "requirements.rto_site": 14_400.0})
    >>> solution = solve(s)
    >>> solution.feasible, solution.meets
    (True, {'requirements.rpo_site': True, 'requirements.rto_site': True})
    >>> solution.plan.rpo_site <= 900.0 and solution.plan.rto_site <= 14_400.0
    True
    """
    import pandas as pd

    scenario = Scenario() if scenario is None else scenario
    if not isinstance(scenario, Scenario):
        raise TypeError(f"solve() needs a Scenario, got {type(scenario).__name__}")
    tiers = list(presets.DR_TIERS) if tiers is None else list(tiers)
    if not tiers:
        raise ValueError("solve() needs at least one DR tier")
    for name in tiers:
        FIELDS["failover.tier"].coerce(name)
    grid = {**DEFAULT_GRID, **({} if grid is None else dict(grid))}
    for path in grid:
        if path not in SEARCHED[1:]:
            raise ValueError(f"solve() searches {', '.join(SEARCHED[1:])}; got {short_repr(path)}")
    base = scenario.with_changes({"cost.link_hour_price": None})
    points = _grid_points(base, grid)
    optimum = plan(base.with_changes({"checkpoint.interval": None})).optimal_interval
    columns = {path: [] for path in SEARCHED}
    wanted = tuple(dict.fromkeys(("total_cost_of_resilience", "total_dr_cost", "rpo_site", "rto_site",
                                  "meets_requirements", *(t[2] for t in _TARGETS), *(t[1] for t in _TARGETS))))
    results = {name: [] for name in wanted}
    for tier in tiers:
        v = base.flat()
        v["failover.tier"] = tier
        own = presets.DR_TIERS[tier].standby_fraction
        tier_points = dict(points)
        if presets.DR_TIERS[tier].sites > 1:  # the standby is the other site training beside it: its size is the tier's
            tier_points["failover.standby_fraction"] = np.full_like(points["failover.standby_fraction"], np.nan)
        for path, values in tier_points.items():
            fill = optimum if path == "checkpoint.interval" else own
            v[path] = np.where(np.isnan(values), fill, values)
        out = _derive(v)
        n = len(next(iter(points.values())))
        for name in wanted:
            results[name].append(np.broadcast_to(np.asarray(out[name], dtype=float), (n,)))
        columns["failover.tier"].append(np.full(n, tier, dtype=object))
        for path, values in tier_points.items():
            columns[path].append(values)
    table = pd.DataFrame({**{path: np.concatenate(c) for path, c in columns.items()},
                          **{name: np.concatenate(r) for name, r in results.items()}})
    table["meets_requirements"] = table["meets_requirements"].astype(bool)
    cost_ = table["total_cost_of_resilience"].to_numpy()
    margins = table[[t[2] for t in _TARGETS]].to_numpy()
    feasible = bool(table["meets_requirements"].any())
    if feasible:
        best = int(np.flatnonzero(table["meets_requirements"])[np.argmin(cost_[table["meets_requirements"]])])
    else:
        best = _closest(scenario, margins, cost_)
    row = table.iloc[best]
    changes = {path: (None if isinstance(row[path], float) and np.isnan(row[path]) else
                      (row[path] if path == "failover.tier" else float(row[path]))) for path in SEARCHED}
    if scenario.cost.link_hour_price is not None:
        changes["cost.link_hour_price"] = None
    design = scenario.with_changes(changes)
    result = plan(design)
    front = table.iloc[_pareto(cost_, table["rpo_site"].to_numpy(), table["rto_site"].to_numpy())]
    front = front[list(SEARCHED) + ["total_cost_of_resilience", "total_dr_cost", "rpo_site", "rto_site",
                                    "meets_requirements"]].sort_values("total_cost_of_resilience")
    reasons = _reasons(scenario, table, tiers, row["failover.tier"], cost_[best] if feasible else None)
    meets = {path: bool(getattr(result, name) >= 0) for path, _, name, *_ in _TARGETS
             if scenario.get(path) is not None}
    message = (_answer(result, design) if feasible else _shortfall(scenario, table, margins, result))
    return Solution(scenario=design, plan=result, feasible=feasible, meets=meets, changes=changes,
                    front=front.reset_index(drop=True), reasons=reasons, message=message, searched=len(table))


def _closest(scenario, margins, cost_):
    """The point whose worst relative shortfall over the set targets is smallest."""
    scale = np.array([max(scenario.get(path) or 0.0, _MIN) for path, *_ in _TARGETS])
    shortfall = np.max(np.maximum(-margins, 0.0) / scale, axis=1)
    return int(np.lexsort((cost_, shortfall))[0])  # the smallest shortfall; the cheapest of those


def _fmt(value, kind="duration"):
    return format_quantity(value, kind)


def _answer(p, design):
    tier = presets.DR_TIERS[design.failover.tier]
    targets = "; ".join(f"{_TARGET_LABELS[path]} {_fmt(getattr(p, value))} ≤ {_fmt(design.get(path))}"
                        for path, value, *_ in _TARGETS if design.get(path) is not None)
    link = _fmt(design.replication.link_bandwidth / _GBIT, "plain")
    return (f"Cheapest design meeting every target: {tier.label}, a {link} Gbit/s link, "
            f"off-site copies every {_fmt(p.replication_interval)}, checkpoints every "
            f"{_fmt(p.checkpoint_interval)}, standby {_fmt(p.standby_fraction, 'fraction')} of the primary. "
            f"Total cost of resilience {_fmt(p.total_cost_of_resilience, 'usd')} "
            f"(DR {_fmt(p.total_dr_cost, 'usd')} + goodput lost {_fmt(p.goodput_lost_cost, 'usd')})"
            + (f"; {targets}." if targets else "; no targets set."))


def _shortfall(scenario, table, margins, p):
    """Which target is closest to being met, and what meeting each missed target would take."""
    parts = []
    for path, value, _, label, _, levers in _TARGETS:
        target = scenario.get(path)
        if target is None:
            continue
        reach = float(table[value].min())
        if reach > target:
            parts.append(f"{label}: no searched design reaches {_fmt(target)} (the best is {_fmt(reach)}); it would "
                         f"take relaxing {path} to {_fmt(reach)}, or {levers} beyond what the search moves")
    missed = {label: -getattr(p, name) for path, _, name, label, *_ in _TARGETS
              if scenario.get(path) is not None and getattr(p, name) < 0}
    closest = ", ".join(f"{label} by {_fmt(by)}" for label, by in missed.items()) or "nothing"
    head = ("No searched design meets every target. The closest "
            f"({presets.DR_TIERS[p.scenario.failover.tier].label}) misses {closest}.")
    if not parts:
        parts.append("each target alone can be met, but no design meets them all at once: relax one of them")
    return head + " " + "; ".join(parts) + "."


def _reasons(scenario, table, tiers, chosen, best_cost):
    """For every tier but the chosen one: the target it cannot meet, or what its cheapest passing design costs."""
    reasons = {}
    for tier in tiers:
        if tier == chosen:
            continue
        rows = table[table["failover.tier"] == tier]
        ok = rows[rows["meets_requirements"]]
        if len(ok):
            cheapest = float(ok["total_cost_of_resilience"].min())
            more = "" if best_cost is None else f", {_fmt(cheapest - best_cost, 'usd')} more"
            reasons[tier] = f"meets every target, at best for {_fmt(cheapest, 'usd')}{more}"
            continue
        missed = []
        for path, value, _, label, *_ in _TARGETS:
            target = scenario.get(path)
            if target is not None and float(rows[value].min()) > target:
                missed.append(f"{label} at best {_fmt(float(rows[value].min()))} > {_fmt(target)}")
        reasons[tier] = ("; ".join(missed) if missed
                         else "no design of this tier meets every target at once")
    return reasons
