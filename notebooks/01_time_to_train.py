# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Estimate how long the run takes and how many GPU-hours it burns
#
# **What you'll learn**
# - The compute of a dense transformer run (6 FLOP per parameter per token), and the time it takes on $G$ GPUs.
# - Why wall-clock time is longer than compute time (ETTR), and what the run costs in GPU-hours.
# - How much the answer moves when MFU falls from 40% to 30%, the least certain input.
#
# **What you'll need**: nothing but the sliders below. The worked answer is `00_worked_answer.ipynb`.
#
# ---

# %%
import ipywidgets as widgets
from IPython.display import Markdown, display

from drmath import Scenario, cost, formulas, offline, plan, presets, training, units, viz
from drmath.formatting import format_quantity, markdown_text

# Figures travel as JSON to Voilà and JupyterLab, with an offline HTML copy for an export (drmath.offline).
# Setting this also loads plotly's renderer stack here, once, rather than inside the first widget callback.
offline.use()

# %% [markdown]
# ## The formula
#
# The compute, the time it takes, and the GPU-hours, as `plan()` computes them:

# %%
formulas(training.training_flops, training.time_to_train, cost.gpu_hours)

# %% [markdown]
# - $k$ is 6 FLOP per parameter per token for a forward and backward pass (Kaplan et al. 2020,
#   arXiv:2001.08361, §2.1); 8 with full activation recomputation (Narayanan et al. 2021, arXiv:2104.04473,
#   eq. 4).
# - $N$ parameters, $D$ tokens, $G$ GPUs of peak $P$ FLOP/s (dense BF16), run at a model FLOPs
#   utilisation MFU. Llama 3 reports 38–43% on 8–16k H100s (arXiv:2407.21783, Table 4).
# - ETTR, the share of wall-clock time spent making progress, accounts for checkpoints and restarts
#   (Kokolis et al. 2024, arXiv:2410.21680; notebook `02`).
# - $H$ is the GPU-hours (the time $T$ in seconds), which set the bill.
#
# A fixed window (three months) turns the question round: how many tokens fit. Here the tokens are fixed
# at what the default run fits in its window, so that MFU moves the time, not the tokens.

# %% [markdown]
# ## Work the default run

# %%
base = plan()
fixed = Scenario().with_changes({"training.tokens": base.tokens})
plan(fixed).explain("training_flops", "time_to_train", "gpu_hours", "run_cost")

# %% [markdown]
# ## A mixture of experts computes with a few of its parameters
#
# A mixture of experts holds every expert, but each token runs through only a few of them, so $N$ in the
# compute above is the *active* count, while the checkpoint holds the total (notebook `02`). Mixtral 8x7B
# (Jiang et al. 2024, arXiv:2401.04088) routes each token to 2 of 8 experts; its counts, term by term:

# %%
plan(fixed.with_changes({"training.model": "mixtral-8x7b"})).explain("params", "active_params")

# %% [markdown]
# ## Pick a model, drag the cluster and the MFU
#
# The curve is the time to train the same tokens for every MFU from 20% to 60%; the dot is your choice.
# The models are drmath's presets, each from its published architecture (`drmath.presets.MODELS`).

# %%
model = widgets.Dropdown(options=["as above (405B)", *presets.MODELS], description="model")
gpus = widgets.IntSlider(value=fixed.training.gpus, min=1024, max=32768, step=512, description="GPUs",
                         continuous_update=False)
mfu = widgets.FloatSlider(value=fixed.training.mfu, min=0.2, max=0.6, step=0.01, description="MFU",
                          readout_format=".0%", continuous_update=False)

view = offline.Redraw()


def show(change=None):
    picked = {} if model.value not in presets.MODELS else {"training.model": model.value}
    q = plan(fixed.with_changes({"training.gpus": gpus.value, "training.mfu": mfu.value, **picked}))
    view.show(viz.plan_figure("time_mfu", q), q.explain("active_params", "time_to_train", "gpu_hours"))


for control in (model, gpus, mfu):
    control.observe(show, "value")
display(widgets.VBox([model, widgets.HBox([gpus, mfu])]), view.output)
show()

# %% [markdown]
# ## Takeaway

# %%
at30 = plan(fixed.with_changes({"training.mfu": 0.30}))
display(Markdown(markdown_text(
    f"**Takeaway.** {base.tokens / units.tera:.2f} trillion tokens on {fixed.training.gpus:,} GPUs take "
    f"{plan(fixed).format('time_to_train')} ({plan(fixed).format('gpu_hours')}) at "
    f"{format_quantity(fixed.training.mfu, 'fraction')} MFU, and {at30.format('time_to_train')} "
    f"({at30.format('gpu_hours')}, {at30.format('run_cost')}) at 30%. MFU enters the time linearly, so budget "
    f"the schedule at the MFU you have measured at scale, not the one you hope for.")))
