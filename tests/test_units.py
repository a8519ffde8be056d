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
