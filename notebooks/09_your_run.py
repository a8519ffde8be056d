# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Your run: the goodput it measured, beside the plan
#
# Every other page predicts. Once the run starts, the question becomes: *does the plan hold?* The run's own
# event log answers it. This page reads a log of a run's events, splits its wall time into the time spent on new
# steps and the time lost (its badput, by cause), and puts the result beside the plan's prediction for the same
# run: the goodput, the time between failures, the failure rate per GPU, the stall per checkpoint and the
# restart.
#
# **What you'll do**
# 1. See how the wall time is split, each stretch between two records going to one part.
# 2. Measure the example log and draw where its wall time went.
# 3. Compare it with the plan, and read the failure rate the log implies.
#
# **What you'll need:** nothing but this page. The log used here is **generated** by drmath's simulator, not a
# real run's. With your own log, the same measure runs in a terminal:
# `drmath measure run.jsonl --scenario seed`.

# %%
from IPython.display import HTML, Markdown, display

from drmath import formulas, offline, plan
from drmath.formatting import markdown_text, short_duration
from drmath.io import runs, scenarios
from drmath.measure import PART_TITLES, implied_failure_rate, measure_events, measured_goodput
from drmath.viz.run import badput_figure, run_table_html

# Figures travel as JSON to Voilà and JupyterLab, with an offline HTML copy for an export (drmath.offline).
offline.use()

# %% [markdown]
# ## The log and how it is read
#
# A run log holds one JSON object a line: a time (ISO 8601 or seconds), an event and, for steps and loads, a
# step number. The events are those Google's goodput library (ml-goodput-measurement) names: `job_start`,
# `step` (a step finished), `checkpoint_saved` (a save returned to the training loop, optionally with the
# seconds it blocked), `checkpoint_loaded`, `failure` and `job_end`.
#
# Each record ends the stretch of wall time since the record before it, and the stretch goes to one part:
#
# - **downtime**: from a failure to the next `job_start`, and a job shutting down;
# - **restart and load**: from a `job_start` to the first step after it, the load on the way included (the
#   first step holds the job's warm-up, which a log of finished steps cannot split from it);
# - **checkpoint stalls**: up to a `checkpoint_saved`, or its stated duration;
# - **rework**: steps whose number was finished before the last failure, and the step a failure cut short;
# - **productive steps**: the rest, steps finished for the first time.
#
# So the parts add up to the wall time, and the goodput $G$ is the productive share. Without a GPU count, the
# failure rate is the job's; with one, it is per GPU, the unit of the scenario's `failures.gpu_failure_rate`.

# %%
formulas(measure_events, measured_goodput, implied_failure_rate)

# %% [markdown]
# ## Measure the example
#
# The example is one simulated 8-hour run of the seed scenario with its GPUs failing four times as often as the
# seed assumes (`data/make_run_example.py` wrote it with a fixed seed). Its first lines:

# %%
log = runs.example_run_log()
print("\n".join(log.read_text("utf-8").splitlines()[:4]))
measured = runs.measure_run_log(log)
rows = ["| part | time | share of wall time |", "|---|---|---|"]
rows += [f"| {PART_TITLES[name]} | {short_duration(seconds) if seconds else '0 s'} | {measured.shares[name]:.2%} |"
         for name, seconds in measured.parts.items()]
rows.append(f"| **wall time** | **{short_duration(measured.wall_time)}** | **100%** |")
display(Markdown(markdown_text("\n".join(rows))))

# %% [markdown]
# ## Where the wall time went, beside the plan
#
# The top bar is the run, its wall time split into the five parts. The bar under it is the plan of the seed
# scenario: its ETTR, the share of wall time it predicts on progress, against the rest (the plan does not split
# its badput by cause).

# %%
seed_plan = plan(scenarios.seed())
badput_figure(measured, seed_plan)

# %% [markdown]
# ## The failure rate the log implies
#
# The log's failures over the time a job ran give the job's failure rate; on the plan's GPU count, the rate per
# GPU. Seven failures say little about a rate: `drmath calibrate` gives a fleet's rate with its interval, from an
# incident log of many more.

# %%
gpus = seed_plan.scenario.training.gpus
display(HTML(run_table_html(measured, seed_plan)))

# %% [markdown]
# ## Takeaway

# %%
ratio = measured.failure_rate(gpus) / seed_plan.scenario.failures.gpu_failure_rate
display(Markdown(markdown_text(
    f"The run spent **{measured.goodput:.1%}** of its {short_duration(measured.wall_time)} on new steps, against "
    f"the **{seed_plan.ettr:.1%}** its plan predicts. Its {measured.failures} failures imply "
    f"**{ratio:.1f} times** the plan's failure rate per GPU, and restarts took "
    f"**{measured.shares['restart']:.1%}** of the wall time: the plan's failure model, not its checkpoints "
    f"(stalls {measured.shares['checkpoint_stall']:.1%}), is what to revisit.")))
