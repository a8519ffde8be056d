"""Meta-test: every public function documents each parameter and return with a [unit]."""

import importlib
import inspect
import re

import pytest

MODULES = ["units", "presets", "training", "checkpoint", "replication", "reliability", "recovery", "cost",
           "scenario"]
OPTIONAL = ["simulate", "drills", "viz", "dashboard", "diagrams"]


def _modules():
    names = list(MODULES)
    for name in OPTIONAL:
        try:
            importlib.import_module(f"drmath.{name}")
            names.append(name)
        except ImportError:
            pass
    return names


def _public_functions():
    for name in _modules():
        module = importlib.import_module(f"drmath.{name}")
        for attr in getattr(module, "__all__", []):
            obj = getattr(module, attr)
            if inspect.isfunction(obj):
                yield pytest.param(obj, id=f"{name}.{attr}")


def _section(doc, title):
    match = re.search(rf"\n\s*{title}\n\s*-+\n(.*?)(?:\n\s*\n\s*[A-Z][a-z]+( [A-Z][a-z]+)?\n\s*-+\n|\Z)", doc, re.S)
    return match.group(1) if match else None


def _entries(section):
    """numpydoc entries: a 'name : type' line followed by indented description lines."""
    entries, current = [], None
    for line in section.splitlines():
        if re.match(r"^    \S", line):
            current = [line.strip(), []]
            entries.append(current)
        elif current is not None and line.strip():
            current[1].append(line.strip())
    return entries


@pytest.mark.parametrize("func", list(_public_functions()))
def test_parameters_and_returns_end_in_a_unit(func):
    doc = inspect.getdoc(func)
    assert doc, f"{func.__qualname__} has no docstring"
    doc = "\n" + "\n".join("    " + line if line else line for line in doc.splitlines())
    params = [p for p in inspect.signature(func).parameters if p not in ("self", "cls")]
    section = _section(doc, "Parameters")
    if params:
        assert section, f"{func.__qualname__} documents no Parameters"
        documented = {entry[0].split(":")[0].strip().lstrip("*") for entry in _entries(section)}
        assert set(params) <= documented, f"undocumented: {set(params) - documented}"
        for head, body in _entries(section):
            assert body and re.search(r"\[[^\]]+\]$", body[-1]), f"{func.__qualname__}: '{head}' ends without [unit]"
    returns = _section(doc, "Returns")
    assert returns, f"{func.__qualname__} documents no Returns"
    for head, body in _entries(returns):
        assert body and re.search(r"\[[^\]]+\]$", body[-1]), f"{func.__qualname__}: return '{head}' ends without [unit]"
    assert "Examples" in doc, f"{func.__qualname__} has no Examples (doctest)"


def test_every_error_test_uses_match():
    """An error test without match= passes on the wrong error (pvlib's uninterpolated message)."""
    from pathlib import Path
    here = Path(__file__).resolve().parent
    offenders = []
    for path in sorted(here.glob("test_*.py")):
        text = path.read_text()
        for m in re.finditer(r"pytest\.raises\(", text):
            depth, i = 1, m.end()
            while depth and i < len(text):
                depth += {"(": 1, ")": -1}.get(text[i], 0)
                i += 1
            call = text[m.start():i]
            if "match=" not in call and "pytest.raises(\\" not in call:
                offenders.append(f"{path.name}: {call[:60]}")
    assert offenders == []
