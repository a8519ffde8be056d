"""The command line: ``drmath plan [SCENARIO.toml] [--set section.field=value ...] [--json]``.

Errors in a file or a value exit with status 2 and one line naming the field;
never a traceback.
"""

import argparse
import json
import re
import sys

from .scenario import FIELDS, PLAN_FIELDS, SECTIONS, Scenario, plan
from .units import parse_quantity

_GROUPS = {
    "Training": ["training_flops", "compute_time", "time_to_train", "tokens", "gpu_hours", "run_cost"],
    "Checkpoints": ["checkpoint_size", "shard_size", "checkpoint_write_time", "checkpoint_stall",
                    "checkpoint_load_time", "checkpoint_interval", "checkpoint_bandwidth_share"],
    "Failures": ["mtbf", "expected_interruptions", "young_interval", "daly_interval", "optimal_interval",
                 "restart_overhead", "ettr"],
    "Replication": ["replication_every", "replication_interval", "object_store_time", "link_time",
                    "replication_time", "replication_utilization", "replication_keeps_up"],
    "RPO": ["rpo_local", "rpo_local_expected", "rpo_site", "rpo_site_expected"],
    "RTO": ["rto_local", "rto_site", "standby_gpus", "schedule_slip"],
    "Cost": ["standby_cost", "replication_cost", "site_event_probability", "expected_disaster_loss",
             "total_dr_cost"],
}


class CliError(Exception):
    """A user error: printed as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise CliError(message)


def parse_value(path, text):
    """Read a ``--set`` value for field ``path`` from its text.

    Numbers may carry a unit (``400 Gbps``, ``90 days``, ``40%``); numeric fields
    with presets also take a preset name (``failures.gpu_failure_rate=rsc-1``);
    optional fields take ``unset``.
    """
    info = FIELDS[path]
    text = text.strip()
    if info.optional and text.lower() in ("unset", "none", "null", ""):
        return None
    if info.choices is not None:
        return text
    if info.kind == "flag":
        if text.lower() in ("true", "yes", "1", "on"):
            return True
        if text.lower() in ("false", "no", "0", "off"):
            return False
        raise ValueError(f"{path} = {text!r} is not valid: must be true or false")
    if info.preset and text in info.preset[0]:
        return text
    try:
        return parse_quantity(text)
    except ValueError:
        raise ValueError(f"{path} = {text!r} is not a number: must be {info.range_text()}") from None


def apply_sets(scenario, assignments):
    """Apply ``section.field=value`` strings to a scenario, all at once."""
    changes = {}
    for item in assignments:
        if "=" not in item:
            raise ValueError(f"--set {item!r} must look like section.field=value")
        path, text = item.split("=", 1)
        path = path.strip()
        if path not in FIELDS:
            scenario.get(path)  # raises the ValueError that names the sections or fields
        changes[path] = parse_value(path, text)
    return scenario.with_changes(changes)


def _plain_formula(p, name):
    """The formula of ``explain(name)``, lightly de-LaTeXed for a terminal."""
    match = re.search(r"\$\$(.+?)\$\$", p.explain(name))
    if not match:
        return ""
    text = match.group(1)
    greek = {"tau": "τ", "delta": "δ", "lambda": "λ", "eta": "η", "ell": "ℓ", "rho": "ρ", "infty": "∞",
             "le": "≤", "times": "×", "Delta": "Δ", "lceil": "⌈", "rceil": "⌉", "sqrt": "√"}
    arg = r"\{((?:[^{}]|\{[^{}]*\})*)\}"
    for _ in range(3):  # nested fractions
        text = re.sub(r"\\t?frac" + arg + arg, r"(\1)/(\2)", text)
    for pattern, repl in [(r"\\(mathrm|text|operatorname)\{([^}]*)\}", r"\2"), (r"\\(left|right)", ""),
                          (r"\\[,;!]", " "), (r"\\(" + "|".join(greek) + r")(?![a-zA-Z])", lambda m: greek[m.group(1)]),
                          (r"\\", ""), (r"(?<![_^]){([^{}]*)}", r"\1"), (r"\s+", " ")]:
        text = re.sub(pattern, repl, text)
    return text.strip()


def render_table(p):
    """The plan as a readable table: group, quantity, human value, formula."""
    lines = []
    for group, names in _GROUPS.items():
        lines.append(f"\n{group}")
        for name in names:
            lines.append(f"  {PLAN_FIELDS[name][1]:<42} {p.format(name):>14}   {_plain_formula(p, name)}")
    if not p.replication_keeps_up:
        text = p.explain("rpo_site").split("**Replication does not keep up**")[-1]
        lines.append("\n! Replication does not keep up" + text.strip().replace("\n", " "))
    s = p.scenario
    head = (f"drmath plan: {s.training.gpus:,} GPUs, {p.format('time_to_train')}, "
            f"{s.training.params / 1e9:g}B params, tier {s.failover.tier}")
    return head + "\n" + "\n".join(lines) + "\n"


def load_scenario(path):
    """Read a scenario TOML file; errors name the file, the field and the line."""
    import tomllib
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except OSError as exc:
        raise CliError(f"{path}: cannot read: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise CliError(f"{path}: not valid TOML: {exc}") from None
    try:
        return Scenario.from_dict(data)
    except (ValueError, TypeError) as exc:
        raise CliError(f"{path}: {exc}{_line_of(path, exc)}") from None


def _line_of(path, exc):
    match = re.match(r"(?:unknown field '?)?(\w+)\.(\w+)", str(exc))
    if not match:
        return ""
    section, name = match.groups()
    current = None
    with open(path, encoding="utf-8", errors="replace") as fh:
        for number, line in enumerate(fh, 1):
            stripped = line.strip()
            if stripped.startswith("["):
                current = stripped.strip("[] ")
            elif current == section and re.match(rf"{name}\s*=", stripped):
                return f" (line {number})"
    return ""


def main(argv=None):
    """Entry point of the ``drmath`` command; returns the exit status."""
    parser = _Parser(prog="drmath", description="The disaster-recovery math of a frontier training run.")
    sub = parser.add_subparsers(dest="command", required=True)
    p_plan = sub.add_parser("plan", help="derive every number of a scenario")
    p_plan.add_argument("scenario", nargs="?", help="scenario TOML file (default: the seed case)")
    p_plan.add_argument("--set", action="append", default=[], metavar="SECTION.FIELD=VALUE",
                        help=f"change one input; sections: {', '.join(SECTIONS)}")
    p_plan.add_argument("--json", action="store_true", help="print the plan as JSON in SI")
    p_plan.add_argument("--explain", metavar="FIELD", help="print the worked derivation of one plan field")
    try:
        args = parser.parse_args(argv)
        scenario = load_scenario(args.scenario) if args.scenario else Scenario()
        scenario = apply_sets(scenario, args.set)
        result = plan(scenario)
        if args.explain:
            out = result.explain(args.explain)
        elif args.json:
            out = json.dumps(result.to_json_dict(), indent=2, allow_nan=False)
        else:
            out = render_table(result)
    except (CliError, ValueError, TypeError) as exc:
        print(f"drmath: error: {exc}".splitlines()[0], file=sys.stderr)
        return 2
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
