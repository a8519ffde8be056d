r"""Worked derivations of every Plan field: formula, inputs substituted, result.

This is the single text that notebooks, the dashboard, the CLI and reports
show for a number. It substitutes the plan's own values into each formula; it
computes nothing new.
"""

from .presets import DR_TIERS
from .recovery import LOCAL_PHASES, SITE_PHASES
from .units import format_quantity

def _tex(text):
    return text.replace("\\", r"\\").replace("$", r"\$").replace("%", r"\%").replace("#", r"\#").replace(",", "{,}")


def q(value, kind, digits=3):
    """A quantity as LaTeX text: ``\\text{6.31 h}``."""
    return r"\text{" + _tex(format_quantity(value, kind, digits)) + "}"


def _block(title, formula, substitution, result, note=""):
    text = f"**{title}: {result}**\n\n$${formula}$$\n\n$$= {substitution}$$\n"
    if note:
        text += f"\n{note}\n"
    return text


def _phases(phases, order):
    return " + ".join(q(phases[name], "duration") for name in order)


def explain(p, name):
    """Worked derivation of plan field ``name`` as Markdown with LaTeX."""
    from .scenario import PLAN_FIELDS

    s = p.scenario
    t, c, r, f, fo, co = s.training, s.checkpoint, s.replication, s.failures, s.failover, s.cost
    tier = DR_TIERS[fo.tier]

    def result(field):
        kind, _ = PLAN_FIELDS[field]
        return format_quantity(getattr(p, field), kind)

    def R(field):
        return q(getattr(p, field), PLAN_FIELDS[field][0])

    def title(field):
        return PLAN_FIELDS[field][1]

    k_flop = f"{t.flops_per_param_token:g}"
    N, G = q(t.params, "count"), q(t.gpus, "count")
    P, mfu = q(t.peak_flop_rate, "flop_rate"), q(t.mfu, "fraction")

    entries = {
        "training_flops": (r"C = k\,N\,D", rf"{k_flop} \times {N} \times {R('tokens')} = {R('training_flops')}",
                           "Kaplan et al. 2020 §2.1 (k = 6; 8 with full recomputation, Narayanan et al. 2021)."),
        "compute_time": (r"T_c = \frac{C}{G\,P\,\mathrm{MFU}}",
                         rf"\frac{{{R('training_flops')}}}{{{G} \times {P} \times {mfu}}} = {R('compute_time')}",
                         "Pure compute, before failures (ETTR = 1)."),
        "gpu_hours": (r"H = G\,T / 3600", rf"{G} \times {R('time_to_train')} = {R('gpu_hours')}", ""),
        "run_cost": (r"C_{run} = p\,H", rf"{q(co.gpu_hour_price, 'usd')} \times {R('gpu_hours')} = {R('run_cost')}",
                     "Price: cost.gpu_hour_price."),
        "checkpoint_size": (r"S = N\,b", rf"{N} \times \text{{{c.bytes_per_param:g} B}} = {R('checkpoint_size')}",
                            "b = 14 B/param: bf16 weights + fp32 master, Adam m and v (ZeRO §3.1 accounting)."),
        "shard_size": (r"s = S / G", rf"{R('checkpoint_size')} / {G} = {R('shard_size')}",
                       "Every GPU writes its own shard (Llama 3: 1 MB to 4 GB per GPU)."),
        "checkpoint_write_time": (
            r"W = \frac{S}{\min(B_w,\; G\,b_w)}",
            rf"\frac{{{R('checkpoint_size')}}}{{\min({q(c.write_bandwidth, 'bandwidth')},\; {G} \times "
            rf"{q(c.per_writer_bandwidth, 'bandwidth')})}} = {R('checkpoint_write_time')}",
            "A checkpoint is not durable until this persist ends."),
        "checkpoint_stall": (
            (r"\delta = s / b_h", rf"{R('shard_size')} / {q(c.host_copy_bandwidth, 'bandwidth')} = {R('checkpoint_stall')}",
             "Asynchronous: training stalls only for the copy to host memory; the persist runs behind it.")
            if c.mode == "async" else
            (r"\delta = W", rf"{R('checkpoint_write_time')}", "Synchronous: training waits for the whole persist.")),
        "checkpoint_load_time": (r"L = S / B_r",
                                 rf"{R('checkpoint_size')} / {q(c.read_bandwidth, 'bandwidth')} = {R('checkpoint_load_time')}", ""),
        "checkpoint_interval_floor": (r"\tau_{min} = \max(W, \delta)",
                                      rf"\max({R('checkpoint_write_time')}, {R('checkpoint_stall')}) = {R('checkpoint_interval_floor')}",
                                      "A checkpoint cannot start before the previous one is durable."),
        "checkpoint_bandwidth_share": (
            r"u_{fs} = \frac{S/\tau}{B_w}",
            rf"\frac{{{R('checkpoint_size')} / {R('checkpoint_interval')}}}{{{q(c.write_bandwidth, 'bandwidth')}}} = {R('checkpoint_bandwidth_share')}",
            "The rest of the filesystem's bandwidth is left for data loading."),
        "mtbf": (r"M = \frac{1}{G\,\lambda}",
                 rf"\frac{{1}}{{{G} \times {q(f.gpu_failure_rate, 'rate')}}} = {R('mtbf')}",
                 "Poisson interruptions; λ per GPU (Llama 3: 419 in 54 days on 16,384 GPUs). "
                 "Calibrated at ≥ 4K GPUs (Kokolis et al. 2024)."),
        "expected_interruptions": (r"E[n] = T / M", rf"{R('time_to_train')} / {R('mtbf')} = {R('expected_interruptions')}", ""),
        "young_interval": (r"\tau_Y = \sqrt{2\,\delta\,M}",
                           rf"\sqrt{{2 \times {R('checkpoint_stall')} \times {R('mtbf')}}} = {R('young_interval')}",
                           "Young 1974."),
        "daly_interval": (
            r"\tau_D = \sqrt{2\delta M}\left[1 + \tfrac{1}{3}\sqrt{\tfrac{\delta}{2M}} + \tfrac{1}{9}\tfrac{\delta}{2M}\right] - \delta",
            rf"\text{{with }} \delta = {R('checkpoint_stall')},\ M = {R('mtbf')}:\ {R('daly_interval')}",
            "Daly 2006, eq. 37 (M when δ ≥ 2M)."),
        "optimal_interval": (r"\tau^* = \max(\tau_D, \tau_{min})",
                             rf"\max({R('daly_interval')}, {R('checkpoint_interval_floor')}) = {R('optimal_interval')}", ""),
        "restart_overhead": (r"u_0 = \mathrm{RTO}_{local}", rf"{R('rto_local')}",
                             "The restart overhead of ETTR is the local recovery time, checkpoint load included."),
        "ettr": (r"\mathrm{ETTR} = \frac{1 - (u_0 + \tau/2)/M}{1 + \delta/\tau}",
                 rf"\frac{{1 - ({R('restart_overhead')} + {R('checkpoint_interval')}/2) / {R('mtbf')}}}"
                 rf"{{1 + {R('checkpoint_stall')} / {R('checkpoint_interval')}}} = {R('ettr')}",
                 "Kokolis et al. 2024, E[ETTR]; valid for δ, u₀ ≪ M."),
        "replication_every": (r"k = \max\left(1, \lceil T_{rep} / \tau \rceil\right)",
                              rf"\lceil {q(r.interval, 'duration')} / {R('checkpoint_interval')} \rceil = {R('replication_every')}",
                              "Every k-th checkpoint goes off-site."),
        "replication_interval": (r"k\,\tau", rf"{R('replication_every')} \times {R('checkpoint_interval')} = {R('replication_interval')}", ""),
        "object_store_time": (r"t_{os} = \frac{S / c}{B_{os}}",
                              rf"\frac{{{R('checkpoint_size')} / {r.compression:g}}}{{{q(r.object_store_bandwidth, 'bandwidth')}}} = {R('object_store_time')}",
                              "Parallel filesystem → the site's object store."),
        "link_time": (r"t_{link} = \ell + \frac{S / c}{B\,\eta}",
                      rf"{q(r.latency, 'duration')} + \frac{{{R('checkpoint_size')} / {r.compression:g}}}"
                      rf"{{{q(r.link_bandwidth, 'bandwidth')} \times {q(r.efficiency, 'fraction')}}} = {R('link_time')}",
                      "Site object store → remote site."),
        "replication_time": (
            (r"t_{rep} = \max(t_{os}, t_{link})" if r.streamed else r"t_{rep} = t_{os} + t_{link}"),
            rf"{'max' if r.streamed else ''}({R('object_store_time')} {',' if r.streamed else '+'} {R('link_time')}) = {R('replication_time')}",
            "Streamed: the slowest hop sets the pace." if r.streamed else "Store-and-forward: each hop waits for the whole checkpoint."),
        "replication_utilization": (r"\rho = \frac{t_{rep}}{k\,\tau}",
                                    rf"{R('replication_time')} / {R('replication_interval')} = {R('replication_utilization')}",
                                    "Above 100% the backlog grows through the run."),
        "replication_keeps_up": (r"t_{rep} \le k\,\tau",
                                 rf"{R('replication_time')} \le {R('replication_interval')}:\ \text{{{'yes' if p.replication_keeps_up else 'no'}}}", ""),
        "replication_bandwidth_needed": (
            r"B_{min} = \frac{S / c}{\eta\,(k\tau - \ell - t_{os})}" if not r.streamed else r"B_{min} = \frac{S / c}{\eta\,(k\tau - \ell)}",
            rf"{R('replication_bandwidth_needed')}", "The link line rate at which replication just keeps up."),
        "rpo_local": (r"\mathrm{RPO}_{local} = \tau + W",
                      rf"{R('checkpoint_interval')} + {R('checkpoint_write_time')} = {R('rpo_local')}",
                      f"Worst case: the failure lands just before the next checkpoint is durable. "
                      f"Expected loss τ/2 + W = {p.format('rpo_local_expected')}."),
        "rpo_local_expected": (r"E[\mathrm{loss}_{local}] = \tau/2 + W",
                               rf"{R('checkpoint_interval')}/2 + {R('checkpoint_write_time')} = {R('rpo_local_expected')}", ""),
        "rto_local": (r"\mathrm{RTO}_{local} = t_{det} + t_{resched} + t_{launch} + L + t_{val}",
                      rf"{_phases(p.rto_local_phases, LOCAL_PHASES)} = {R('rto_local')}",
                      "Phases: " + ", ".join(LOCAL_PHASES) + "."),
        "rto_site": (r"\mathrm{RTO}_{site} = t_{det} + t_{dec} + t_{ready} + t_{stage} + t_{launch} + L + t_{val}",
                     rf"{_phases(p.rto_site_phases, SITE_PHASES)} = {R('rto_site')}",
                     f"Tier: {tier.label}, readiness {format_quantity(tier.readiness, 'duration')}"
                     f"{'; replication lands on the standby, so no staging' if tier.lands_on_standby else '; the checkpoint is staged from the object store'}"
                     f"{'; failover is automatic' if tier.automatic else ''}. {tier.assumptions}"),
        "standby_gpus": (r"G_s = f\,G", rf"{q(p.standby_gpus / t.gpus, 'fraction')} \times {G} = {R('standby_gpus')}", ""),
        "schedule_slip": (r"\Delta T = \frac{T}{2}\left(\frac{G}{G_s} - 1\right)",
                          rf"\frac{{{R('time_to_train')}}}{{2}} \left(\frac{{{G}}}{{{R('standby_gpus')}}} - 1\right) = {R('schedule_slip')}",
                          "Expected slip for a site event at a uniform time in the run, finishing on the standby."),
        "fleet_cost_rate": (r"F = G\,p / 3600", rf"{G} \times {q(co.gpu_hour_price, 'usd')}/\text{{h}} = {R('fleet_cost_rate')}", ""),
        "standby_cost": (r"C_{standby} = r\,p\,G_s\,T / 3600",
                         rf"{q(tier.reserved_share, 'fraction')} \times {q(co.gpu_hour_price, 'usd')} \times {R('standby_gpus')} \times {R('time_to_train')} = {R('standby_cost')}",
                         f"Reserved share r of the {tier.label} tier: {tier.assumptions}"),
        "replication_cost": (r"C_{rep} = p_e V + p_s S_r \frac{T}{\text{month}} + p_l \frac{T}{3600}",
                             rf"\text{{egress + remote storage + link port}} = {R('replication_cost')}",
                             f"V = T/(kτ) checkpoints shipped; S_r = {r.retained} retained copies; "
                             f"port {format_quantity(co.link_hour_price, 'usd')}/h."),
        "site_event_probability": (r"P = 1 - e^{-\lambda_s T}",
                                   rf"1 - e^{{-{q(f.site_event_rate, 'rate')} \times {R('time_to_train')}}} = {R('site_event_probability')}",
                                   "λ_s: failures.site_event_rate, with its stated basis."),
        "expected_disaster_loss": (
            r"E[C_{loss}] = P\,(E[\mathrm{RPO}_{site}] + \mathrm{RTO}_{site} + \Delta T)\,(F + D)",
            rf"{R('site_event_probability')} \times ({R('rpo_site_expected')} + {R('rto_site')} + {R('schedule_slip')})"
            rf" \times ({R('fleet_cost_rate')} + {q(co.delay_cost, 'usd_rate')}) = {R('expected_disaster_loss')}",
            "D is the cost of delay (cost.delay_cost): the business value of finishing on time."),
        "total_dr_cost": (r"C_{DR} = C_{standby} + C_{rep} + E[C_{loss}]",
                          rf"{R('standby_cost')} + {R('replication_cost')} + {R('expected_disaster_loss')} = {R('total_dr_cost')}", ""),
    }

    if p.run_driver == "window":
        entries["time_to_train"] = (r"T = T_{window}", rf"{R('time_to_train')}",
                                    "The window drives the run; the tokens that fit in it are derived.")
        entries["tokens"] = (r"D = \frac{T\,G\,P\,\mathrm{MFU}\,\mathrm{ETTR}}{k\,N}",
                             rf"\frac{{{R('time_to_train')} \times {G} \times {P} \times {mfu} \times {R('ettr')}}}{{{k_flop} \times {N}}} = {R('tokens')}",
                             "Narayanan et al. 2021, eq. (4), solved for D.")
    else:
        entries["time_to_train"] = (r"T = \frac{k\,N\,D}{G\,P\,\mathrm{MFU}\,\mathrm{ETTR}}",
                                    rf"\frac{{{k_flop} \times {N} \times {R('tokens')}}}{{{G} \times {P} \times {mfu} \times {R('ettr')}}} = {R('time_to_train')}",
                                    "Narayanan et al. 2021, eq. (4); ETTR turns compute time into wall-clock time.")
        entries["tokens"] = (r"D", rf"{R('tokens')}", "Set as an input (training.tokens); it drives the run.")

    if c.interval is None:
        entries["checkpoint_interval"] = (r"\tau = \tau^* = \max(\tau_D, \tau_{min})",
                                          rf"\max({R('daly_interval')}, {R('checkpoint_interval_floor')}) = {R('checkpoint_interval')}",
                                          "Unset in the scenario, so Daly's optimum is used.")
    else:
        note = (f"Set to {format_quantity(c.interval, 'duration')}, below the floor, so raised to it."
                if p.checkpoint_interval_floored else "Set in the scenario (checkpoint.interval).")
        entries["checkpoint_interval"] = (r"\tau = \max(\tau_{set}, \tau_{min})",
                                          rf"\max({q(c.interval, 'duration')}, {R('checkpoint_interval_floor')}) = {R('checkpoint_interval')}", note)

    site_formula = r"\mathrm{RPO}_{site} = k\tau + W + t_{rep}"
    site_sub = rf"{R('replication_interval')} + {R('checkpoint_write_time')} + {R('replication_time')}"
    if p.replication_keeps_up:
        entries["rpo_site"] = (site_formula, rf"{site_sub} = {R('rpo_site')}",
                               f"Worst case: the site is lost just before the next off-site copy lands. "
                               f"Expected kτ/2 + W + t_rep = {p.format('rpo_site_expected')}.")
        entries["rpo_site_expected"] = (r"E[\mathrm{loss}_{site}] = k\tau/2 + W + t_{rep}",
                                        rf"{R('replication_interval')}/2 + {R('checkpoint_write_time')} + {R('replication_time')} = {R('rpo_site_expected')}", "")
    else:
        fix = (f"**Replication does not keep up**: one copy takes {p.format('replication_time')} but a new one is due every "
               f"{p.format('replication_interval')} ({p.format('replication_utilization')} utilisation), so the backlog "
               f"grows through the run and the site RPO has no bound. To fix it, raise the link to at least "
               f"{p.format('replication_bandwidth_needed')} (replication.link_bandwidth), or ship less often: a "
               f"replication interval of at least {p.format('replication_time')} (replication.interval).")
        for key in ("rpo_site", "rpo_site_expected"):
            entries[key] = (site_formula + r"\ \text{only if}\ t_{rep} \le k\tau",
                            rf"\infty \quad (t_{{rep}} = {R('replication_time')} > k\tau = {R('replication_interval')})", fix)

    if name in entries:
        formula, substitution, note = entries[name]
        head = f"**{title(name)}: {result(name)}**\n\n$${formula}$$\n\n"
        if name in ("rpo_site", "rpo_site_expected") and not p.replication_keeps_up:
            return head + f"$$= {substitution}$$\n\n{note}\n"
        return _block(title(name), formula, substitution, result(name), note)
    if name == "rto_local_phases":
        return explain(p, "rto_local")
    if name == "rto_site_phases":
        return explain(p, "rto_site")
    if name == "tier_total_costs":
        rows = "\n".join(f"| {DR_TIERS[k].label} | {format_quantity(v, 'usd')} |" for k, v in p.tier_total_costs.items())
        return ("**Total DR cost by tier**\n\n$$C_{DR} = C_{standby} + C_{rep} + E[C_{loss}]$$\n\n"
                f"| tier | total |\n|---|---|\n{rows}\n")
    if name == "break_even_delay_costs":
        rows = "\n".join(f"| {DR_TIERS[k].label} | {'baseline' if k == 'cold' else format_quantity(v, 'usd_rate')} |"
                         for k, v in p.break_even_delay_costs.items())
        return ("**Break-even cost of delay, against cold backup & restore**\n\n"
                r"$$D^* = \max\left(0, \frac{\Delta C}{P\,\Delta L} - F\right)$$" "\n\n"
                f"| tier | pays for itself above |\n|---|---|\n{rows}\n\n"
                "'no bound' means the tier never pays for itself against cold at any cost of delay.\n")
    raise ValueError(f"unknown plan field {name!r}: choose from {', '.join(sorted(set(PLAN_FIELDS) | {'rto_local_phases', 'rto_site_phases', 'tier_total_costs', 'break_even_delay_costs'}))}")
