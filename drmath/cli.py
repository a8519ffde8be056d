"""The command line.

- ``drmath plan [SCENARIO ...] [--set section.field=value ...] [--json | --explain FIELD] [--draws N --seed S]``
- ``drmath solve [SCENARIO] --set requirements.rpo_site="15 min" --set requirements.rto_site="4 h" [--json]
  [--confidence P [--draws N --seed S]]``
- ``drmath compare A B [C [D]] [--json]``
- ``drmath report [SCENARIO] -o plan.html [--png DIR] [--quiet]``
- ``drmath export NOTEBOOK.ipynb [-o FILE.html] [--no-execute]``
- ``drmath calibrate LOG.csv --start-column NAME [--end-column NAME | --duration-column NAME --duration-unit s|min|h]
  [--time-format FMT]... [--where COLUMN=VALUE]... [--since DATE] [--gpus N] [--merge-within DURATION] [--json]
  [-o fleet.toml]``
- ``drmath measure RUN.jsonl [--json] [--scenario SCENARIO] [--gpus N]``

A SCENARIO is a TOML file, ``-`` for standard input, or the name of a scenario
that ships with drmath (:func:`scenario_path`): ``drmath compare seed llama3-405b``.
``drmath plan base.toml fleet.toml`` merges several: later files override earlier ones, field by
field (:func:`load_merged`), so a fragment written by ``drmath calibrate -o`` applies over a scenario.
Only regular files (and standard input) are read, each up to a size ceiling, and
``-o`` keeps an existing file's mode (:mod:`drmath.io.files`).

Errors in a file or a value exit with status 2 and one line naming the file or
the field; never a traceback. ``drmath solve`` exits with status 1 when no searched design
meets every target (it still prints the closest one and what it would take).
"""

import argparse
import json
import math
import os
import re
import sys
from pathlib import Path

from . import _resources, _spread_text, presets
from ._plan import plan
from ._validate import clip, short_repr
from .formatting import format_quantity, params_pair, tex_text
from .io import files, scenarios
from .io.scenarios import parse_value  # noqa: F401  (re-exported: ``--set`` reads values with it)
from .quantities import GROUPS, QUANTITIES, TARGETS, in_group
from .scenario import FIELDS, MODEL, PREFIX, SECTIONS, Scenario

_GROUPS = {g.title: [n for n in in_group(g.id) if not QUANTITIES[n].table] for g in GROUPS.values()}
"""The plan table's groups: :data:`drmath.quantities.GROUPS`, one line per scalar quantity."""


class CliError(Exception):
    """A user error: printed as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise CliError(message)


def apply_sets(scenario, assignments):
    """Apply ``section.field=value`` strings to a scenario, all at once; ``uncertainty.section.field=LOW,HIGH``
    (then optionally ``,DISTRIBUTION,CONFIDENCE``) sets an input's spread."""
    changes = {}
    for item in assignments:
        if "\ufeff" in item:  # invisible, so say it: usually pasted from a file saved "with BOM"
            raise ValueError(f"--set {short_repr(item)} holds a byte-order mark (U+FEFF): remove it")
        if "=" not in item:
            raise ValueError(f"--set {short_repr(item)} must look like section.field=value")
        path, text = item.split("=", 1)
        path = path.strip()
        spread = path.removeprefix(PREFIX)
        if path.startswith(PREFIX) and spread in FIELDS:  # uncertainty.section.field=LOW,HIGH[,DISTRIBUTION]
            changes[path] = _spread_text.from_query_text(spread, text, parse_value)
            continue
        if path == MODEL:  # training.model=PRESET: the architecture the counts come from
            changes[path] = None if text.strip().lower() in ("unset", "none", "") else text.strip()
            continue
        if path not in FIELDS and not path.startswith(PREFIX):
            scenario.get(path)  # raises the ValueError that names the sections or fields
        changes[path] = text if path.startswith(PREFIX) else parse_value(path, text)
    return scenario.with_changes(changes)


def _plain_formula(p, name):
    """The formula of ``explain(name)`` as plain text for a terminal (:func:`drmath.formatting.tex_text`)."""
    match = re.search(r"\$\$(.+?)\$\$", p.explain(name))
    return tex_text(match.group(1)) if match else ""


def render_table(p, bands=None):
    """The plan as a readable table: group, quantity, human value, formula; with ``bands``
    (:func:`drmath.bands`), each headline quantity's 90% range on the line under it."""
    lines = []
    ranged = bands is not None and bands.has_uncertainty
    for group, names in _GROUPS.items():
        lines.append(f"\n{group}")
        for name in names:
            lines.append(f"  {QUANTITIES[name].title:<42} {p.format(name):>16}   {_plain_formula(p, name)}")
            if ranged and name in bands.percentiles and bands.varies(name):  # a band only where it varies
                lines.append(f"  {'':<42} {bands.format_range(name)}")
    for text in p.warnings().values():  # what is wrong with the design, and the input that fixes it
        lines.append("\n! " + text.replace("**", "").replace("&#36;", "$").replace("\n", " "))
    s = p.scenario
    head = (f"drmath plan: {s.training.gpus:,} GPUs, {p.format('time_to_train')}, "
            f"{params_pair(p.params, p.active_params)} params, tier {s.failover.tier}")
    return head + "\n" + "\n".join(lines) + "\n"


def shipped_names():
    """The names of the scenarios that ship with drmath: their file names without ``.toml``, sorted.

    Examples
    --------
    >>> shipped_names()
    ['answer', 'frontier-100k-rsc1', 'llama3-405b', 'llama3-70b-2048', 'seed']
    """
    return [p.stem for p in _resources.scenario_files()]


def scenario_path(arg):
    """The file a SCENARIO argument names: a path, or the name of a shipped scenario.

    Parameters
    ----------
    arg : str
        A path to a TOML file, or a shipped scenario's name (:func:`shipped_names`).

    Returns
    -------
    path : pathlib.Path or str
        ``arg`` itself when it is an existing file, holds a path separator or ends in
        ``.toml``; the string ``"-"`` (standard input) for ``-``; otherwise the shipped
        ``<arg>.toml``.

    Raises
    ------
    CliError
        If ``arg`` is neither: the message lists the shipped names.

    Examples
    --------
    >>> scenario_path("llama3-405b").name, str(scenario_path("plans/llama3-405b"))
    ('llama3-405b.toml', 'plans/llama3-405b')
    >>> scenario_path("llama4")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    drmath.cli.CliError: 'llama4' is neither a file nor a shipped scenario: choose from answer, ...
    """
    if arg == files.STDIN:
        return arg
    path = Path(arg)
    separators = {os.sep, os.altsep, "/"} - {None}
    if (path.exists() and not path.is_dir()) or any(s in arg for s in separators) or arg.endswith(".toml"):
        return path
    names = shipped_names()
    if arg not in names:
        raise CliError(f"{short_repr(arg)} is neither a file nor a shipped scenario: choose from {', '.join(names)}")
    return _resources.scenario_dir() / f"{arg}.toml"


def load_scenario(path):
    """Read a scenario TOML file; errors name the file, the field and the line."""
    return load_with_meta(path)[0]


def load_with_meta(path):
    """A scenario file's scenario and ``[scenario]`` table, from one read (standard input can be read once)."""
    try:
        return scenarios.load_with_meta(path)
    except scenarios.ScenarioFileError as exc:
        raise CliError(str(exc)) from None


def load_merged(paths):
    """One scenario from several files: each read and validated on its own, later ones overriding earlier ones.

    Parameters
    ----------
    paths : list of (str or pathlib.Path)
        Scenario files as :func:`scenario_path` gives them (``"-"`` at most once).

    Returns
    -------
    scenario : Scenario
        The defaults, then each file's fields in turn: a field a later file sets replaces the
        earlier value; a field it does not set keeps it. The ``[scenario]`` tables are not merged
        (the model ignores them).

    Raises
    ------
    CliError
        As :func:`load_scenario` for a file that is bad on its own (naming it, the field and the
        line); for a merge that breaks a rule between fields, naming the files.

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "a.toml").write_text("[training]\\ngpus = 4096\\nmfu = 0.35\\n")
    >>> _ = (folder / "b.toml").write_text("[training]\\ngpus = 2048\\n")
    >>> s = load_merged([folder / "a.toml", folder / "b.toml"])
    >>> s.training.gpus, s.training.mfu
    (2048, 0.35)
    """
    if len(paths) == 1:
        return load_scenario(paths[0])
    if sum(1 for p in paths if p == files.STDIN) > 1:
        raise CliError("standard input (-) can be named once")
    changes = {}
    for path in paths:
        try:  # the file alone first, so its errors name it, its field and its line
            text, source = scenarios._read_text(path)
            data = scenarios._parse(text, source)
            scenarios._scenario(data, text, source)
        except scenarios.ScenarioFileError as exc:
            raise CliError(str(exc)) from None
        for section, table in data.items():
            if section == _spread_text.TABLE:
                changes.update(_spread_text.changes_of_table(table, scenarios.parse_value))
            elif section != scenarios.META:
                changes.update({f"{section}.{name}": scenarios.parse_value(f"{section}.{name}", value)
                                for name, value in table.items()})
    try:
        return Scenario().with_changes(changes)
    except (ValueError, TypeError) as exc:
        names = ", ".join(str(p) for p in paths)
        raise CliError(f"merging {names}: {exc}") from None


MERGE_HELP = ("rows that start at most this long after the row before them (in time order) are one event, e.g. 30 s "
              "or 5 min (default: 0, rows that start at the same recorded time); the rows merged are counted in the "
              "output")
"""``drmath calibrate --merge-within``'s help: its rule and its default (:data:`drmath.io.incidents.MERGE_WITHIN`)."""


CALIBRATE_HINTS = {"time_format": "--time-format", "since": "--since", "until": "--until",
                   "merge_within": "--merge-within"}
"""The options ``drmath calibrate``'s messages and summary name (:meth:`drmath.calibrate.Calibration.summary`)."""

CALIBRATE_EXAMPLE = """\
a ticket export as it comes (data/tickets_example.csv: columns Created, Resolved,
Component, Cluster; ISO and "2025-03-01 02:36:31 UTC" times; open tickets; rows
exported twice):

  drmath calibrate data/tickets_example.csv --start-column Created \\
      --end-column Resolved --cause-column Component --where Cluster=prod

times are read by the --time-format formats in order, or without one by ISO 8601
and the formats inferred from the values (the summary names them); a ticket with
no end time is open: a failure whose repair is right-censored at the window's end
(--until, default the log's latest time); identical rows are dropped and counted"""
"""``drmath calibrate --help``'s closing example: the command README.md shows for a ticket export."""


def _calibrate_parser(sub):
    """``drmath calibrate``'s options, with the ticket export's command as its help's example."""
    p_cal = sub.add_parser("calibrate", help="fit the failure and repair models to an incident log (CSV)",
                           epilog=CALIBRATE_EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    p_cal.add_argument("log", metavar="LOG.csv", help="the incident log: a CSV file with a header row, or -")
    p_cal.add_argument("--start-column", required=True, metavar="NAME", help="the column of each start time")
    p_cal.add_argument("--end-column", metavar="NAME", help="the column of each end time (or --duration-column)")
    p_cal.add_argument("--duration-column", metavar="NAME", help="the column of each duration, in --duration-unit")
    p_cal.add_argument("--duration-unit", choices=("s", "min", "h"), help="the unit of --duration-column")
    p_cal.add_argument("--time-format", metavar="FMT", action="append",
                       help='strftime format of the times, e.g. "%%d/%%m/%%Y %%H:%%M"; repeat it for several, '
                       "tried in order on each time (default: ISO 8601, then formats inferred from the values); "
                       "times without a zone are UTC")
    p_cal.add_argument("--where", action="append", default=[], metavar="COLUMN=VALUE",
                       help="keep rows whose COLUMN is VALUE; repeat it: all columns must match, and values "
                       "given for one column are alternatives")
    p_cal.add_argument("--since", metavar="DATE", help="open the window here (default: at the first event)")
    p_cal.add_argument("--until", metavar="DATE", help="close the window here, and censor the repairs of open "
                       "incidents (no end time) here (default: the log's latest time)")
    p_cal.add_argument("--gpus", type=int, metavar="N", help="GPUs of the fleet the log covers: adds the per-GPU "
                       "failure rate [1/s], and -o writes it as failures.gpu_failure_rate")
    p_cal.add_argument("--cause-column", metavar="NAME", help="the cause column (default: cause, if there is one)")
    p_cal.add_argument("--scope-column", metavar="NAME", help="the scope column (default: scope, if there is one)")
    p_cal.add_argument("--join-column", metavar="NAME", help="a yes/no column joining a row to the event of "
                       "the row before it in time (default: joins_previous, if there is one)")
    p_cal.add_argument("--merge-within", metavar="DURATION", help=MERGE_HELP)
    p_cal.add_argument("--json", action="store_true", help="print the fit as JSON in SI")
    p_cal.add_argument("-o", "--output", metavar="fleet.toml", help="write the fitted failure model as a scenario "
                       "fragment (atomically) for drmath plan SCENARIO fleet.toml")


def _merge_within(text):
    """``--merge-within``: seconds, or a duration with its unit ("5 min")."""
    from .io.incidents import MERGE_WITHIN
    from .units import parse_quantity

    if text is None:
        return MERGE_WITHIN
    try:
        return parse_quantity(text)
    except ValueError as exc:
        raise CliError(f"--merge-within: {exc}") from None


def _calibrate(args):
    from .io import fits, incidents

    if (args.end_column is None) == (args.duration_column is None):
        raise CliError("calibrate needs --end-column or --duration-column (with --duration-unit), not "
                       + ("both" if args.end_column is not None else "neither"))
    if args.duration_column is not None and args.duration_unit is None:
        raise CliError("--duration-column needs --duration-unit s, min or h")
    if args.duration_unit is not None and args.duration_column is None:
        raise CliError("--duration-unit goes with --duration-column")
    if args.gpus is not None and not 1 <= args.gpus <= 10**8:
        raise CliError(f"--gpus {args.gpus} is out of range: must be a whole number in [1, 1e8]")
    out = None
    if args.output:
        out = Path(args.output)
        files.output_target(out)  # refuse a directory, socket or block device before the work
    optional = {key: value for key, value in (("cause_column", args.cause_column),
                                              ("scope_column", args.scope_column),
                                              ("join_column", args.join_column)) if value is not None}
    fit = incidents.read_incidents(
        args.log, start_column=args.start_column, end_column=args.end_column, duration_column=args.duration_column,
        duration_unit=args.duration_unit, time_format=args.time_format, where=args.where, since=args.since,
        until=args.until, gpus=args.gpus, merge_within=_merge_within(args.merge_within), hints=CALIBRATE_HINTS,
        **optional)
    if out is not None:
        files.atomic_write(out, fits.fragment(fit))  # validated before it is written
    if args.json:
        return json.dumps(fit.to_dict(), indent=2, allow_nan=False)
    text = fit.summary(hints=CALIBRATE_HINTS)
    if out is not None:
        text += f"\n\nwrote {out}: merge it with drmath plan SCENARIO {out}"
    return text


def _measure_parser(sub):
    """``drmath measure``'s options."""
    p_mea = sub.add_parser("measure", help="a run's event log (JSONL) in: its measured goodput and badput")
    p_mea.add_argument("log", metavar="RUN.jsonl", help='the run log: one JSON object a line, {"time": ISO 8601 '
                       'or seconds, "event": job_start|step|checkpoint_saved|checkpoint_loaded|failure|job_end, '
                       '"step": N}; or -')
    p_mea.add_argument("--scenario", metavar="SCENARIO", help="the plan of the run: a scenario TOML file or shipped "
                       "name; prints its prediction beside the measured figures")
    p_mea.add_argument("--gpus", type=int, metavar="N", help="GPUs of the job: adds the per-GPU failure rate the "
                       "log implies [1/s] (default: the scenario's training.gpus)")
    p_mea.add_argument("--json", action="store_true", help="print the measurement as JSON in SI")


def _measure(args):
    from ._validate import visible
    from .io import runs
    from .measure import PART_TITLES
    from .units import hour

    if args.gpus is not None and not 1 <= args.gpus <= 10**8:
        raise CliError(f"--gpus {args.gpus} is out of range: must be a whole number in [1, 1e8]")
    p = plan(load_merged([scenario_path(args.scenario)])) if args.scenario else None
    gpus = args.gpus if args.gpus is not None else (p.scenario.training.gpus if p is not None else None)
    m = runs.measure_run_log(args.log)
    beside = _measure_beside(m, p, gpus) if p is not None else []
    if args.json:
        out = m.to_dict(gpus)
        if p is not None:
            out["plan"] = {key: _finite(plan_value) for key, _, _, plan_value, _ in beside}
            out["scenario"] = args.scenario
        return json.dumps({key: ({k: _finite(v) for k, v in value.items()} if isinstance(value, dict)
                                 else _finite(value)) for key, value in out.items()}, indent=2, allow_nan=False)
    name = files.STDIN_NAME if args.log == files.STDIN else visible(Path(args.log).name)
    lines = [f"drmath measure: {name}, {m.records:,} records: {m.jobs:,} job starts, {m.failures:,} "
             f"failure{'' if m.failures == 1 else 's'}, {m.checkpoints:,} checkpoints, {m.steps:,} new steps", "",
             f"  {'part':<20} {'time [s]':>14} {'time [h]':>10} {'share':>8}"]
    for part, seconds in m.parts.items():
        lines.append(f"  {PART_TITLES[part]:<20} {seconds:>14,.1f} {seconds / hour:>10,.2f} "
                     f"{m.shares[part]:>8.2%}")
    lines += [f"  {'Wall time':<20} {m.wall_time:>14,.1f} {m.wall_time / hour:>10,.2f} {1:>8.2%}", "",
              f"goodput {m.goodput:.2%} (badput {m.badput:.2%})"]
    rate = m.failure_rate()
    if m.exposure > 0:
        lines.append(f"failures: {m.failures:,} in {m.exposure / hour:,.2f} h of running jobs: "
                     f"{rate * hour:.3g} an hour"
                     + (f", MTBF {format_quantity(m.mtbf, 'duration')}" if m.failures else ""))
    if gpus is not None and m.exposure > 0:
        lines.append(f"implied failure rate: {m.failure_rate(gpus):.3g} /GPU/s on {gpus:,} GPUs "
                     f"(failures.gpu_failure_rate), from {m.failures:,} failures")
    if p is not None:
        lines += ["", f"measured beside the plan of {args.scenario}:",
                  f"  {'':<36} {'measured':>14} {'plan':>14}"]
        lines += [f"  {title:<36} {fmt(value):>14} {fmt(plan_value):>14}"
                  for _, title, value, plan_value, fmt in beside]
    return "\n".join(lines)


def _measure_beside(m, p, gpus):
    """The measured figures the plan predicts: (key, title, measured, plan's, format), both in SI."""
    def fraction(v):
        return format_quantity(v, "fraction", 4) if v is not None and math.isfinite(v) else "-"

    def duration(v):
        return format_quantity(v, "duration") if v is not None and math.isfinite(v) else "-"

    def rate(v):
        return f"{v:.3g} /s" if v is not None and math.isfinite(v) else "-"

    return [("ettr", "goodput (plan: ETTR)", m.goodput, p.ettr, fraction),
            ("mtbf", "time between failures (plan: MTBF)", m.mtbf, p.mtbf, duration),
            ("gpu_failure_rate", "failure rate per GPU", m.failure_rate(gpus) if m.exposure > 0 else None,
             p.scenario.failures.gpu_failure_rate, rate),
            ("checkpoint_stall", "stall per checkpoint", m.mean_stall, p.checkpoint_stall, duration),
            ("restart_overhead", "restart and load per job start", m.mean_restart, p.restart_overhead, duration)]


def _finite(value):
    """A number for JSON: None for NaN and inf."""
    return None if isinstance(value, float) and not math.isfinite(value) else value


def _compare(args):
    from . import comparison

    if not 2 <= len(args.scenarios) <= 4:
        raise CliError(f"compare needs 2 to 4 scenario files, got {len(args.scenarios)}")
    paths = [scenario_path(arg) for arg in args.scenarios]
    read = {}
    for path in paths:  # each file once: `-` twice is standard input twice, which reads once
        if path not in read:
            read[path] = load_with_meta(path)
    plans = [plan(read[path][0]) for path in paths]
    stems = [Path(files.STDIN_NAME if path == files.STDIN else path).stem for path in paths]
    names = stems if args.json else [read[path][1]["name"] for path in paths]
    if args.json:
        rows = comparison.compare_rows(plans)
        return json.dumps({"scenarios": names, "files": [str(path) for path in paths],
                           "inputs": comparison.compare_inputs(plans), "rows": [
            {"field": r["field"], "title": r["title"], "texts": r["texts"], "differs": r["differs"],
             "values": [None if isinstance(v, float) and math.isinf(v) else v for v in r["values"]]}
            for r in rows]}, indent=2, allow_nan=False)
    return comparison.compare_text(plans, names)


def _flag(item):
    """One ``--set`` argument as a shell word: ``path="value"`` when the value holds a space."""
    path, value = item.split("=", 1)
    return f'--set {path}="{value}"' if " " in value else f"--set {item}"


def _json_safe(value):
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def render_solution(solution, seconds):
    """The solved design as text: the ``--set`` flags that produce it, its cost, each target met or missed."""
    p = solution.plan
    head = ("drmath solve: the cheapest design that meets every target" if solution.feasible
            else "drmath solve: no searched design meets every target; the closest")
    if solution.confidence is not None:
        head += f" in at least {solution.confidence:.0%} of the draws" if solution.feasible else " at that confidence"
    lines = [f"{head} ({solution.searched:,} designs searched in {seconds:.2f} s)", ""]
    lines += ["  " + _flag(item) for item in solution.set_flags()]
    lines += ["", f"Total cost of resilience {p.format('total_cost_of_resilience')} = total DR cost "
              f"{p.format('total_dr_cost')} + goodput lost {p.format('goodput_lost_cost')}"]
    if solution.meets:
        lines.append("Targets:")
    for t in TARGETS:
        if t.input in solution.meets:
            state = "met" if solution.meets[t.input] else "MISSED"
            target = format_quantity(p.scenario.get(t.input), "duration")
            lines.append(f"  {t.label:<14} {p.format(t.value):>10}   target {target:>10}   {state}, "
                         f"margin {p.format(t.margin)}")
    if solution.reasons:
        lines.append("Other tiers:")
        lines += [f"  {tier}: {why}" for tier, why in solution.reasons.items()]
    lines += ["", solution.message, f"Pareto front of cost against site RPO and RTO: {solution.front_size} designs "
              "(--json for all)."]
    return "\n".join(lines)


def _solve(args):
    import time

    from ._solve import solve

    # no scenario named: the seed, with the worked answer's requirements (notebook 00 and the dashboard start there)
    scenario = load_merged([scenario_path(arg) for arg in args.scenario]) if args.scenario else scenarios.seed()
    scenario = apply_sets(apply_model(scenario, args.model), args.set)
    start = time.perf_counter()
    if scenario == scenarios.seed() and args.confidence is None:  # the worked answer itself, searched in one place
        from .answer import worked_answer

        solution = worked_answer()
    else:
        solution = solve(scenario, confidence=args.confidence, draws=args.draws, seed=args.seed)
    seconds = time.perf_counter() - start
    if not args.json:
        return render_solution(solution, seconds), 0 if solution.feasible else 1
    front = [{k: _json_safe(None if isinstance(x, float) and math.isnan(x) else x) for k, x in row.items()}
             for row in solution.front.to_dict(orient="records")]
    for row in front:
        row["meets_requirements"] = bool(row["meets_requirements"])
    payload = {"design": {k: _json_safe(x) for k, x in solution.scenario.flat().items()},
               "plan": solution.plan.to_json_dict(), "meets": solution.meets, "feasible": solution.feasible,
               "set": solution.set_flags(), "reasons": solution.reasons, "message": solution.message,
               "front": front}
    if solution.confidence is not None:
        payload.update(confidence=solution.confidence, probability_met=solution.probability_met,
                       point_design_miss_probability=solution.point_design_miss_probability)
    return json.dumps(payload, indent=2, allow_nan=False), 0 if solution.feasible else 1


def _report(args):
    from . import report

    path = scenario_path(args.scenario) if args.scenario else None
    out = Path(args.output)
    files.output_target(out)  # refuse a directory, socket, block device, symlink loop before the work
    if args.png is not None and Path(args.png).exists() and not Path(args.png).is_dir():
        raise CliError(f"{args.png}: --png needs a directory")
    say = (lambda message: None) if args.quiet else report._progress_printer()
    title, sections = None, None
    if path:
        scenario, meta = load_with_meta(path)
    else:  # no scenario: the worked answer, its design solved from the seed's requirements
        from . import answer

        sections = answer.worked_sections(progress=say)
        scenario, meta = answer.worked_answer().scenario, scenarios.read_meta(scenarios.SCENARIO_DIR / "seed.toml")
        title = f"The worked answer: {report.report_title(answer.worked_answer().plan)}"
        meta = {**meta, "description": "The seed scenario's requirements met at the lowest total cost of "
                                       "resilience: the design drmath solve finds, why not each other tier, every "
                                       "number's derivation, the drills and the follow-up questions."}
    written = report.write_report(scenario, out, png_dir=args.png, title=title,
                                  description=meta.get("description", ""), progress=say, start=meta.get("date"),
                                  answer=sections)
    say("done")
    return "\n".join(str(p) for p in written)


def _export(args):
    """``drmath export``: a notebook executed (as ``jupyter nbconvert --execute`` runs it) and written as one
    HTML file that shows its math and figures with no network (:func:`drmath.offline.export_html`)."""
    import nbformat

    from . import offline

    source = Path(args.notebook)
    if source.suffix != ".ipynb" or not source.is_file():
        raise CliError(f"{source}: not a notebook file (.ipynb)")
    out = Path(args.output) if args.output else source.with_suffix(".html")
    files.output_target(out)  # refuse a directory, socket, block device, symlink loop before the work
    try:
        nb = nbformat.read(source, as_version=4) if args.no_execute else offline.execute(source)
    except (ValueError, OSError):
        raise
    except Exception as exc:  # a cell's error (nbclient's CellExecutionError), a kernel that is missing or died
        first = next((line for line in str(exc).splitlines() if line.strip()), type(exc).__name__)
        raise CliError(f"{source}: the notebook did not run: {first}") from None
    return str(files.atomic_write(out, offline.export_html(nb, name=source.stem)))


def _export_parser(sub):
    p_exp = sub.add_parser("export", help="run a notebook and write it as one HTML file that needs no network")
    p_exp.add_argument("notebook", metavar="NOTEBOOK.ipynb", help="the notebook, e.g. notebooks/00_worked_answer.ipynb")
    p_exp.add_argument("-o", "--output", metavar="FILE.html",
                       help="the HTML file (written atomically; default: the notebook's name with .html, beside it)")
    p_exp.add_argument("--no-execute", action="store_true",
                       help="export the outputs the notebook holds (saved from JupyterLab) without running it")


def _draws(text):
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--draws {text!r} is not a whole number") from None
    from ._uncertainty import MAX_DRAWS

    if not 10 <= n <= MAX_DRAWS:
        raise argparse.ArgumentTypeError(f"--draws {n} is out of range: must be in [10, {MAX_DRAWS}]")
    return n


def _seed(text):
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--seed {text!r} is not a whole number") from None
    if n < 0:
        raise argparse.ArgumentTypeError(f"--seed {n} must be >= 0")
    return n


def _confidence(text):
    try:
        p = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--confidence {text!r} is not a number: must be in (0, 1)") from None
    if not 0 < p < 1:  # NaN too
        raise argparse.ArgumentTypeError(f"--confidence {text} is out of range: must be in (0, 1)")
    return p


def _confidence_options(parser):
    parser.add_argument("--confidence", type=_confidence, metavar="P",
                        help="the cheapest design whose targets hold in at least this share of the draws of the "
                        "scenario's [uncertainty], e.g. 0.95; says how often the point-estimate design would miss")
    _draw_options(parser, "--confidence")


def _draw_options(parser, what):
    parser.add_argument("--draws", type=_draws, default=2000, metavar="N",
                        help=f"draws of the uncertain inputs for {what} (default 2000)")
    parser.add_argument("--seed", type=_seed, default=0, metavar="S", help="seed of the draws (default 0)")


def main(argv=None):
    """Entry point of the ``drmath`` command; returns the exit status."""
    parser = _Parser(prog="drmath", description="The disaster-recovery math of a frontier training run.")
    shipped = ", ".join(shipped_names())
    sub = parser.add_subparsers(dest="command", required=True)
    p_plan = sub.add_parser("plan", help="derive every number of a scenario")
    p_plan.add_argument("scenario", nargs="*", help=f"scenario TOML file, - (standard input) or shipped name "
                        f"({shipped}; default: the seed case); several merge, later files overriding earlier "
                        "ones field by field")
    p_plan.add_argument("--set", action="append", default=[], metavar="SECTION.FIELD=VALUE",
                        help=f"change one input; sections: {', '.join(SECTIONS)}")
    _model_option(p_plan)
    p_plan.add_argument("--json", action="store_true", help="print the plan as JSON in SI")
    p_plan.add_argument("--explain", metavar="FIELD", help="print the worked derivation of one plan field")
    _draw_options(p_plan, "the headline quantities' 90%% ranges, when the scenario has [uncertainty]")
    p_solve = sub.add_parser("solve", help="the cheapest design that meets the requirements.* targets")
    p_solve.add_argument("scenario", nargs="*", help=f"scenario TOML file, - (standard input) or shipped name "
                         f"({shipped}; default: the seed case); several merge, as for plan")
    p_solve.add_argument("--set", action="append", default=[], metavar="SECTION.FIELD=VALUE",
                         help='change one input, e.g. requirements.rpo_site="15 min"')
    _model_option(p_solve)
    p_solve.add_argument("--json", action="store_true",
                         help="print design, plan, meets and front as JSON in SI")
    _confidence_options(p_solve)
    p_cmp = sub.add_parser("compare", help="two to four scenarios side by side")
    p_cmp.add_argument("scenarios", nargs="+", metavar="SCENARIO",
                       help=f"2 to 4 scenario files, - (standard input) or shipped names ({shipped}); the first is "
                       "the baseline")
    p_cmp.add_argument("--json", action="store_true", help="print the comparison as JSON")
    p_rep = sub.add_parser(
        "report", help="write the worked answer as one standalone HTML file",
        description="Write one self-contained HTML file (opens offline: plotly.js inlined, formulas as MathML). "
        "With no SCENARIO it is the worked answer: the seed's requirements, the cheapest design that meets them "
        "(as drmath solve finds it), why not each other tier, every number's derivation with interactive figures, "
        "the drill schedule and the RTO the drills promise, and the follow-up questions answered. With a "
        "SCENARIO it is that scenario's plan: every number's derivation, the figures, the drills and the inputs.")
    p_rep.add_argument("scenario", nargs="?", help=f"scenario TOML file, - (standard input) or shipped name "
                       f"({shipped}); default: the worked answer")
    p_rep.add_argument("-o", "--output", required=True, metavar="FILE.html", help="the HTML file (written atomically)")
    p_rep.add_argument("--png", metavar="DIR", help="also write each figure as PNG into DIR (through kaleido)")
    p_rep.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    _calibrate_parser(sub)
    _export_parser(sub)
    _measure_parser(sub)
    try:
        args = parser.parse_args(argv)
        if args.command == "compare":
            print(_compare(args))
            return 0
        if args.command == "report":
            print(_report(args))
            return 0
        if args.command == "export":
            print(_export(args))
            return 0
        status = 0
        if args.command == "solve":
            out, status = _solve(args)
        elif args.command == "calibrate":
            out = _calibrate(args)
        elif args.command == "measure":
            out = _measure(args)
        else:
            out = _plan(args)
    except (CliError, ValueError, TypeError, OSError) as exc:
        lines = f"drmath: error: {_message(exc)}".splitlines()
        # an incident log's problems: the first line, then each listed problem (at most ten) and the count
        shown = lines[:12] if type(exc).__name__ == "IncidentLogError" else lines[:1]
        print("\n".join(clip(line, 1000) for line in shown), file=sys.stderr)
        return 2
    try:
        print(out, flush=True)
    except BrokenPipeError:  # `drmath plan | head`: the reader left, which is not an error
        sys.stdout = open(os.devnull, "w")
    return status


def _message(exc):
    """An error's text for the one line: an OSError as ``<file>: <reason>``, without Python's ``[Errno N]``."""
    if isinstance(exc, OSError) and exc.strerror:
        return f"{exc.filename}: {exc.strerror}" if exc.filename is not None else exc.strerror
    return str(exc)


def apply_model(scenario, model):
    """The scenario with ``--model``: a preset architecture's name, or a ``config.json`` (a Hugging Face-style model
    config, read by :func:`drmath.io.models.read_config`); unchanged when ``model`` is None."""
    if model is None:
        return scenario
    from .io.models import read_config

    architecture = model if model in presets.MODELS else read_config(model)
    return scenario.with_changes({MODEL: architecture})


def _model_option(parser):
    parser.add_argument("--model", metavar="config.json",
                        help="the model: a Hugging Face-style config.json, or a preset (" + ", ".join(presets.MODELS)
                        + "); sets training.params and training.active_share")


def _plan(args):
    scenario = load_merged([scenario_path(arg) for arg in args.scenario]) if args.scenario else Scenario()
    scenario = apply_sets(apply_model(scenario, args.model), args.set)
    result = plan(scenario)
    if args.explain:
        return result.explain(args.explain).replace("&#36;", "$")  # plain text keeps its dollars
    bands = None
    if scenario.uncertainty:
        from ._uncertainty import bands as draw_bands

        bands = draw_bands(scenario, draws=args.draws, seed=args.seed)
    if args.json:
        return json.dumps({**result.to_json_dict(), **(bands.to_json_dict() if bands else {})}, indent=2,
                          allow_nan=False)
    return render_table(result, bands)


if __name__ == "__main__":
    sys.exit(main())
