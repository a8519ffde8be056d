"""Write what a reader sees of every shipped scenario as one JSON file, to compare before and after a refactor.

    python bench/behaviour_snapshot.py OUT.json          # the snapshot
    python bench/behaviour_snapshot.py --diff A.json B.json   # what differs, line by line

The snapshot holds, for each shipped scenario: ``explain()`` of every registered quantity (and the two
RTO phase lists), the warnings, ``drmath plan --json``, the report's numbers (every ``data-field`` /
``data-si`` span with its text) and its text (the HTML with its scripts removed), the dashboard's cards,
tier table, warnings and each card's "show the math", and ``solve()``'s answer and Pareto front. It uses
only public names, so it runs unchanged on both sides of a refactor that moves modules. Nothing here is a
test: a refactor that should not change behaviour runs it before and after and diffs the two files.
"""

import contextlib
import difflib
import io
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

_SPAN = re.compile(r'<span class="num"[^>]*data-field="([^"]*)"[^>]*data-si="([^"]*)"[^>]*>(.*?)</span>', re.S)
_SCRIPT = re.compile(r"<script\b.*?</script>", re.S)


def _scenarios():
    from drmath.io import scenarios

    return {path.stem: scenarios.load(path) for path in scenarios.shipped_scenarios().values()}


def _explanations(p):
    from drmath import quantities

    names = list(quantities.QUANTITIES) + ["rto_local_phases", "rto_site_phases"]
    return {name: str(p.explain(name)) for name in names}


def _cli_json(name):
    from drmath import cli

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = cli.main(["plan", name, "--json"])
    return {"status": status, "json": json.loads(out.getvalue())}


def _report(scenario):
    from drmath import report

    html = report.build_report(scenario, include_plotlyjs=False)
    numbers = [list(m) for m in _SPAN.findall(html)]
    return {"numbers": numbers, "text": _SCRIPT.sub("<script/>", html)}


def _dashboard(scenario):
    from drmath import dashboard

    app = dashboard.Dashboard(scenario)
    maths = {}
    for name in app.cards:
        app.math_toggles[name].value = True
        maths[name] = app.math_views[name].outputs[0]["data"]["text/markdown"]
    return {"cards": {name: w.value for name, w in app.cards.items()}, "tiers": app.tiers.value,
            "warnings": app.warnings.value, "replication_note": app.replication_note.value, "math": maths}


def _solve(scenario):
    import drmath

    solution = drmath.solve(scenario)
    return {"feasible": solution.feasible, "meets": solution.meets, "changes": solution.changes,
            "reasons": solution.reasons, "message": solution.message, "searched": solution.searched,
            "set_flags": solution.set_flags(), "front": solution.front.to_json(orient="split", double_precision=15)}


def snapshot():
    import drmath

    out = {}
    for name, scenario in _scenarios().items():
        p = drmath.plan(scenario)
        out[name] = {"explain": _explanations(p), "warnings": {k: str(v) for k, v in p.warnings().items()},
                     "cli_plan_json": _cli_json(name), "report": _report(scenario),
                     "dashboard": _dashboard(scenario), "solve": _solve(scenario)}
    return out


def _leaves(obj, prefix=""):
    if isinstance(obj, dict):
        for key, value in obj.items():
            yield from _leaves(value, f"{prefix}/{key}")
    else:
        yield prefix, obj


def diff(a, b):
    """Print each leaf that differs (a unified diff for text); return the number of differences."""
    left, right = dict(_leaves(a)), dict(_leaves(b))
    count = 0
    for key in sorted(set(left) | set(right)):
        x, y = left.get(key, "<missing>"), right.get(key, "<missing>")
        if x == y:
            continue
        count += 1
        print(f"--- {key}")
        if isinstance(x, str) and isinstance(y, str):
            sys.stdout.writelines(difflib.unified_diff(x.splitlines(True), y.splitlines(True), "before", "after", n=0))
            print()
        else:
            print(f"  before: {json.dumps(x)[:400]}\n  after:  {json.dumps(y)[:400]}")
    print(f"{count} difference(s)")
    return count


def main(argv):
    if argv[:1] == ["--diff"]:
        a, b = (json.loads(Path(f).read_text()) for f in argv[1:3])
        return 1 if diff(a, b) else 0
    Path(argv[0]).write_text(json.dumps(snapshot(), indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
