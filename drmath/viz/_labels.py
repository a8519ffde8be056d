"""Which quantity a figure's label names, in the registry's words (:mod:`drmath.quantities`).

A chart's "cost" is one of several (the total DR cost, the total cost of resilience, the standby's …); its axis and
title say which with the quantity's own title, so a figure and a table never call two costs the same.
"""

from ..quantities import QUANTITIES

__all__ = ["title_of", "label_of"]


def title_of(name):
    """A quantity's registry title, for a figure's title: ``"Total DR cost"``.

    >>> title_of("total_cost_of_resilience")
    'Total cost of resilience'
    """
    return QUANTITIES[name].title


def label_of(name):
    """A quantity's registry title as an axis label, its first letter lower-case unless an acronym:
    ``"total DR cost"``.

    >>> label_of("total_dr_cost"), label_of("rpo_site")
    ('total DR cost', 'site RPO (worst)')
    """
    title = QUANTITIES[name].title
    return title if title[1:2].isupper() else title[0].lower() + title[1:]
