"""Fuzzing: hostile and random input never yields a wrong-looking number or a stray exception.

Valid input gives finite, non-negative numbers (or the documented ``inf`` with its flag);
invalid input (negative, zero where not allowed, NaN, ±inf, out of range, the wrong type,
unknown keys, huge values) gives ``ValueError`` or ``TypeError`` naming the field.

Each target runs ``DRMATH_FUZZ_EXAMPLES`` examples: 1,000 by default, the same ones every run (derandomized),
so that the whole CI run stays within 15 minutes on two cores (at 10,000 the module alone took 4-7 minutes of
it, more than any other). The nightly profile is
``DRMATH_FUZZ_EXAMPLES=200000 ./tasks test tests/test_fuzz.py``.
"""

import inspect
import math
import os
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drmath import Scenario, checkpoint, cost, plan, recovery, reliability, replication, training
from drmath.cli import main
from drmath.quantities import PLAN_FIELDS
from drmath.scenario import FIELDS

EXAMPLES = int(os.environ.get("DRMATH_FUZZ_EXAMPLES", "1000"))
pytestmark = pytest.mark.slow  # 1,000 examples a target, ~1.5 CPU-min: CI fuzzes, the fast set does not
fuzz = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                suppress_health_check=list(HealthCheck))

# ------------------------------------------------------------------ strategies

def valid_value(info):
    if info.choices is not None:
        return st.sampled_from(info.choices)
    if info.kind == "flag":
        return st.booleans()
    if info.integer:
        return st.integers(int(info.low), int(info.high))
    low, high = info.low, info.high
    if low > 0 and high / low > 1e3:
        values = st.floats(math.log10(low), math.log10(high)).map(lambda e: min(max(10 ** e, low), high))
    else:  # a nonzero magnitude below 1e-30 is refused as unphysical
        values = st.floats(low, high).map(lambda x: 0.0 if abs(x) < 1e-30 and low <= 0 else x)
    return st.one_of(st.none(), values) if info.optional else values


def invalid_value(info):
    """Values this field must refuse."""
    wrong_type = st.one_of(st.lists(st.integers(), max_size=2),
                           st.dictionaries(st.text(max_size=2), st.integers(), max_size=1))
    if info.choices is not None:
        not_a_choice = st.text(max_size=8).filter(lambda t: t not in info.choices)
        return st.one_of(not_a_choice, st.integers(), st.floats(), wrong_type)
    if info.kind == "flag":
        return st.one_of(st.text(max_size=4), st.integers(), st.floats(), wrong_type)
    bad_numbers = st.one_of(
        st.just(float("nan")), st.just(float("inf")), st.just(float("-inf")),
        st.floats(max_value=info.low, exclude_max=not info.low_open, allow_nan=False, allow_infinity=False),
        st.floats(min_value=info.high, exclude_min=True, allow_nan=False, allow_infinity=False),
        st.just(1e308), st.just(-1e308))
    others = st.one_of(st.text(max_size=6), st.booleans(), wrong_type)
    if not info.optional:
        others = st.one_of(others, st.none())
    if info.integer:
        bad_numbers = st.one_of(bad_numbers, st.floats(info.low, info.high).filter(lambda x: not float(x).is_integer()))
    return st.one_of(bad_numbers, others)


# built once: a strategy is costly to construct, cheap to draw from
VALID = {path: valid_value(info) for path, info in FIELDS.items()}
INVALID = {path: invalid_value(info) for path, info in FIELDS.items()}


@st.composite
def valid_scenarios(draw, most=12):
    """Up to `most` fields changed at once (all 40 cost hypothesis ~15 ms an example to draw;
    tests/test_properties.py draws every field, on fewer examples)."""
    paths = draw(st.lists(st.sampled_from(sorted(VALID)), max_size=most, unique=True))
    return Scenario().with_changes({p: draw(VALID[p]) for p in paths})


# ------------------------------------------------------------------ Scenario and plan()

@fuzz
@given(valid_scenarios())
def test_valid_scenarios_give_finite_nonnegative_numbers(s):
    p = plan(s)
    for name in PLAN_FIELDS:
        if name.endswith("_margin"):  # a requirement's margin: target − value, signed, inf when no target is set
            assert not math.isnan(getattr(p, name)), name
            continue
        value = float(getattr(p, name))
        assert value >= 0, name  # also false for NaN
        if math.isinf(value):
            # unbounded only behind replication, or where goodput collapsed in a token-driven run (the exact
            # ETTR stays positive but may underflow, so the run it implies overflows), as in test_properties
            assert (not p.replication_keeps_up) or (p.goodput_collapsed and p.run_driver == "tokens"), name
    for phases in (p.rto_local_phases, p.rto_site_phases):
        assert all(math.isfinite(v) and v >= 0 for v in phases.values())


@fuzz
@given(st.data())
def test_invalid_field_values_are_refused_by_name(data):
    path = data.draw(st.sampled_from(sorted(FIELDS)))
    value = data.draw(INVALID[path])
    base = Scenario()
    with pytest.raises((ValueError, TypeError), match=re.escape(path)):
        base.with_changes({path: value})
    assert base == Scenario()  # nothing half-applied


@fuzz
@given(st.text(min_size=1, max_size=20), st.text(max_size=12), st.integers())
def test_unknown_keys_are_refused_by_name(section, name, value):
    path = f"{section}.{name}"
    if path in FIELDS:
        return
    with pytest.raises(ValueError, match="unknown (field|section)"):
        Scenario().with_changes({path: value})


# ------------------------------------------------------------------ every public formula

def _numeric_functions():
    for module in (training, checkpoint, replication, reliability, recovery, cost):
        for name in module.__all__:
            func = getattr(module, name)
            if callable(func) and name not in ("chain_time", "rto", "local_rto_phases", "site_rto_phases"):
                yield pytest.param(func, id=f"{module.__name__.split('.')[-1]}.{name}")


any_arg = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True), st.floats(1e-6, 1e12), st.integers(-10, 10**9),
    st.text(max_size=4), st.none(), st.booleans(),
    st.lists(st.floats(1e-3, 1e9), min_size=1, max_size=3),
    st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=1, max_size=3))


@pytest.mark.parametrize("func", list(_numeric_functions()))
def test_public_functions_refuse_or_answer_cleanly(func):
    names = list(inspect.signature(func).parameters)

    @settings(max_examples=EXAMPLES // 10, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(st.fixed_dictionaries({n: any_arg for n in names}))
    def check(kwargs):
        try:
            result = func(**kwargs)
        except (ValueError, TypeError) as exc:
            assert any(n in str(exc) for n in names), f"{exc} names no argument of {names}"
            return
        out = np.asarray(result, dtype=float)
        assert not np.isnan(out).any(), f"NaN from {kwargs}"
        if func.__name__ != "lost_time_saved":  # the one signed output: a tier may lose more than the baseline
            assert (out >= 0).all(), f"negative from {kwargs}"

    check()


# ------------------------------------------------------------------ the CLI's --set

@fuzz
@given(st.sampled_from(sorted(FIELDS)), st.text(max_size=16))
def test_cli_set_exits_0_or_2_with_one_line(path, text):
    import contextlib
    import io
    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        status = main(["plan", "--json", "--set", f"{path}={text}"])
    assert status in (0, 2)
    if status == 2:
        lines = err.getvalue().splitlines()
        assert len(lines) == 1 and lines[0].startswith("drmath: error: ")
        assert path in lines[0] or "must look like" in lines[0]
    else:
        assert err.getvalue() == ""


# ------------------------------------------------------------------ TOML files

toml_scalar = st.one_of(st.integers(-10**12, 10**12), st.floats(allow_nan=True, allow_infinity=True),
                        st.text(max_size=12), st.booleans(), st.sampled_from(["rsc-1", "hot", "90 days", "400 Gbps"]))
toml_key = st.one_of(st.sampled_from(sorted({p.split(".")[1] for p in FIELDS})), st.text(min_size=1, max_size=8))
toml_section = st.one_of(st.sampled_from(sorted({p.split(".")[0] for p in FIELDS})), st.text(min_size=1, max_size=8))
toml_doc = st.dictionaries(toml_section, st.dictionaries(toml_key, toml_scalar, max_size=4), max_size=3)


@fuzz
@given(st.one_of(toml_doc.map(lambda d: ("dict", d)), st.text(max_size=80).map(lambda t: ("text", t))))
def test_toml_files_load_or_fail_naming_the_file(doc):
    import tomli_w

    from drmath.io import scenarios
    kind, value = doc
    try:
        text = tomli_w.dumps(value) if kind == "dict" else value
    except (TypeError, ValueError):  # e.g. NaN is fine in TOML, but some keys are not: nothing to test
        return
    try:
        s = scenarios.loads(text, source="fuzz.toml")
    except ValueError as exc:  # ScenarioFileError is a ValueError
        assert str(exc).startswith("fuzz.toml"), str(exc)
        assert "\n" not in str(exc)
        return
    assert isinstance(s, Scenario)
    p = plan(s)
    assert all(float(getattr(p, n)) >= 0 for n in PLAN_FIELDS if not n.endswith("_margin"))  # margins: signed


# ------------------------------------------------------------------ drill CSVs

csv_cell = st.one_of(st.text(max_size=10), st.sampled_from(
    ["2026-01-05", "2026-13-40", "detection-alerting", "checkpoint-restore", "local.detection", "site.load",
     "120", "-5", "nan", "inf", "1e308", "pass", "fail", "PASS", ""]))


@fuzz
@given(st.lists(st.lists(csv_cell, min_size=0, max_size=6), max_size=6), st.booleans())
def test_drill_csvs_parse_or_name_row_and_column(rows, header):
    import csv
    import io

    from drmath.io import drills
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    if header:
        writer.writerow(drills.COLUMNS)
    writer.writerows(rows)
    try:
        records = drills.parse_drill_records(buffer.getvalue(), name="fuzz.csv")
    except ValueError as exc:
        assert str(exc).startswith("fuzz.csv"), str(exc)
        return
    for r in records:
        assert math.isfinite(r.seconds) and r.seconds >= 0


# ------------------------------------------------------------------ share-link query strings

@fuzz
@given(st.one_of(
    st.text(max_size=200),
    st.lists(st.tuples(st.one_of(st.sampled_from(sorted(FIELDS)), st.text(max_size=10)),
                       st.one_of(st.text(max_size=12), st.floats().map(repr))), max_size=6)
      .map(lambda pairs: "&".join(f"{k}={v}" for k, v in pairs))))
def test_share_links_never_raise(query):
    from drmath.io import links
    s, notice = links.from_query(query)
    assert isinstance(s, Scenario)
    if notice is not None:
        assert s == Scenario() and "<" not in notice and ">" not in notice
    else:
        assert all(float(getattr(plan(s), n)) >= 0 for n in PLAN_FIELDS if not n.endswith("_margin"))  # signed
