"""A fitted failure model as a scenario fragment: the fit of :mod:`drmath.calibrate` out as TOML.

:func:`drmath.calibrate.fit_events` (or :func:`drmath.io.incidents.read_incidents`) fits an incident log and
:meth:`~drmath.calibrate.Calibration.model` says which scenario fields the fit sets, as numbers and spreads.
:func:`fragment` writes that model as the TOML ``drmath calibrate -o`` saves and ``drmath plan base.toml
fleet.toml`` merges over a scenario, and checks it as every scenario file is checked
(:func:`drmath.io.scenarios.loads`), so a fitted value out of a field's range is refused before anything is written.

    >>> from drmath.calibrate import fit_events
    >>> fit = fit_events([0.0, 3000.0, 9000.0, 10000.0, 18000.0], 0.0, 20000.0)
    >>> [line for line in fragment(fit).splitlines() if line.startswith("measured_mtbf")]
    ['measured_mtbf = 4000.0']
"""

from .._spread_text import table_of
from ..formatting import short_duration
from ..scenario import PREFIX
from . import scenarios

__all__ = ["fragment"]


def fragment(fit):
    """A scenario fragment (TOML) holding a fitted failure model, for ``drmath plan base.toml fleet.toml``.

    With ``gpus``, it sets ``failures.gpu_failure_rate`` (and unsets ``failures.measured_mtbf``, so
    the fitted rate is the one the plan uses, scaled to the plan's own GPU count); without, it sets
    ``failures.measured_mtbf`` to the fitted cluster MTBF. It sets ``failures.weibull_shape``, and its
    ``[uncertainty]`` table holds the fitted 95% intervals as spreads
    (:meth:`drmath.calibrate.Calibration.model`), so ``drmath plan base.toml fleet.toml`` shows the bands.
    The Weibull and repair fits, the trend and the provenance go in ``[scenario.calibration]``, which the
    model ignores.

    Parameters
    ----------
    fit : drmath.calibrate.Calibration
        The fit, from :func:`drmath.calibrate.fit_events` or :func:`drmath.io.incidents.read_incidents`.

    Returns
    -------
    text : str
        TOML [1]_, validated by :func:`drmath.io.scenarios.loads`. [1]

    Raises
    ------
    ValueError
        If the fitted value is outside the field's range (e.g. an MTBF under a minute).

    References
    ----------
    .. [1] T. Preston-Werner et al., "TOML v1.0.0", https://toml.io/en/v1.0.0.

    Examples
    --------
    >>> from drmath.calibrate import fit_events
    >>> text = fragment(fit_events([0.0, 3000.0, 9000.0, 10000.0, 18000.0], 0.0, 20000.0))
    >>> text.splitlines()[0]
    '# drmath calibrate: a scenario fragment, the failure model fitted to an incident log.'
    """
    import tomli_w

    d = short_duration
    p = fit.provenance
    model = fit.model()
    failures = {path.split(".")[1]: "unset" if value is None else value for path, value in model.items()
                if not path.startswith(PREFIX)}
    spreads = {path[len(PREFIX):]: value for path, value in model.items() if path.startswith(PREFIX)}
    if fit.gpu_failure_rate is not None:
        what = (f"failures.gpu_failure_rate = {fit.gpu_failure_rate:.4g} /s per GPU "
                f"(95%: {fit.gpu_failure_rate_ci[0]:.4g} to {fit.gpu_failure_rate_ci[1]:.4g}), "
                f"fitted on {fit.gpus:,} GPUs")
    else:
        what = (f"failures.measured_mtbf = {d(fit.mtbf)} (95%: {d(fit.mtbf_ci[0])} to "
                f"{d(fit.mtbf_ci[1])}) for the fleet the log covers")
    source = f"{p.get('file', 'an incident log')}: {p.get('rows_used', '?')} rows"
    if p.get("filter"):
        source += f" where {' and '.join(p['filter'])}"
    calibration = {k: v for k, v in fit.to_dict().items() if k not in ("causes", "provenance")}
    calibration = {k: _toml_safe(v) for k, v in calibration.items() if v is not None}
    calibration["trend"]["sentence"] = fit.trend["sentence"]
    calibration["provenance"] = {k: _toml_safe(v) for k, v in p.items() if v is not None}
    data = {"scenario": {"description": f"The failure model fitted to {p.get('file', 'an incident log')} "
                                        "by drmath calibrate.",
                         "sources": [source], "calibration": calibration},
            "failures": failures, "uncertainty": table_of(spreads)}
    text = ("# drmath calibrate: a scenario fragment, the failure model fitted to an incident log.\n"
            "# Merge it over a scenario: drmath plan base.toml fleet.toml (later files override earlier ones,\n"
            "# field by field). [scenario.calibration] holds the fit and its provenance; the model ignores it.\n"
            f"# {what}.\n"
            f"# Trend: {fit.trend['sentence']}\n\n" + tomli_w.dumps(data))
    scenarios.loads(text, "the calibrated fragment")  # a value out of a field's range is refused here
    return text


def _toml_safe(value):
    """``value`` without its None entries (TOML has no null), at every depth."""
    if isinstance(value, dict):
        return {k: _toml_safe(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [_toml_safe(v) for v in value if v is not None]
    return value

