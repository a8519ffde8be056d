import math

import pytest

from drmath import units


def test_multipliers():
    assert units.Gbit_per_s * 400 == 50 * units.GB_per_s
    assert units.day == 86_400
    assert units.year == 365 * units.day
    assert units.GiB == 2**30 and units.GB == 1e9


@pytest.mark.parametrize("text, value", [
    ("8000", 8000.0), ("1.5e9", 1.5e9), ("100 Gbps", 12.5e9), ("400Gbit/s", 50e9),
    ("90 days", 90 * 86_400.0), ("40%", 0.4), ("2 TB/s", 2e12), ("5 min", 300.0),
])
def test_parse_quantity(text, value):
    assert units.parse_quantity(text) == pytest.approx(value)


@pytest.mark.parametrize("text", ["abc", "10 parsecs", "", "Gbps"])
def test_parse_quantity_rejects(text):
    with pytest.raises(ValueError, match="cannot read"):
        units.parse_quantity(text)


@pytest.mark.parametrize("value, kind, text", [
    (22_700.0, "duration", "6.31 h"), (0.0, "duration", "0 s"), (90 * 86_400.0, "duration", "90.0 days"),
    (5.67e12, "bytes", "5.67 TB"), (12.5e9, "bandwidth", "12.5 GB/s"), (0.964, "fraction", "96.4%"),
    (84_952_800.0, "usd", "$84.95M"), (341.0, "count", "341"), (9.77e12, "count", "9.77e+12"),
    (math.inf, "duration", "no bound"), (True, "flag", "yes"), (math.nan, "usd", "undefined"),
])
def test_format_quantity(value, kind, text):
    assert units.format_quantity(value, kind) == text


def test_format_quantity_unknown_kind():
    with pytest.raises(ValueError, match="kind must be one of"):
        units.format_quantity(1.0, "furlongs")
