"""What crosses drmath's boundary: files and links in, files out.

The model core (formulas, :class:`~drmath.Scenario`, :func:`~drmath.plan` …) takes numbers and arrays and gives
results; it reads and writes nothing. What turns a file or a link into a scenario, or a scenario into a file or a
link, lives here, one module a kind:

- :mod:`drmath.io.scenarios`: scenario files (TOML) and the values in them (units, preset names);
- :mod:`drmath.io.links`: share links (a scenario as a URL query string, and back);
- :mod:`drmath.io.incidents`: incident logs (CSV) in, the fleet's fitted failure model out;
- :mod:`drmath.io.fits`: a fitted failure model out as a scenario fragment (TOML);
- :mod:`drmath.io.drills`: drill-record logs (CSV) in, the records :mod:`drmath.drills` takes;
- :mod:`drmath.io.runs`: run-event logs (JSONL) in, their measured goodput (:mod:`drmath.measure`) out;
- :mod:`drmath.io.models`: a model's ``config.json`` in, its :class:`~drmath.architecture.Architecture` out;
- :mod:`drmath.io.files`: the guards every file read and write goes through, and atomic writes.

Importing this package registers what moved here from the core's methods (:data:`drmath._moved.HOOKS`), so their
old spelling works, with a :class:`FutureWarning`, until 0.3: ``Calibration.fragment()`` and
``drills.promised_rto(path)``; and it registers the reader that ``Architecture.from_config(path)`` hands a path to.
Each module is imported only when one of them is called.

    >>> from drmath.io import scenarios, links
    >>> links.to_query(scenarios.seed())[:39]
    'requirements.rpo_site=15min&requirement'
"""

from .._moved import HOOKS


def _fragment(fit):
    from .fits import fragment

    return fragment(fit)


def _read_drill_records(path):
    from .drills import read_drill_records

    return read_drill_records(path)


def _read_config(path, name=None):
    from .models import read_config

    return read_config(path, name=name)


HOOKS.update({"drmath.io.fits.fragment": _fragment, "drmath.io.drills.read_drill_records": _read_drill_records,
              "drmath.io.models.read_config": _read_config})
