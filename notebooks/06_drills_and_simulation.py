# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Simulate the run, then promise only the RTO your drills have measured
#
# The closed forms in the earlier notebooks give *expected* values. A three-month run is one draw:
# it meets a few hundred interruptions and, rarely, the loss of its building. This page draws the run
# thousands of times, compares the spread with the closed form, and then turns drill records into the
# recovery time you can actually promise.
#
# **What you'll learn**
# - How far one run's completion time and ETTR stray from the expected value, and whether the closed
#   form for ETTR is inside the simulated band.
# - Where the closed form stops being trustworthy (restart overhead or checkpoint interval near the MTBF).
# - Why the RTO you can promise is a high percentile of the *sum* of measured phases, well above the sum
#   of best cases, and why it expires when drills go stale.
#
# **What you'll need**: the scenario from the earlier notebooks (GPU count, failure rate, DR tier) and a
# drill log. The log used here, `drmath.io.drills.example_log()` (`data/drills_example.csv`), is **illustrative**:
# invented numbers that show the format, not measurements of any cluster.

# %%
import datetime as dt
import time

import ipywidgets as widgets
import plotly.graph_objects as go
from IPython.display import Markdown, display

from drmath import Scenario, drills, formulas, offline, plan, presets, reliability, simulate, units, viz
from drmath.formatting import format_quantity, markdown_text
from drmath.io.drills import example_log, read_drill_records

# Figures travel as JSON to Voilà and JupyterLab, with an offline HTML copy for an export (drmath.offline).
offline.use()

# %% [markdown]
# ## The model
#
# **Closed form.** With interruptions every $M$ on average (the cluster's MTBF), checkpoint interval $\tau$,
# blocking stall $\delta$ per checkpoint, persist time $W$ and restart overhead $u_0$, the plan's ETTR (the
# expected share of wall-clock time spent making progress) is exact in expectation for exponential gaps
# (Daly 2006); its first-order form, valid while $\delta$ and $u_0$ are small against $M$, is that of Kokolis
# et al., *Revisiting Reliability in Large-Scale ML Research Clusters*, HPCA 2025, arXiv:2410.21680:

# %%
formulas(reliability.ettr_exact, reliability.ettr)

# %% [markdown]
# **Simulation.** Each trial must do $C$ seconds of training. It alternates $\tau$ of compute and a stall
# $\delta$; a checkpoint is durable $W$ after it starts. Interruptions arrive as a Poisson process (or with
# Weibull gaps, Schroeder & Gibson, DSN 2006); each loses the work since the newest durable checkpoint and
# costs a restart drawn around $u_0$. Failures keep arriving during restarts (Daly 2006). A site event loses
# the work since the newest copy that had landed off-site, waits the site RTO, and the run finishes on the
# standby at its share of the speed. Each trial's ETTR is its work over its completion time $T_{done}$:

# %%
formulas((simulate.simulate_run, 0))

# %% [markdown]
# **The RTO you can promise.** Each recovery phase $i$ has the empirical distribution $\hat F_i$ of its
# drill measurements. The promise at confidence $c$ is the $c$-quantile of their sum, found by drawing every
# phase independently (a Monte Carlo convolution; AWS, *Disaster Recovery of Workloads on AWS*, "Testing
# disaster recovery"):

# %%
formulas((drills.promised_rto, 0))

# %% [markdown]
# A phase whose newest measurement is older than the cadence of the drill that owns it makes the promise
# expire.

# %% [markdown]
# ## Closed form against simulation, where its assumptions break
#
# Before trusting the closed form on your scenario, see where it holds. Below, a short run (the work of
# about a day of the default cluster) is simulated at rising failure rates, so the MTBF falls towards the
# ten-minute restart overhead. The first-order formula charges every interruption a full restart and half
# an interval, though the next interruption often cuts both short, so it grows pessimistic and reaches
# zero while the simulated run still makes progress; the plan's exact form stays close.

# %%
drift_base = Scenario().with_changes({"training.tokens": 1e11, "failures.site_event_rate": 0.0,
                                      "checkpoint.interval": 10 * units.minute})
drift_rates = [m * drift_base.failures.gpu_failure_rate for m in (1, 2, 4, 6, 8, 10, 12, 14)]
drift = simulate.ettr_sweep(drift_base, "failures.gpu_failure_rate", drift_rates, trials=300)
worst = max(range(len(drift_rates)), key=lambda i: abs(drift["first_order_drift"][i]))
display(Markdown(markdown_text(
    f"At an MTBF of {drift['mtbf'][0] / units.hour:.1f} h the first-order form is within "
    f"{abs(drift['first_order_drift'][0]):.1%} of the simulated mean and the plan's exact form within "
    f"{abs(drift['drift'][0]):.1%}; at {drift['mtbf'][worst] / units.hour:.2f} h (restart overhead "
    f"{drift['restart_overhead'][worst] / units.minute:.0f} min) the first-order form is off by "
    f"{abs(drift['first_order_drift'][worst]):.0%}, the exact form by {abs(drift['drift'][worst]):.1%}.")))

# %% [markdown]
# ## Try it: draw the run and the promise
#
# Move the knobs. The histograms show the simulated completion time and ETTR with the closed form marked;
# the lower left panel shows the distribution of the summed recovery phases from the drill log, with the
# sum of best cases, the sum of means and the promise at your confidence. *Days since the last drill*
# ages the log to show when the promise expires.

# %%
records = read_drill_records(example_log())
last_drill = max(r.date for r in records)

trials = widgets.IntSlider(value=2_000, min=500, max=20_000, step=500, description="Trials",
                           continuous_update=False)
confidence = widgets.FloatSlider(value=0.9, min=0.5, max=0.99, step=0.01, description="Confidence",
                                 continuous_update=False)
gpus = widgets.IntSlider(value=Scenario().training.gpus, min=1_000, max=32_000, step=1_000,
                         description="GPUs", continuous_update=False)
failure_rate = widgets.Dropdown(options=sorted(presets.FAILURE_RATES), value="llama3",
                                description="Failure rate")
tier = widgets.Dropdown(options=list(presets.SEARCHED_TIERS), value=Scenario().failover.tier,  # simulated
                        description="DR tier")
stale_days = widgets.IntSlider(value=0, min=0, max=45, description="Days since last drill",
                               style={"description_width": "initial"}, continuous_update=False)
bar = widgets.FloatProgress(value=0.0, min=0.0, max=1.0, description="Simulating",
                            layout=widgets.Layout(visibility="hidden"))
view = offline.Redraw()  # the four panels and the takeaway below them, redrawn in place

# %%
started = [0.0]  # when the current simulation began (time.perf_counter) [s]


def on_progress(share):
    if share == 0.0 or started[0] == 0.0:
        started[0] = time.perf_counter()
    if time.perf_counter() - started[0] > 1.0:        # show the bar only for runs longer than a second
        bar.layout.visibility = "visible"
        bar.value = share


def simulate_and_draw():
    """Simulate the chosen scenario and read the drill log: the result, the promise and the figure."""
    scenario = Scenario().with_changes({"training.gpus": gpus.value,
                                        "failures.gpu_failure_rate": failure_rate.value,
                                        "failover.tier": tier.value})
    on_progress(0.0)
    result = simulate.simulate_run(scenario, trials.value, seed=0, progress=on_progress)
    bar.layout.visibility = "hidden"
    promise = drills.promised_rto(records, confidence.value, scope="site",
                                  as_of=last_drill + dt.timedelta(days=stale_days.value))
    return result, promise, viz.simulation_spec(result, promise, drift)


def update(change=None):
    result, promise, spec = simulate_and_draw()
    p = result.plan
    lo, hi = result.ettr_interval(0.99)
    view.show(go.Figure(spec), Markdown(markdown_text(
        f"**Takeaway.** Over {result.trials:,} simulated runs ({result.events / result.trials:,.0f} "
        f"interruptions each on average), ETTR ranged {lo:.1%}-{hi:.1%} (99% of runs); the closed form says "
        f"{p.format('ettr')}, {'inside' if lo <= p.ettr <= hi else 'outside'} that band. "
        f"The 95th-percentile run finished in "
        f"{result.percentiles('completion_time', (95,))[95.0] / units.day:.1f} days "
        f"and lost {result.percentiles('lost_gpu_hours', (95,))[95.0] / 1e3:,.0f}k GPU-hours to failures. "
        f"From the drill log: {promise.message()} The sum of best cases would say "
        f"{format_quantity(promise.best_case_sum, 'duration')} and the sum of means "
        f"{format_quantity(promise.mean_sum, 'duration')}.")))


# the four panels, drawn by drmath.viz, as one static figure redrawn when a knob moves (drmath.offline.Redraw)
display(widgets.VBox([widgets.HBox([widgets.VBox([gpus, failure_rate, tier]),
                                    widgets.VBox([trials, confidence, stale_days])]), bar, view.output]))
update()
for w in (trials, confidence, gpus, failure_rate, tier, stale_days):
    w.observe(update, names="value")

# %% [markdown]
# ## The drills that make the numbers true
#
# Each drill times named recovery phases. Its cadence is the freshness limit of the phases it owns, and
# its cost is what it takes from the run.

# %%
costs = drills.drill_costs(plan())
display(Markdown("\n".join(
    ["| Drill | Measures | Cadence | GPU-hours each | GPU-hours over the run |", "|---|---|---|---|---|"]
    + [f"| {d.label} | {', '.join(d.measures)} | {format_quantity(d.cadence, 'duration')} | "
       f"{costs[name]['each']:,.0f} | {costs[name]['total']:,.0f} |" for name, d in drills.DRILLS.items()])))

# %% [markdown]
# ## Where this comes from
#
# - Kokolis et al., *Revisiting Reliability in Large-Scale Machine Learning Research Clusters*, HPCA 2025,
#   arXiv:2410.21680: ETTR and the restart overhead $u_0$.
# - J. T. Daly, *A higher order estimate of the optimum checkpoint interval for restart dumps*, FGCS 2006:
#   failures during restarts.
# - B. Schroeder and G. Gibson, *A large-scale study of failures in HPC systems*, DSN 2006: Weibull gaps.
# - AWS, *Disaster Recovery of Workloads on AWS*: RTO as phases, and testing recovery with game days.
# - The drill log is illustrative; replace `data/drills_example.csv` with your own records
#   (`date, drill, phase, seconds, outcome`).
