"""drmath.formatting: one unit picker, money, line rates, ordinals and TeX as text."""

import math

import pytest

from drmath import formatting as fmt
from drmath.formatting import format_quantity
from drmath.units import Gbit_per_s, day, hour, minute, year


@pytest.mark.parametrize("seconds, unit", [
    (0.5e-3, "ms"), (0.999, "ms"), (1.0, "s"), (59.9, "s"), (minute, "min"), (hour - 1, "min"), (hour, "h"),
    (day - 1, "h"), (day, "days"), (year - 1, "days"), (year, "years"), (30 * year, "years"),
])
def test_duration_unit_is_the_largest_that_keeps_the_value_at_least_one(seconds, unit):
    scale, name = fmt.duration_unit(seconds)
    assert name == unit
    assert seconds / scale >= 1 or name == "ms"
    assert fmt.duration_unit(-seconds) == (scale, name)  # a negative span reads in the same unit


def test_duration_unit_of_a_set_follows_its_largest_finite_value():
    assert fmt.duration_unit([30.0, 5400.0, math.inf, math.nan]) == (hour, "h")
    assert fmt.duration_unit([math.inf, math.nan]) == (1.0, "s")  # nothing finite: seconds
    assert fmt.duration_unit([0.0]) == (1.0, "s")


def test_format_quantity_uses_the_same_picker():
    for seconds in (0.25, 30.0, 90.0, 5400.0, 2 * day, 3 * year):
        _, name = fmt.duration_unit(seconds)
        assert format_quantity(seconds, "duration").endswith(f" {name}")


@pytest.mark.parametrize("seconds, text", [
    (30.0, "30 s"), (90.0, "1.5 min"), (minute, "1 min"), (hour, "1 h"), (5400.0, "1.5 h"), (day, "1 day"),
    (2 * day, "2 days"), (year, "1 year"), (0.25, "250 ms"), (math.inf, "no bound"),
])
def test_short_duration(seconds, text):
    assert fmt.short_duration(seconds) == text


def test_short_duration_digits():
    assert fmt.short_duration(218.0, 2) == "3.6 min"
    assert fmt.short_duration(218.0) == "3.63 min"


@pytest.mark.parametrize("usd, text", [
    (0.0, "$0.00"), (22.5, "$22.50"), (99.994, "$99.99"), (156.58, "$157"), (999.0, "$999"),
    # issue 13: "$3,090.85" to the cent beside "$21.24M"; thousands read like their neighbours
    (3_090.85, "$3.09k"), (9_999.0, "$10.00k"), (10_000.0, "$10.00k"), (5e4, "$50.00k"),
    (84_952_800.0, "$84.95M"), (2.1e9, "$2.10B"), (-3e6, "$-3.00M"), (math.inf, "no bound"),
])
def test_money(usd, text):
    assert fmt.money(usd) == text
    assert format_quantity(usd, "usd") == text  # the quantity formatter writes money the same way


def test_money_unit_boundaries():
    assert fmt.money_unit(999.0) == (1.0, "")
    assert fmt.money_unit(1e3) == (1e3, "k")
    assert fmt.money_unit([2e5, 999_999.0]) == (1e3, "k")
    assert fmt.money_unit([2e5, 1e6, math.inf]) == (1e6, "M")
    assert fmt.money_unit(1e9) == (1e9, "B")


def test_line_rate():
    assert fmt.line_rate(100 * Gbit_per_s) == "100 Gbit/s"
    assert fmt.line_rate(1e9) == "8 Gbit/s"
    assert fmt.line_rate(3200 * Gbit_per_s) == "3,200 Gbit/s"  # no exponent for the links sold
    assert fmt.line_rate(123.45 * Gbit_per_s) == "123 Gbit/s"  # three significant figures at most


@pytest.mark.parametrize("k, text", [
    (1, "1st"), (2, "2nd"), (3, "3rd"), (4, "4th"), (11, "11th"), (12, "12th"), (13, "13th"), (21, "21st"),
    (22, "22nd"), (23, "23rd"), (101, "101st"), (111, "111th"), (112, "112th"),
])
def test_ordinal(k, text):
    assert fmt.ordinal(k) == text


def test_every():
    assert fmt.every(1) == "every checkpoint"
    assert fmt.every(2) == "every 2nd checkpoint"
    assert fmt.every(13) == "every 13th checkpoint"
    assert fmt.every(23.0) == "every 23rd checkpoint"  # plan counts are floats
    assert fmt.every(3, "drill") == "every 3rd drill"


@pytest.mark.parametrize("tex, text", [
    (r"\frac{1}{2}", "1/2"),
    (r"T_c = \frac{C}{G\,P\,\mathrm{MFU}}", "T_c = C/(G P MFU)"),
    (r"\frac{1 - (u_0 + \tau/2)/M}{1 + \delta/\tau}", "(1 - (u_0 + τ/2)/M)/(1 + δ/τ)"),
    (r"\tfrac{1}{3}\sqrt{x}", "(1/3)√x"),
    (r"\tau_Y = \sqrt{2\,\delta\,M}", "τ_Y = √(2 δ M)"),
    (r"\sqrt{\tfrac{\delta}{2M}}", "√(δ/(2M))"),
    (r"\lambda \eta \rho \Delta \ell \infty", "λ η ρ Δ ℓ ∞"),
    (r"t_{rep} \le k\,\tau", "t_rep ≤ k τ"),
    (r"P = 1 - e^{-\lambda_s T}", "P = 1 - e^(-λ_s T)"),
    (r"k = \max\left(1, \lceil T_{rep} / \tau \rceil\right)", "k = max(1, ⌈T_rep / τ⌉)"),
    (r"\infty \quad (\text{only if}\ x)", "∞ (only if x)"),
])
def test_tex_text(tex, text):
    assert fmt.tex_text(tex) == text


def test_tex_text_keeps_unknown_commands_by_name():
    assert fmt.tex_text(r"\nabla f") == "nabla f"


def test_params_names_a_model_by_its_size():
    assert [fmt.params(n) for n in (405e9, 70.6e9, 8e9, 1.5e12, 125e6, 950.0)] == \
        ["405B", "70.6B", "8B", "1.5T", "125M", "950"]
    assert format_quantity(405e9, "params") == "405B"


def test_links_are_written_in_gbit_per_s_everywhere():
    from drmath import plan
    from drmath.quantities import QUANTITIES
    from drmath.scenario import FIELDS

    assert format_quantity(12.5e9, "line_rate") == fmt.line_rate(12.5e9) == "100 Gbit/s"
    assert fmt.line_rate(1.25e12) == "10,000 Gbit/s"  # no exponent however fast
    assert FIELDS["replication.link_bandwidth"].kind == "line_rate" and FIELDS["training.params"].kind == "params"
    for name in ("replication_bandwidth_needed", "cross_site_bandwidth"):
        assert QUANTITIES[name].kind == "line_rate" and QUANTITIES[name].unit == "[B/s]"
        assert plan().format(name).endswith(" Gbit/s")


def test_markdown_text_writes_money_that_no_renderer_reads_as_math():
    text = "runs for $84.95M (at 30%: $113.27M), already \\$1, a unit [$M]"
    span = '<span class="drmath-money">&#36;{}</span>'
    assert fmt.markdown_text(text) == (f"runs for {span.format('84.95M')} (at 30%: {span.format('113.27M')}), "
                                       f"already {span.format('1')}, a unit [{span.format('M')}]")
    assert "$" not in fmt.markdown_text(text)  # nothing left for a Markdown renderer's or MathJax's math pass
    assert fmt.markdown_text(fmt.markdown_text(text)) == fmt.markdown_text(text)
    assert fmt.markdown_text("$1.00M/day | $3", span=False) == "&#36;1.00M/day | &#36;3"


def test_html_text_escapes_and_writes_money_as_markdown_text_does():
    assert fmt.html_text("$3.28M = standby <b>$849.53k</b> & more") == (
        '<span class="drmath-money">&#36;3.28M</span> = standby &lt;b&gt;'
        '<span class="drmath-money">&#36;849.53k</span>&lt;/b&gt; &amp; more')


@pytest.mark.parametrize("value, kind, text", [
    (22_700.0, "duration", "6.31 h"), (0.0, "duration", "0 s"), (90 * 86_400.0, "duration", "90.0 days"),
    (5.67e12, "bytes", "5.67 TB"), (12.5e9, "bandwidth", "12.5 GB/s"), (0.964, "fraction", "96.4%"),
    (84_952_800.0, "usd", "$84.95M"), (341.0, "count", "341"), (9.77e12, "count", "9.77T"),
    (math.inf, "duration", "no bound"), (True, "flag", "yes"), (math.nan, "usd", "undefined"),
])
def test_format_quantity(value, kind, text):
    assert format_quantity(value, kind) == text


def test_format_quantity_unknown_kind():
    with pytest.raises(ValueError, match="kind must be one of"):
        format_quantity(1.0, "furlongs")
