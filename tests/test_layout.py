"""The house in order, by rule (issue 33): no module over 600 lines of code, no function over 80.

A module's or a function's length is its lines of code: docstrings (of the module, its classes, functions and
attributes), blank lines and comment lines aside. Formula modules are long where their docstrings hold every
formula's units, Notes, references and doctests; that prose is not what makes a module hard to change.
"""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "drmath"
MOST_LINES = 600
MOST_CODE = 80


def _modules(patterns):
    return sorted({path for pattern in patterns for path in PACKAGE.glob(pattern)})


def _is_text(node):
    """Whether ``node`` is a bare string statement (a docstring)."""
    return isinstance(node, ast.Expr) and isinstance(getattr(node, "value", None), ast.Constant) \
        and isinstance(node.value.value, str)


def _is_code(line):
    return bool(line.strip()) and not line.strip().startswith("#")


def _code_lines(function, lines):
    """Lines of code of ``function``: its body without the docstring, blank lines and comments."""
    body = function.body[1:] if function.body and _is_text(function.body[0]) else function.body
    numbers = {n for node in body for n in range(node.lineno, node.end_lineno + 1)}
    return sum(1 for n in numbers if _is_code(lines[n - 1]))


def _docstring_lines(tree):
    """The line numbers of every docstring: of the module, classes and functions, and of attributes (a string
    right after an assignment, as Sphinx reads it)."""
    lines = set()
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        body = node.body
        texts = [body[0]] if body and _is_text(body[0]) else []
        texts += [b for a, b in zip(body, body[1:]) if isinstance(a, (ast.Assign, ast.AnnAssign)) and _is_text(b)]
        for text in texts:
            lines.update(range(text.lineno, text.end_lineno + 1))
    return lines


def module_code_lines(source):
    """Lines of code of a module's ``source``: docstrings, blank lines and comments aside."""
    docs = _docstring_lines(ast.parse(source))
    return sum(1 for n, line in enumerate(source.splitlines(), 1) if _is_code(line) and n not in docs)


@pytest.mark.parametrize("path", _modules(["**/*.py"]), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_is_over_600_lines_of_code(path):
    count = module_code_lines(path.read_text())
    assert count <= MOST_LINES, f"{path.relative_to(PACKAGE)} has {count} lines of code: split it by job"


def test_the_module_counter_counts_code_only():
    source = '"""Doc.\n\nMore."""\n\nX = 1\n"""X\'s doc."""\n\n\nclass A:\n    """Doc."""\n\n    # note\n    y = 2\n'
    assert module_code_lines(source) == 3  # X = 1, class A:, y = 2


def test_no_function_is_over_80_lines_of_code():
    long = []
    for path in _modules(["**/*.py"]):
        lines = path.read_text().splitlines()
        for node in ast.walk(ast.parse("\n".join(lines))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _code_lines(node, lines) > MOST_CODE:
                long.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {node.name} ({_code_lines(node, lines)})")
    assert long == [], f"functions over {MOST_CODE} lines of code: {long}"


def test_the_counter_counts_code_only():
    source = 'def f():\n    """Doc.\n\n    More doc.\n    """\n    # a comment\n\n    x = 1\n    return x\n'
    [function] = ast.parse(source).body
    assert _code_lines(function, source.splitlines()) == 2
