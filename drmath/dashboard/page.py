"""The page's fixed parts, none of them a widget: its story, and which controls and figures it shows.

Nothing here imports ipywidgets, anywidget or plotly: the web server reads :data:`STORY` to draw a
static preview of the page while a visitor's kernel starts.

    >>> STORY.startswith('<div class="drmath-header">'), len(CONTROLS), FIGURES[0]
    (True, 14, 'rpo')
    >>> "<dt>ETTR</dt>" in STORY
    True
"""

import html

__all__ = ["STORY", "GLOSSARY", "CONTROLS", "FIGURES"]

GLOSSARY = (
    ("RPO", "recovery point objective: how much training work is lost when something fails, measured as the time "
            "since the last copy that survived."),
    ("RTO", "recovery time objective: how long the run stands still after a failure until training runs again."),
    ("local, site", "the two scopes of a failure: local is a GPU, node or rack (the site's storage survives); site "
                    "is the whole building or region, so only what was copied to the other site is left."),
    ("checkpoint", "a saved copy of the model and its optimizer, written every few minutes so that a failure loses "
                   "only the work since the last one."),
    ("replication", "copying checkpoints to the second site over the link between them; it keeps up when each "
                    "copy finishes before the next one starts."),
    ("ETTR", "effective training time ratio: the share of the wall-clock time spent on useful training, after "
             "checkpoint pauses, lost work and restarts."),
    ("goodput", "the useful share of the GPUs' time (the ETTR); the goodput lost is what checkpoint pauses, lost "
                "work and restarts cost in GPU-hours."),
    ("MFU", "model FLOPs utilisation: how much of the GPUs' peak speed the training actually uses."),
    ("MTBF", "mean time between failures: how long the whole cluster runs, on average, before something in it fails."),
    ("RSC-1, RSC-2, Llama 3", "the large GPU clusters whose published failure rates (per 1,000 node-days) the "
                              "failure-rate choices use: Meta's two research clusters and the run that trained "
                              "Llama 3."),
    ("GPU", "the accelerator chip that trains the model (an H100 is one model of it); a run uses thousands."),
    ("Daly, Young", "the two classic formulas for the checkpoint interval that loses the least time: Young's "
                    "square root of 2 × write time × MTBF, and Daly's more exact version of it."),
    ("DR tier", "how ready the second site is (disaster recovery): cold (copies only, GPUs found after the loss), "
                "pilot light (a small slice kept running), warm (a cluster reserved, running other work), hot "
                "(a cluster idle and ready) or multi-site (both sites train together)."),
    ("standby", "the second site's cluster that takes over the run after a site loss; it may be smaller than the "
                "primary, and then the run goes on at reduced capacity."),
    ("schedule slip", "how much later the run ends after a site loss: the work lost, plus the outage, plus the "
                      "extra time on a smaller standby."),
    ("pays for itself above", "the cost of a day's delay above which a tier's extra price is less than the loss it "
                              "saves, compared with the cheapest tier."),
    ("baseline", "a design you pin with the button, so that every card then shows its change against it."),
    ("TOML", "the plain-text file format of a saved scenario: every input of the page, which drmath and this page "
             "can open again."),
    ("drmath solve", "the command-line form of the button \"apply the cheapest design\": it searches the designs "
                     "for the cheapest one that meets every target."),
    ("requirements.rpo_site and other dotted names", "the name of an input in a scenario file and on the command "
                                                      "line: its section, a dot, its field (here the site RPO "
                                                      "target)."),
)
"""Every term of jargon the page uses, with its meaning in plain words: the page's glossary (in :data:`STORY`)."""


def _glossary_html():
    entries = "".join(f"<dt>{html.escape(term)}</dt><dd>{html.escape(words)}</dd>" for term, words in GLOSSARY)
    return (f'<details class="drmath-glossary"><summary>Glossary: the words used on this page</summary>'
            f"<dl>{entries}</dl></details>")


STORY = (
    '<div class="drmath-header"><h2>What does it take to survive a disaster in a frontier training run?</h2>'
    '<details class="drmath-intro"><summary>What this page shows, and how to use it</summary>'
    '<p class="drmath-story">A <b>training run</b> keeps thousands of GPUs busy for weeks to make one model. '
    "At that scale something breaks every few hours: a GPU, a node, and, rarely, a whole site (power, "
    "fire, network). The run survives by saving <b>checkpoints</b> and copying them to a second site. "
    "Two numbers say how well: <abbr title='recovery point objective'><b>RPO</b></abbr>, how much work is lost "
    "(the time since the last safe copy), and <abbr title='recovery time objective'><b>RTO</b></abbr>, how "
    "long until training runs again. <abbr title='effective training time ratio'><b>ETTR</b></abbr> is the "
    "share of time spent on useful training; <abbr title='model FLOPs utilisation'><b>MFU</b></abbr> is how "
    "much of the GPUs' peak speed the training uses. Move a control: every number and chart follows; "
    'tap or click a card\'s title for its meaning, and "show the math" for its formula. The glossary below '
    "explains every other term.</p></details>" + _glossary_html() + "</div>")
"""The page's opening: what a run is, what goes wrong, and what RPO, RTO, ETTR and MFU mean (folded on a phone,
so that the numbers come first), then the glossary (:data:`GLOSSARY`)."""


CONTROLS = ("training.gpus", "training.mfu", "training.params", "checkpoint.interval",
            "replication.link_bandwidth", "replication.interval", "failures.gpu_failure_rate",
            "failover.tier", "failover.standby_fraction", "failover.detection_time", "failover.decision_time",
            "requirements.rpo_site", "requirements.rto_site", "requirements.max_slip")
"""The Scenario fields the dashboard controls, in order."""

FIGURES = ("rpo", "ettr", "rto", "cost_tier", "cost_link")
"""The dashboard's five figures, by name (CSS class ``drmath-figure-<name>``), in its grid's order: keys of
:data:`drmath.viz.FIGURES`, which says what each sweeps and how it is drawn. The registry's other figures
are the notebooks' (and the report's)."""
