# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Fit the failure model to your own fleet, and design for a confidence level
#
# Every other page of this workbook takes its failure rate from a published cluster: Llama 3's flagship run or
# Meta's research clusters. An architect defending a design is asked two more questions: *what does our own fleet
# say?* and *how sure are we?* This page answers both from an incident log. It fits the failure model with its
# intervals, carries those intervals to every headline number, and picks the cheapest design whose targets hold
# with 95% probability.
#
# **What you'll do**
# 1. Read an incident log (one row per interruption) and fit the time between failures, a trend over time, the
#    repair times and the causes.
# 2. Look at the fit: the gaps between failures against the fitted densities, the failures over time against a
#    constant rate, and the causes.
# 3. Apply the fit to the worked answer's scenario, see each headline number's 90% range, and solve for the
#    cheapest design that meets the targets with 95% probability.
#
# **What you'll need:** nothing but this page. The log used here is **generated**, not a real fleet's (its
# parameters are stated below). With your own log, the same fit runs in a terminal:
# `drmath calibrate incidents.csv --start-column start --end-column end --gpus 16384 -o fleet.toml`, and
# the dashboard's "your own fleet" panel takes a CSV upload.

# %%
from IPython.display import HTML, Markdown, display

from drmath import bands, calibrate, formulas, offline, plan, reliability, solve, units, viz
from drmath.formatting import markdown_text, short_duration
from drmath.io import incidents, scenarios
from drmath.viz.headline import CARDS, card_title

# Figures travel as JSON to Voilà and JupyterLab, with an offline HTML copy for an export (drmath.offline).
offline.use()

# %% [markdown]
# ## The fits
#
# All of these live in `drmath.calibrate`, each with its source; this page only calls them, and the formulas
# below are the ones written there. With $r$ failures in an observation window of length $T$:
#
# **Exponential** (a constant rate). The maximum-likelihood MTBF $\hat M$ is the window over the count of
# failures, and its 95% interval is the one below (Meeker and Escobar 1998, section 8.3). Given the fleet's $G$
# GPUs, the rate per GPU $\lambda$ follows from the cluster's MTBF.

# %%
formulas(reliability.mtbf_from_count, calibrate.exponential_fit, reliability.cluster_mtbf)

# %% [markdown]
# **Weibull** gaps, of shape $k$ and scale $\lambda$. A shape below 1 means that the hazard falls after each
# failure; studies of HPC systems find shapes of 0.7 to 0.8 (Schroeder and Gibson 2010). The scale has a closed
# form for each shape, so the likelihood is maximised over the shape alone, and the interval of the shape is the
# set where this profile likelihood stays within the 95% chi-square bound of its peak. The time from the last
# failure to the end of the window is a gap still running: it is censored, not dropped.

# %%
formulas(calibrate.weibull_fit)

# %% [markdown]
# **A trend**: the Laplace test. Under a constant rate the failure times $t_i$ are uniform on the window, so the
# statistic $U$ is standard normal. A negative $U$ puts the failures early (a falling rate, as in burn-in), and a
# positive one late (wear-out).

# %%
formulas(calibrate.laplace_trend)

# %% [markdown]
# **Repairs**: a lognormal fit to the repair durations $d_i$, so the median repair is the exponential of
# $\hat\mu$. An incident still open when the log was exported has a repair known only to last longer than
# it has so far, $c_j$: with such repairs the fit maximises the second form instead.

# %%
formulas((calibrate.lognormal_fit, 0), (calibrate.lognormal_fit, 1))

# %% [markdown]
# ## The log: generated, from stated parameters
#
# The shipped example is written by `data/make_incidents_example.py` from a fixed seed. Its first lines state
# how it was made: 54 days of a 16,384-GPU cluster whose failure rate falls over the window, and a second
# cluster to filter out.

# %%
log = incidents.example_log()
stated = [line.lstrip("# ").rstrip() for line in log.read_text("utf-8").splitlines() if line.startswith("#")]
display(Markdown("\n".join(f"> {markdown_text(line)}" for line in stated)))

# %% [markdown]
# ## Fit it
#
# The log's columns are mapped by name: each interruption's `start` and `end`, its `cause` and `scope`. Only the
# rows of the cluster `primary` are kept. Rows joined to the one before (`joins_previous`) count as one
# interruption, and so do rows that start at the same instant.

# %%
fit = incidents.read_incidents(log, start_column="start", end_column="end", where=["cluster=primary"], gpus=16384)
print(fit.summary())

# %% [markdown]
# ## The gaps, the trend and the causes
#
# The first figure draws the gaps between failures as a histogram of density (its area is 1). Over it are the
# fitted Weibull density and the exponential one: where the two curves agree, a constant rate describes the gaps
# well. The second figure counts the failures over the window against the straight line of a constant rate. When
# the rate falls, the count runs above the line early and meets it at the end.

# %%
display(viz.gaps_figure(fit), viz.trend_figure(fit), HTML(viz.cause_table_html(fit)))

# %% [markdown]
# ## Apply it to a design
#
# The fit becomes the failure model of the worked answer's scenario. It sets the per-GPU failure rate (scaled to
# the scenario's own GPU count) and the Weibull shape. Each comes with its 95% interval as a spread: an uncertain
# input, drawn from a lognormal distribution whose central 95% is that interval. Where the shape is not 1, the
# plan's goodput comes from a renewal model of Weibull gaps, not from the exponential one.

# %%
design = fit.apply(scenarios.seed())
for path, spread in design.uncertainty.items():
    print(f"{path:28s} {design.get(path):.4g}   95% interval {spread.low:.4g} to {spread.high:.4g} "
          f"({spread.distribution})")

# %% [markdown]
# ## How sure: each headline number's 90% range
#
# `drmath.bands` draws the uncertain inputs 2,000 times and derives the plan for every draw at once. The
# table gives each headline number's point value and the range that holds its middle 90% (the 5th to the 95th
# percentile). The failure rate moves the goodput (ETTR) and the time lost to failures most; the site RPO and RTO
# are set mostly by the checkpoint, replication and failover design, so the fit's spread moves them little.

# %%
spread = bands(design, draws=2000)
point = plan(design)
rows = ["| headline | point estimate | where 90% of the draws fall |", "|---|---|---|"]
rows += [f"| {card_title(name)} | {point.format(name)} | {spread.format_range(name)} |" for name in CARDS]
display(Markdown(markdown_text("\n".join(rows))))

# %% [markdown]
# ## Design for a confidence level
#
# The log says nothing about how long the decision to fail over takes. A review rarely knows it better than
# "ten minutes to two hours", so that spread is typed by hand on top of the fitted one. `solve(...,
# confidence=0.95)` then returns the cheapest design whose targets (site RPO, site RTO and the schedule slip) all
# hold in at least 95% of the draws, judged on the same draws for every candidate. It also says how often the
# design chosen on the point estimates alone would miss.

# %%
reviewed = design.replace(**{"uncertainty.failover.decision_time": (10 * units.minute, 2 * units.hour)})
at_95 = solve(reviewed, confidence=0.95)
display(Markdown(markdown_text(at_95.message)))

# %% [markdown]
# ## Takeaway

# %%
lo, hi = fit.mtbf_ci
display(Markdown(markdown_text(
    f"Over {short_duration(fit.window)} this fleet had **{fit.events:,} interruptions**: one every "
    f"**{short_duration(fit.mtbf)}** on average (95% interval {short_duration(lo)} to {short_duration(hi)}). The "
    f"fitted Weibull shape is {fit.weibull_shape:.2f}. The Laplace test says {fit.trend['sentence']}. Applied "
    f"to the worked answer, it puts ETTR in the {spread.format_range('ettr')}. With the decision time uncertain "
    f"too, the design chosen on point estimates would miss a target in "
    f"**{at_95.point_design_miss_probability:.0%}** of the draws; the 95% design meets every target in "
    f"**{at_95.probability_met:.0%}**.")))
