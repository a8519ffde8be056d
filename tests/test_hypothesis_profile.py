"""Every property test draws the same examples on every run: tests/conftest.py's hypothesis profile reaches it.

Each test module that uses ``@given`` is imported and each of its property tests' settings are read as
hypothesis will run them: derandomized (examples seeded from the test's source) and without an example
database (nothing an earlier run stored is replayed first). A test whose own ``@settings`` turned either
back on would fail here.
"""

import importlib.util
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
MODULES = sorted(path for path in TESTS.glob("test_*.py")
                 if path.name != Path(__file__).name and "@given" in path.read_text(encoding="utf-8"))


def property_tests(path):
    """``(name, settings)`` of each module-level property test (and each in a test class) of the file."""
    spec = importlib.util.spec_from_file_location(f"_profile_check_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    found = []
    for name, value in vars(module).items():
        members = vars(value).items() if isinstance(value, type) else [(name, value)]
        for member, test in members:
            if callable(test) and hasattr(test, "hypothesis"):
                found.append((f"{name}.{member}" if member != name else name,
                              test._hypothesis_internal_use_settings))
    return found


def test_the_property_test_modules_are_found():
    assert {"test_properties.py", "test_fuzz.py", "test_pipeline_bound.py"} <= {p.name for p in MODULES}


@pytest.mark.parametrize("path", MODULES, ids=[p.stem for p in MODULES])
def test_every_property_test_is_derandomized_without_a_database(path):
    tests = property_tests(path)
    assert tests, f"{path.name} uses @given but no property test was found in it"
    for name, settings in tests:
        assert settings.derandomize, f"{path.name}::{name} draws new examples on every run"
        assert settings.database is None, f"{path.name}::{name} replays an example database first"
