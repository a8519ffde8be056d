"""The headline cards' layout: which quantities stand as cards, in what order, and what each card's sub-line says.

A view's choice, shared by every view that draws the cards: the report's headline
(:func:`drmath.report.headline_html`), the dashboard's KPI cards (:mod:`drmath.dashboard.cards`) and the live
page's preview. It holds no number and no formula: a card's title is the registry's
(:attr:`drmath.quantities.Quantity.short`), its value and its sub-line's numbers are the plan's. Which quantities
get a 90% range is the model's choice (:data:`drmath.quantities.BANDED`), not this layout's. Nothing here imports
plotly or ipywidgets.

    >>> CARDS[:4]
    ('rpo_local', 'rpo_site', 'rto_local', 'rto_site')
    >>> import drmath
    >>> card_title("rto_site"), card_detail(drmath.plan(), "rto_site")
    ('Site RTO', 'Warm standby')
"""

import math
from collections.abc import Callable
from dataclasses import dataclass

from ..formatting import line_rate
from ..presets import DR_TIERS
from ..quantities import QUANTITIES

__all__ = ["Card", "LAYOUT", "CARDS", "card_title", "card_detail", "card_moves"]


@dataclass(frozen=True)
class Card:
    """One headline card: the quantity it shows, the small line under its value and what that line shows."""

    name: str  #: the plan quantity the card shows
    detail: Callable | None = None  #: the card's sub-line, a function of the plan; None for none
    moves: tuple = ()  #: the quantities the sub-line shows: what moved when the card's own value did not


def _keeps_up_detail(p):
    if p.replication_keeps_up:
        return f"link {p.format('replication_utilization')} busy"
    return f"needs ≥ {line_rate(p.replication_bandwidth_needed)}"


_DR_COST_PARTS = (("standby", "standby_cost"), ("replication", "replication_cost"), ("cross-site", "cross_site_cost"),
                  ("expected loss", "expected_disaster_loss"))
"""The terms of the total DR cost, in its formula's order: (the card's word for it, the quantity)."""

_SITE_LOSS_PARTS = (("work", "rpo_site_expected"), ("resume", "rto_site"),
                    ("reduced capacity", "reduced_capacity_time"))
"""The terms of the time lost to a site loss (the schedule slip), in its formula's order."""


def _parts(p, parts):
    """Every term of a sum, each with its word and value: ``"standby $1.00M + replication $2.00k + …"``."""
    return " + ".join(f"{word} {p.format(name)}" for word, name in parts)


LAYOUT = (
    Card("rpo_local", lambda p: f"expected {p.format('rpo_local_expected')}", ("rpo_local_expected",)),
    Card("rpo_site", lambda p: "replication falls behind" if math.isinf(p.rpo_site)
         else f"expected {p.format('rpo_site_expected')}", ("rpo_site_expected",)),
    Card("rto_local", lambda p: f"load {p.format('checkpoint_load_time')}, MTBF {p.format('mtbf')}",
         ("checkpoint_load_time", "mtbf")),
    Card("rto_site", lambda p: DR_TIERS[p.scenario.failover.tier].label),
    Card("ettr", lambda p: f"checkpoint every {p.format('checkpoint_interval')}", ("checkpoint_interval",)),
    Card("time_to_train", lambda p: f"{p.format('tokens')} tokens, {p.format('run_cost')}", ("tokens", "run_cost")),
    Card("total_dr_cost", lambda p: _parts(p, _DR_COST_PARTS), tuple(name for _, name in _DR_COST_PARTS)),
    Card("replication_keeps_up", _keeps_up_detail, ("replication_utilization",)),
    Card("site_loss_time", lambda p: _parts(p, _SITE_LOSS_PARTS) + f"; costs {p.format('site_loss_cost')}",
         ("site_loss_cost", "rpo_site_expected", "rto_site", "reduced_capacity_time")),
    Card("reduced_capacity_time", lambda p: f"standby {p.format('standby_fraction')} of the primary",
         ("standby_fraction",)),
)
"""Every headline card, in the order the views show them: the local and site RPO and RTO first, then the goodput,
the run, the cost, whether replication keeps up and what a site loss costs in time."""

CARDS = tuple(card.name for card in LAYOUT)
"""The quantities shown as headline cards, in order."""

_BY_NAME = {card.name: card for card in LAYOUT}


def card_title(name):
    """The short title of a quantity, for a card or a headline: the registry's short title, else its title.

    >>> card_title("rpo_site"), card_title("mtbf")
    ('Site RPO', 'Cluster MTBF')
    """
    q = QUANTITIES[name]
    return q.short or q.title


def card_detail(plan, name):
    """The small line under a card: the numbers that explain the headline one (``""`` for a quantity without one).

    >>> import drmath
    >>> card_detail(drmath.plan(), "rto_site"), card_detail(drmath.plan(), "mtbf")
    ('Warm standby', '')
    """
    card = _BY_NAME.get(name)
    return card.detail(plan) if card is not None and card.detail else ""


def card_moves(name):
    """The quantities a card's sub-line shows: what to name when the card's own value held but they moved.

    >>> card_moves("rto_local"), card_moves("mtbf")
    (('checkpoint_load_time', 'mtbf'), ())
    """
    card = _BY_NAME.get(name)
    return card.moves if card is not None else ()
