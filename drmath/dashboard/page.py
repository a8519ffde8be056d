"""The page's fixed parts, none of them a widget: its story, and which controls and figures it shows.

Nothing here imports ipywidgets, anywidget or plotly: the web server reads :data:`STORY` to draw a
static preview of the page while a visitor's kernel starts.

    >>> STORY.startswith('<div class="drmath-header">'), len(CONTROLS), FIGURES[0]
    (True, 14, 'rpo')
"""

__all__ = ["STORY", "CONTROLS", "FIGURES"]

STORY = (
    '<div class="drmath-header"><h2>What does it take to survive a disaster in a frontier training run?</h2>'
    '<p class="drmath-story">A <b>training run</b> keeps thousands of GPUs busy for weeks to make one model. '
    "At that scale something breaks every few hours: a GPU, a node, and, rarely, a whole site (power, "
    "fire, network). The run survives by saving <b>checkpoints</b> and copying them to a second site. "
    "Two numbers say how well: <abbr title='recovery point objective'><b>RPO</b></abbr>, how much work is lost "
    "(the time since the last safe copy), and <abbr title='recovery time objective'><b>RTO</b></abbr>, how "
    "long until training runs again. <abbr title='effective training time ratio'><b>ETTR</b></abbr> is the "
    "share of time spent on useful training; <abbr title='model FLOPs utilisation'><b>MFU</b></abbr> is how "
    "much of the GPUs' peak speed the training uses. Move a control: every number and chart follows; "
    'hover over a card\'s title for its meaning, and "show the math" for its formula.</p></div>')
"""The page's opening: what a run is, what goes wrong, and what RPO, RTO, ETTR and MFU mean."""


CONTROLS = ("training.gpus", "training.mfu", "training.params", "checkpoint.interval",
            "replication.link_bandwidth", "replication.interval", "failures.gpu_failure_rate",
            "failover.tier", "failover.standby_fraction", "failover.detection_time", "failover.decision_time",
            "requirements.rpo_site", "requirements.rto_site", "requirements.max_slip")
"""The Scenario fields the dashboard controls, in order."""

FIGURES = ("rpo", "ettr", "rto", "cost_tier", "cost_link")
"""The dashboard's five figures, by name (CSS class ``drmath-figure-<name>``), in its grid's order: keys of
:data:`drmath.viz.FIGURES`, which says what each sweeps and how it is drawn. The registry's other figures
are the notebooks' (and the report's)."""
