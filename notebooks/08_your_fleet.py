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
# **What you'll need:** nothing but this page. It opens on a log that ships with drmath, **generated**, not a
# real fleet's (its parameters are stated below). To read your own, one incident a row in a CSV:
#
# - **In Jupyter** (JupyterLab or Notebook, on your machine): set `LOG`, in the cell after the imports, to your CSV's path and
#   `OPTIONS` to how it reads, then run every cell. The cell is tagged `parameters`, so papermill sets them too.
# - **On the published page**, where no code but the page's runs: upload the CSV under "The log" below, map its
#   columns and press "fit". Every section after the upload is drawn again from your log.
#
# `OPTIONS` holds the keywords of `drmath.io.incidents.read_incidents`: `start_column`; `end_column`, or
# `duration_column` with `duration_unit` (`"s"`, `"min"` or `"h"`); `time_format` (one or a list; left out, the
# formats are inferred from the values); `where` (`["COLUMN=VALUE"]` keeps the rows where it holds); `since` and
# `until` (the window); `cause_column` and `scope_column`; `merge_within`; and `gpus`, the GPUs the log covers (for
# a rate per GPU). The ticket export `data/tickets_example.csv` reads with `{"start_column": "Created",
# "end_column": "Resolved", "cause_column": "Component", "where": ["Cluster=prod"]}`. In a terminal the same fit is
# `drmath calibrate` (its `--help` names the same options), and the dashboard's "your own fleet" panel takes an
# upload too.

# %%
from IPython.display import HTML, Markdown, Pretty, display

from drmath import bands, calibrate, formulas, offline, plan, reliability, solve, units, viz
from drmath.dashboard.logform import LogUpload, Sections
from drmath.formatting import html_text, markdown_text, short_duration
from drmath.io import incidents, scenarios
from drmath.viz.headline import CARDS, card_title

# Figures travel as JSON to Voilà and JupyterLab, with an offline HTML copy for an export (drmath.offline).
offline.use()

# %% tags=["parameters"]
# Your incident log: None reads the example that ships with drmath; a path reads your CSV with OPTIONS.
LOG = None
# How LOG reads (the keywords of drmath.io.incidents.read_incidents); these read the example.
OPTIONS = {"start_column": "start", "end_column": "end", "where": ["cluster=primary"], "gpus": 16384}

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
# ## The log
#
# With `LOG = None`, and on the published page until a log is uploaded, the page reads the shipped example,
# written by `data/make_incidents_example.py` from a fixed seed; its first lines state how it was made. A log of
# yours is described by what was read of it. An upload here draws every section below again from its fit; a log
# that cannot be fitted gets one line saying why, and the page stays as it was.

# %%
fit = incidents.read_incidents(LOG if LOG is not None else incidents.example_log(), **OPTIONS)
page = Sections(fit=fit, options=OPTIONS, example=LOG is None)
upload = LogUpload()
upload.on_fit(lambda fit: page.refill(fit=fit, options=upload.keywords(), example=upload.is_example))
display(upload.root)


def the_log(page):
    """The example's own statement of how it was made, or what was read of your log."""
    if page.example:
        text = incidents.example_log().read_text("utf-8")
        stated = [line.lstrip("# ").rstrip() for line in text.splitlines() if line.startswith("#")]
        return [Markdown("\n".join(f"> {markdown_text(line)}" for line in stated))]
    p = page.fit.provenance
    kept = f", {p['rows_used']:,} kept where {' and '.join(p['filter'])}" if p["filter"] else ""
    opens = "; the first interruption opens it" if p["window_opens_at_first_event"] else ""
    said = (f"Your log, {p['file']}: {p['rows_read']:,} rows read{kept}. Its window runs from {p['window_start']} "
            f"to {p['window_end']}{opens}.")
    return [HTML(f"<p>{html_text(said)}</p>")]


page.section(the_log)

# %% [markdown]
# ## Fit it
#
# The log's columns are mapped by name (`OPTIONS`, or the upload's dropdowns): each interruption's start, and its
# end or duration; its cause and scope where the log has them. A filter keeps only the rows it names. Rows joined
# to the one before (`joins_previous`) count as one interruption, and so do rows that start at the same instant; a
# row exported twice counts once, and an incident still open counts as a failure whose repair has not ended.


# %%
def the_fit(page):
    """Which columns were read, and the fit's summary."""
    o, fit = page.options, page.fit
    read = [f"the start from `{o['start_column']}`"]
    read += ([f"the end from `{o['end_column']}`"] if o.get("end_column") else
             [f"the duration from `{o['duration_column']}` in {o.get('duration_unit')}"])
    read += [f"the {what} from `{o.get(f'{what}_column') or what}`" for what in ("cause", "scope")
             if getattr(fit, f"{what}s")]
    kept = f"; the rows kept are those where {' and '.join(f'`{w}`' for w in o['where'])}" if o.get("where") else ""
    gpus = (f"; the log covers {o['gpus']:,} GPUs" if o.get("gpus") else
            "; no GPU count was given, so the fit sets the cluster's MTBF, not a rate per GPU")
    return [Markdown(markdown_text(f"Read {', '.join(read)}{kept}{gpus}.")), Pretty(fit.summary())]


page.section(the_fit)

# %% [markdown]
# ## The gaps, the trend and the causes
#
# The first figure draws the gaps between failures as a histogram of density (its area is 1). Over it are the
# fitted Weibull density and the exponential one: where the two curves agree, a constant rate describes the gaps
# well. The second figure counts the failures over the window against the straight line of a constant rate. When
# the rate falls, the count runs above the line early and meets it at the end.

# %%
page.section(lambda page: [viz.gaps_figure(page.fit), viz.trend_figure(page.fit), HTML(viz.cause_table_html(page.fit))])

# %% [markdown]
# ## Apply it to a design
#
# The fit becomes the failure model of the worked answer's scenario. It sets the per-GPU failure rate (scaled to
# the scenario's own GPU count) and the Weibull shape. Each comes with its 95% interval as a spread: an uncertain
# input, drawn from a lognormal distribution whose central 95% is that interval. Where the shape is not 1, the
# plan's goodput comes from a renewal model of Weibull gaps, not from the exponential one.


# %%
def applied(page):
    """The fit as the scenario's failure model: each uncertain input with its 95% interval."""
    page.design = design = page.fit.apply(scenarios.seed())
    return [Pretty("\n".join(f"{path:28s} {design.get(path):.4g}   95% interval {spread.low:.4g} to "
                             f"{spread.high:.4g} ({spread.distribution})"
                             for path, spread in design.uncertainty.items()))]


page.section(applied)

# %% [markdown]
# ## How sure: each headline number's 90% range
#
# `drmath.bands` draws the uncertain inputs 2,000 times and derives the plan for every draw at once. The
# table gives each headline number's point value and the range that holds its middle 90% (the 5th to the 95th
# percentile). The failure rate moves the goodput (ETTR) and the time lost to failures most; the site RPO and RTO
# are set mostly by the checkpoint, replication and failover design, so the fit's spread moves them little.


# %%
def how_sure(page):
    """Each headline number's point value and the middle 90% of its draws."""
    page.spread = spread = bands(page.design, draws=2000)
    point = plan(page.design)
    rows = ["| headline | point estimate | where 90% of the draws fall |", "|---|---|---|"]
    rows += [f"| {card_title(name)} | {point.format(name)} | {spread.format_range(name)} |" for name in CARDS]
    return [Markdown(markdown_text("\n".join(rows)))]


page.section(how_sure)

# %% [markdown]
# ## Design for a confidence level
#
# The log says nothing about how long the decision to fail over takes. A review rarely knows it better than
# "ten minutes to two hours", so that spread is typed by hand on top of the fitted one. `solve(...,
# confidence=0.95)` then returns the cheapest design whose targets (site RPO, site RTO and the schedule slip) all
# hold in at least 95% of the draws, judged on the same draws for every candidate. It also says how often the
# design chosen on the point estimates alone would miss.


# %%
def at_95(page):
    """The cheapest design whose targets hold in 95% of the draws, with the decision time uncertain too."""
    reviewed = page.design.replace(**{"uncertainty.failover.decision_time": (10 * units.minute, 2 * units.hour)})
    page.at_95 = solve(reviewed, confidence=0.95)
    return [Markdown(markdown_text(page.at_95.message))]


page.section(at_95)

# %% [markdown]
# ## Takeaway


# %%
def takeaway(page):
    """What this log says, in a paragraph: its numbers, not the example's."""
    fit, at = page.fit, page.at_95
    lo, hi = fit.mtbf_ci
    return [Markdown(markdown_text(
        f"Over {short_duration(fit.window)} this fleet had **{fit.events:,} interruptions**: one every "
        f"**{short_duration(fit.mtbf)}** on average (95% interval {short_duration(lo)} to {short_duration(hi)}). "
        f"The fitted Weibull shape is {fit.weibull_shape:.2f}. The Laplace test says {fit.trend['sentence']}. "
        f"Applied to the worked answer, it puts ETTR in the {page.spread.format_range('ettr')}. With the decision "
        f"time uncertain too, the design chosen on point estimates would miss a target in "
        f"**{at.point_design_miss_probability:.0%}** of the draws; the 95% design meets every target in "
        f"**{at.probability_met:.0%}**."))]


page.section(takeaway)
