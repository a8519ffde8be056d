"""The house in order (issue 20): no view, server or plan module over about 600 lines, no function over
about 80 lines of code.

Formula modules may run longer where their docstrings make them so (they hold every formula's units,
Notes, references and doctests), so only the modules that do a view's, the server's or the plan's job
are held to the line count. A function's length is its lines of code: its docstring, blank lines and
comment lines aside.
"""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "drmath"
BOUNDED = ("_plan.py", "_solve.py", "explain.py", "report.py", "comparison.py", "answer.py", "cli.py",
           "diagrams.py", "serve/*.py", "viz/*.py", "dashboard/*.py")
MOST_LINES = 600
MOST_CODE = 80


def _modules(patterns):
    return sorted({path for pattern in patterns for path in PACKAGE.glob(pattern)})


def _code_lines(function, lines):
    """Lines of code of ``function``: its body without the docstring, blank lines and comments."""
    body = function.body
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]
    numbers = {n for node in body for n in range(node.lineno, node.end_lineno + 1)}
    return sum(1 for n in numbers if lines[n - 1].strip() and not lines[n - 1].strip().startswith("#"))


@pytest.mark.parametrize("path", _modules(BOUNDED), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_view_server_or_plan_module_is_over_600_lines(path):
    count = len(path.read_text().splitlines())
    assert count <= MOST_LINES, f"{path.relative_to(PACKAGE)} has {count} lines: split it by job"


def test_no_function_is_over_80_lines_of_code():
    long = []
    for path in _modules(["*.py", "*/*.py"]):
        lines = path.read_text().splitlines()
        for node in ast.walk(ast.parse("\n".join(lines))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _code_lines(node, lines) > MOST_CODE:
                long.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {node.name} ({_code_lines(node, lines)})")
    assert long == [], f"functions over {MOST_CODE} lines of code: {long}"


def test_the_counter_counts_code_only():
    source = 'def f():\n    """Doc.\n\n    More doc.\n    """\n    # a comment\n\n    x = 1\n    return x\n'
    [function] = ast.parse(source).body
    assert _code_lines(function, source.splitlines()) == 2
