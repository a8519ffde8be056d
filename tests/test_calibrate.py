"""drmath.calibrate: the fits against scipy on logs of known parameters, interval coverage, bad input, the CLI."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import optimize, stats

from drmath import Scenario, calibrate, plan
from drmath.calibrate import exponential_fit, fit_events, laplace_trend, lognormal_fit, weibull_fit
from drmath.cli import main
from drmath.io.incidents import IncidentLogError, parse_incidents, read_incidents

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "data" / "incidents_example.csv"
HOUR = 3600.0


def renewal_log(rng, shape, scale, window):
    """Event times of a Weibull renewal process that fails at 0, observed on [0, window] (the last gap censored)."""
    gaps = scale * rng.weibull(shape, int(5 * window / scale) + 50)
    times = np.cumsum(np.r_[0.0, gaps])
    assert times[-1] > window  # enough gaps drawn
    return times[times <= window]


def csv_log(starts, minutes, causes=None, extra=""):
    """A log's CSV text: start (ISO), duration in minutes, cause."""
    stamps = np.datetime64("2024-05-01T00:00:00") + (np.asarray(starts) * 1e6).astype("timedelta64[us]")
    causes = causes if causes is not None else ["GPU"] * len(stamps)
    rows = [f"{np.datetime_as_string(t, unit='s')},{m},{c}" for t, m, c in zip(stamps, minutes, causes)]
    return "start,minutes,cause\n" + "\n".join(rows) + "\n" + extra


# --------------------------------------------------------------------------- the fits against scipy


def test_exponential_matches_scipy_censored_mle():
    # fails if the window's censored last gap is not counted as exposure
    rng = np.random.default_rng(1)
    times = renewal_log(rng, 1.0, 3 * HOUR, 54 * 86400.0)
    window = 54 * 86400.0
    gaps, censored = np.diff(times), window - times[-1]
    mtbf, (lo, hi) = exponential_fit(gaps.size, window)
    _, scale = stats.expon.fit(stats.CensoredData(uncensored=gaps, right=[censored]), floc=0)
    assert mtbf == pytest.approx(scale, rel=1e-6)
    # the exact interval, from the chi-square quantiles written out here
    assert lo == pytest.approx(2 * window / stats.chi2.ppf(0.975, 2 * gaps.size + 2))
    assert hi == pytest.approx(2 * window / stats.chi2.ppf(0.025, 2 * gaps.size))
    assert lo < 3 * HOUR < hi


@pytest.mark.parametrize("shape", [0.7, 1.0, 1.5])
def test_weibull_matches_scipy_censored_fit(shape):
    rng = np.random.default_rng(7)
    times = renewal_log(rng, shape, 2 * HOUR, 40 * 86400.0)
    gaps, censored = np.diff(times), [40 * 86400.0 - times[-1]]
    k, (lo, hi), scale = weibull_fit(gaps, censored)
    data = stats.CensoredData(uncensored=gaps, right=censored)
    k_scipy, _, scale_scipy = stats.weibull_min.fit(data, floc=0)
    assert k == pytest.approx(k_scipy, rel=2e-4) and scale == pytest.approx(scale_scipy, rel=2e-4)
    assert lo < shape < hi

    def loglik(k, lam):  # scipy's own densities, not calibrate's profile
        return (stats.weibull_min.logpdf(gaps, k, scale=lam).sum()
                + stats.weibull_min.logsf(censored, k, scale=lam).sum())

    def profile(k):
        best = optimize.minimize_scalar(lambda s: -loglik(k, np.exp(s)), bracket=(np.log(scale) - 1, np.log(scale)))
        return -best.fun

    top = loglik(k, scale)
    for end in (lo, hi):  # each end of the interval is where the profile has fallen by chi2(1, 0.95)/2
        assert 2 * (top - profile(end)) == pytest.approx(stats.chi2.ppf(0.95, 1), rel=1e-4)


def test_lognormal_matches_scipy():
    rng = np.random.default_rng(3)
    durations = rng.lognormal(np.log(40 * 60.0), 0.9, 500)
    median, sigma = lognormal_fit(durations)
    s, _, scale = stats.lognorm.fit(durations, floc=0)
    assert median == pytest.approx(scale, rel=1e-6) and sigma == pytest.approx(s, rel=1e-6)
    assert median == pytest.approx(40 * 60.0, rel=0.15) and sigma == pytest.approx(0.9, rel=0.1)


@pytest.mark.parametrize("beta, direction", [(0.6, "falling"), (1.0, "none"), (1.6, "rising")])
def test_trend_finds_a_power_law_process(beta, direction):
    # a power-law process on [0, T]: given n events, times are iid with CDF (t/T)^beta
    rng = np.random.default_rng(3)  # a fixed draw; under beta = 1 one seed in 20 would be "significant"
    window = 54 * 86400.0
    times = np.sort(window * rng.random(400) ** (1 / beta))
    trend = laplace_trend(times, window)
    u = (times.mean() - window / 2) / (window / np.sqrt(12 * times.size))
    assert trend["statistic"] == pytest.approx(u)
    assert trend["p_value"] == pytest.approx(2 * stats.norm.sf(abs(u)))
    assert trend["direction"] == direction
    assert ("falling" in trend["sentence"]) == (direction == "falling")


def test_generated_log_recovers_its_parameters():
    # a whole log through the CSV path: exponential gaps of 3 h, lognormal repairs (median 40 min, sigma 0.8)
    rng = np.random.default_rng(5)
    starts = renewal_log(rng, 1.0, 3 * HOUR, 60 * 86400.0)
    minutes = np.round(rng.lognormal(np.log(40.0), 0.8, starts.size), 3)
    fit = parse_incidents(csv_log(starts, minutes), start_column="start", duration_column="minutes",
                          duration_unit="min", since="2024-05-01", until="2024-06-30")
    # the log keeps whole seconds, so two failures within one second are one event (the zero-gap rule)
    assert fit.events == np.unique(np.floor(starts)).size == starts.size - 1 and fit.window == 60 * 86400.0
    assert fit.mtbf_ci[0] < 3 * HOUR < fit.mtbf_ci[1]
    assert fit.weibull_shape_ci[0] < 1.0 < fit.weibull_shape_ci[1]
    assert fit.repair_median == pytest.approx(40 * 60.0, rel=0.1) and fit.repair_sigma == pytest.approx(0.8, rel=0.1)
    assert fit.trend["direction"] == "none"


# --------------------------------------------------------------------------- coverage over repeated draws


def test_mtbf_interval_covers_the_truth_95_percent():
    # 2,000 windows of 30 days at a true MTBF of 12 h (~60 failures each): the exact interval's coverage
    rng = np.random.default_rng(2024)
    truth, window = 12 * HOUR, 30 * 86400.0
    covered = 0
    for _ in range(2000):
        failures = int(np.searchsorted(np.cumsum(rng.exponential(truth, 200)), window))
        lo, hi = exponential_fit(failures, window)[1]
        covered += lo <= truth <= hi
    assert 0.93 <= covered / 2000 <= 0.97, covered / 2000  # Garwood's exact coverage at ~60 failures: 95.3%


def test_weibull_shape_interval_covers_the_truth_95_percent():
    # 600 renewal logs with Weibull(0.7) gaps, ~80 gaps each, through fit_events (window opens at the first event)
    rng = np.random.default_rng(2025)
    covered = 0
    for _ in range(600):
        times = renewal_log(rng, 0.7, HOUR, 80 * HOUR * 1.27)  # the mean gap of Weibull(0.7, 1 h) is 1.27 h
        fit = fit_events(times, 0.0, 80 * HOUR * 1.27, opens_window=True)
        covered += fit.weibull_shape_ci[0] <= 0.7 <= fit.weibull_shape_ci[1]
    assert 0.93 <= covered / 600 <= 0.97, covered / 600


# --------------------------------------------------------------------------- rules: joins, zero gaps, window


def test_joined_and_simultaneous_rows_are_one_event():
    text = ("start,end,joins_previous\n"
            "2024-05-01 00:00,2024-05-01 00:30,0\n"
            "2024-05-01 00:01,2024-05-01 01:00,1\n"   # joins the previous: one event, ending at 01:00
            "2024-05-01 05:00,2024-05-01 05:10,no\n"
            "2024-05-01 05:00,2024-05-01 05:20,\n"    # starts with the previous: a zero gap, one event
            "2024-05-01 09:00,2024-05-01 09:40,0\n"
            "2024-05-01 20:00,2024-05-01 20:30,0\n")
    fit = parse_incidents(text, start_column="start", end_column="end", since="2024-05-01", until="2024-05-02")
    assert fit.events == 4 and fit.mtbf == 6 * HOUR
    assert fit.provenance["rows_joined"] == 1 and fit.provenance["rows_simultaneous"] == 1
    assert fit.provenance["repairs_fitted"] == 4


def test_each_gap_runs_from_the_last_row_merged_into_an_event():
    # issue 34: a gap measured from an event's first row carried its merged rows' time into the next gap, and a
    # wider --merge-within pushed the Weibull shape up (0.73 for a true 0.70)
    text = ("start,end\n2024-05-01 00:00,2024-05-01 00:30\n2024-05-01 00:04,2024-05-01 00:40\n"
            "2024-05-01 05:00,2024-05-01 05:10\n2024-05-01 09:00,2024-05-01 09:40\n"
            "2024-05-01 20:00,2024-05-01 20:30\n2024-05-01 23:58,2024-05-01 23:59\n"
            "2024-05-02 00:01,2024-05-02 00:09\n")  # merged into the 23:58 event, starting after `until`
    fit = parse_incidents(text, start_column="start", end_column="end", since="2024-05-01", until="2024-05-02",
                          merge_within=300.0)
    assert fit.events == 5 and fit.provenance["rows_simultaneous"] == 2
    assert fit.gaps.tolist() == [5 * HOUR - 240, 4 * HOUR, 11 * HOUR, 3 * HOUR + 58 * 60]
    with pytest.raises(ValueError, match="gaps_from must hold one time per event"):
        fit_events([0.0, 3000.0, 9000.0, 10000.0], 0.0, 20000.0, gaps_from=[0.0, 9000.0, 9000.0, 10000.0])


def test_a_join_flag_joins_the_row_before_in_time_not_in_the_file():
    # issue 34: logs are not in time order; the flagged 00:01 row belongs to the 00:00 row's event
    rows = ["2024-05-01 05:00,2024-05-01 05:10,0", "2024-05-01 00:01,2024-05-01 01:00,1",
            "2024-05-01 09:00,2024-05-01 09:40,0", "2024-05-01 00:00,2024-05-01 00:30,0",
            "2024-05-01 20:00,2024-05-01 20:30,0"]
    kwargs = {"start_column": "start", "end_column": "end", "since": "2024-05-01", "until": "2024-05-02"}
    shuffled = parse_incidents("start,end,joins_previous\n" + "\n".join(rows) + "\n", **kwargs)
    ordered = parse_incidents("start,end,joins_previous\n" + "\n".join(sorted(rows)) + "\n", **kwargs)
    assert shuffled.events == ordered.events == 4 and shuffled.mtbf == ordered.mtbf == 6 * HOUR
    assert shuffled.provenance["rows_joined"] == 1 and shuffled.gaps.tolist() == [5 * HOUR - 60, 4 * HOUR, 11 * HOUR]
    assert shuffled.repair_median == ordered.repair_median  # the joined event ends at 01:00


def test_the_example_read_in_any_row_order_fits_the_same():
    # the shipped log is in time order; shuffled, its joined rows used to join the wrong events (shape 0.941
    # instead of 0.974, median repair 43.3 min instead of 34.3)
    lines = EXAMPLE.read_text().splitlines()
    head = [line for line in lines if line.startswith("#")] + [lines[len([x for x in lines if x.startswith("#")])]]
    body = [line for line in lines[len(head):] if line.strip()]
    np.random.default_rng(0).shuffle(body)
    kwargs = {"start_column": "start", "end_column": "end", "where": ["cluster=primary"]}
    shuffled = parse_incidents("\n".join(head + body) + "\n", **kwargs)
    ordered = read_incidents(EXAMPLE, **kwargs)
    assert (shuffled.events, shuffled.weibull_shape, shuffled.repair_median, shuffled.provenance["rows_joined"]) == (
        ordered.events, ordered.weibull_shape, ordered.repair_median, ordered.provenance["rows_joined"])


@pytest.mark.parametrize("within, events, merged", [(0.0, 5, 1), (59.0, 5, 1), (60.0, 4, 2), (300.0, 3, 3)])
def test_rows_within_the_merge_window_of_the_row_before_are_one_event(within, events, merged):
    # starts (min): 0, 0 (same time), 1 (60 s after), 6 (5 min after), 120, 600; one chain per window; the two
    # rows at 0 differ (5 and 7 min), so they are two incidents merged, not one row exported twice
    starts = [600 * 60.0, 0.0, 60.0, 0.0, 120 * 60.0, 6 * 60.0]
    fit = parse_incidents(csv_log(starts, [5, 5, 5, 7, 5, 5]), start_column="start", duration_column="minutes",
                          duration_unit="min", since="2024-05-01", until="2024-05-02", merge_within=within)
    assert fit.events == events and fit.provenance["rows_simultaneous"] == merged
    assert fit.provenance["merge_within"] == within
    rule = "at the same recorded time as" if within == 0 else "within"
    assert f"Merged rows     {merged} rows starting {rule}" in fit.summary()


@pytest.mark.parametrize("within", [-1.0, 86401.0, float("nan"), "5 min", True])
def test_a_bad_merge_window_is_refused_naming_it(within):
    with pytest.raises(ValueError, match=r"merge_within \(--merge-within\) = .* must be a duration in \[0, 86400\] s"):
        parse_incidents(GOOD, start_column="start", duration_column="minutes", duration_unit="min",
                        merge_within=within)


def test_cli_merge_within_takes_a_duration_and_says_what_it_merged(tmp_path, capsys):
    assert main(cli_args("--merge-within", "5 min")) == 0
    out = capsys.readouterr().out
    assert "rows starting within 5 min of the row before (--merge-within 300 s)" in out
    assert main(cli_args("--merge-within", "5 parsecs")) == 2
    assert "--merge-within: cannot read '5 parsecs'" in capsys.readouterr().err
    with pytest.raises(SystemExit, match="0"):
        main(["calibrate", "--help"])
    assert "(default: 0, rows that start at the same recorded time)" in " ".join(capsys.readouterr().out.split())


def test_window_opens_at_the_first_event_without_since():
    text = csv_log([0.0, 3600.0, 9000.0, 10800.0], [10, 10, 10, 10])
    fit = parse_incidents(text, start_column="start", duration_column="minutes", duration_unit="min")
    assert fit.events == 3  # the first event opens the window
    assert fit.window == 10800.0 + 600.0  # the window closes at the last repair's end
    assert fit.provenance["window_opens_at_first_event"] is True


def test_where_and_since_filter_rows():
    text = ("start,minutes,cluster\n" + "".join(f"2024-05-{d:02d} {d * 7 % 23:02d}:00,5,a\n2024-05-{d:02d} 23:00,5,b\n"
                                                 for d in range(1, 11)))
    fit = parse_incidents(text, start_column="start", duration_column="minutes", duration_unit="min",
                          where=["cluster=a"], since="2024-05-05", until="2024-05-11")
    assert fit.events == 6 and fit.mtbf == 86400.0  # May 5 to 10 in a window of six days
    assert fit.provenance["rows_used"] == 10 and fit.provenance["filter"] == ["cluster=a"]
    both = parse_incidents(text, start_column="start", duration_column="minutes", duration_unit="min",
                           where=["cluster=a", "cluster=b"], since="2024-05-01", until="2024-05-11")
    assert both.events == 20  # two values for one column are alternatives


def test_gpu_rate_and_causes():
    starts = np.arange(10) * 7200.0 + np.r_[0, 5, 100, 7, 300, 0, 50, 9, 0, 2]
    fit = parse_incidents(csv_log(starts, [5] * 10, ["GPU"] * 6 + ["NIC"] * 3 + ["SSD"]), start_column="start",
                          duration_column="minutes", duration_unit="min", gpus=1024, since="2024-05-01")
    assert fit.gpu_failure_rate == pytest.approx(1 / (1024 * fit.mtbf))
    lo, hi = fit.gpu_failure_rate_ci
    assert lo == pytest.approx(1 / (1024 * fit.mtbf_ci[1])) and hi == pytest.approx(1 / (1024 * fit.mtbf_ci[0]))
    assert fit.causes == (("GPU", 6, 0.6), ("NIC", 3, 0.3), ("SSD", 1, 0.1))
    assert fit.cause_frame().loc["NIC", "count"] == 3


# --------------------------------------------------------------------------- bad input


GOOD = "start,end,minutes\n2024-05-01 00:00,2024-05-01 00:10,10\n2024-05-01 03:00,2024-05-01 03:10,10\n" \
       "2024-05-01 07:00,2024-05-01 07:10,10\n2024-05-01 12:00,2024-05-01 12:10,10\n"


@pytest.mark.parametrize("text, kwargs, match", [
    (GOOD.replace("2024-05-01 03:00", "yesterday"), {},
     r"incidents.csv row 3, column start: 'yesterday' is not a time"),
    (GOOD.replace("2024-05-01 03:10", "2024-05-01 02:10"), {},
     r"row 3, column end: '2024-05-01 02:10' is before the start '2024-05-01 03:00'"),
    (GOOD.replace("2024-05-01 07:10,10", "2024-05-01 07:10,-4"), {"duration_column": "minutes", "end_column": None},
     r"row 4, column minutes: '-4' is negative"),
    (GOOD.replace("2024-05-01 07:10,10", "2024-05-01 07:10,"), {"duration_column": "minutes", "end_column": None},
     r"row 4, column minutes: missing duration"),
    (GOOD.replace("2024-05-01 07:10,10", "2024-05-01 07:10,ten"), {"duration_column": "minutes", "end_column": None},
     r"row 4, column minutes: 'ten' is not a number of min"),
    (GOOD.replace("2024-05-01 03:00,", "2024-05-01 03:00,x,"), {}, r"row 3: has more than 3 values"),
    (GOOD.replace("2024-05-01 03:00,", '"2024-05-01 03:00,'), {}, r'row 3: cannot read as CSV: a quote \(\"\) is not'),
    (GOOD, {"start_column": "begin"}, r"unknown column 'begin' \(start column\); the columns are start, end, minutes"),
    (GOOD, {"cause_column": "why"}, r"unknown column 'why' \(cause column\)"),
    (GOOD, {"where": ["cluster=a"]}, r"unknown column 'cluster' in where 'cluster=a'"),
    (GOOD.replace("minutes", "cluster"), {"where": ["cluster=b"]}, r"no row left after the filter cluster=b \(of 4"),
    (GOOD, {"where": ["cluster"]}, r"where 'cluster' must look like COLUMN=VALUE"),
    (GOOD, {"since": "2024-05-01 06:00"}, r"2 events in the window \(since 2024-05-01 06:00\); at least 3"),
    (GOOD, {"since": "someday"}, r"since = 'someday' is not a date or time"),
    (GOOD, {"since": "2024-06-01", "until": "2024-05-01"}, r"until must be after since"),
    (GOOD, {"duration_column": "minutes"}, r"not both"),
    (GOOD, {"duration_column": "minutes", "end_column": None, "duration_unit": "d"},
     r"duration_unit = 'd' is not valid: must be one of s, min, h"),
    (GOOD, {"time_format": "%d/%m/%Y"}, r"row 2, column start: '2024-05-01 00:00' is not a time in the format"),
    ("start,end\n", {}, r"no data rows under the header \(row 1\)"),
    ("# only a comment\n", {}, r"no header"),
    (GOOD + "2024-05-01 13:00,2024-05-01 13:10,10\n", {"gpus": 0}, r"gpus must be a whole number in \[1, 1e8\], got 0"),
])
def test_bad_input_names_row_and_column(text, kwargs, match):
    args = {"start_column": "start", "end_column": "end", **kwargs}
    if args.get("duration_column") and "duration_unit" not in args and args.get("end_column") is None:
        args["duration_unit"] = "min"
    with pytest.raises(ValueError, match=match):
        parse_incidents(text, **args)


def test_problems_are_listed_up_to_ten_and_counted():
    lines = [f"2024-05-01 {h:02d}:00,2024-05-01 {h:02d}:10,10" for h in range(24)]
    bad = "start,end,minutes\n" + "\n".join(line.replace(":10,", ":xx,") if h % 2 else line
                                            for h, line in enumerate(lines)) + "\n"
    with pytest.raises(IncidentLogError, match=r"12 problems in 12 rows \(2 not shown\); the file was refused") as info:
        parse_incidents(bad, start_column="start", end_column="end")
    assert len(info.value.problems) == 10 and info.value.count == 12
    # the library names no option (the dashboard's panel has none); the command line names its own
    assert info.value.problems[0] == "incidents.csv row 3, column end: '2024-05-01 01:xx' is not a time in ISO " \
                                     "8601 or a format inferred from the log's values"
    with pytest.raises(IncidentLogError, match=r"12 problems in 12 rows") as info:
        parse_incidents(bad, start_column="start", end_column="end", hints={"time_format": "--time-format"})
    assert info.value.problems[0].endswith("'2024-05-01 01:xx' is not a time (give --time-format)")


def test_rows_filtered_out_are_not_checked():
    # a second cluster's broken row does not refuse the first cluster's fit
    text = GOOD.replace("minutes", "cluster").replace(",10\n", ",a\n") + "not a time,2024-05-01 00:00,b\n"
    fit = parse_incidents(text, start_column="start", end_column="end", where=["cluster=a"])
    assert fit.provenance["rows_read"] == 5 and fit.provenance["rows_used"] == 4


def test_comments_blank_lines_quotes_and_spaces_read_as_the_plain_log():
    # comments and blank lines among the rows, CRLF line ends, a quoted cause holding a comma, spaces around
    # cells: the same events as the plain log, and a bad row still named by the row a spreadsheet shows
    plain = ("start,end,cause,cluster\n2024-05-01 00:00,2024-05-01 00:10,GPU,a\n2024-05-01 03:00,2024-05-01 03:30,"
             "\"NIC, cable\",a\n2024-05-01 07:00,2024-05-01 07:10,GPU,a\n2024-05-01 12:00,2024-05-01 12:20,GPU,a\n")
    lines = plain.splitlines()
    messy = "\r\n".join(["# exported by the scheduler", lines[0], lines[1], "", "  # a note", f" {lines[2]} ",
                          lines[3].replace(",", " , "), "\t", lines[4], "", ""])
    kwargs = dict(start_column="start", end_column="end", where=["cluster=a"])
    a, b = parse_incidents(plain, **kwargs), parse_incidents(messy, **kwargs)
    assert (b.events, b.mtbf, b.repair_median, b.causes) == (a.events, a.mtbf, a.repair_median, a.causes)
    assert b.causes[1] == ("NIC, cable", 1, 0.25)
    with pytest.raises(IncidentLogError, match=r"^incidents.csv row 7, column start: 'noon' is not a time"):
        parse_incidents(messy.replace("2024-05-01 07:00", "noon"), **kwargs)


def test_every_row_with_one_value_too_many_is_named():
    # pandas would take such a file's first column as its index: each row is named instead
    text = GOOD.replace(",10\n", ",10,x\n")
    with pytest.raises(IncidentLogError, match=r"(?s)^incidents.csv row 2: has more than 3 values.*4 problems in 4"):
        parse_incidents(text, start_column="start", end_column="end")


def test_read_incidents_file_guards(tmp_path):
    with pytest.raises(ValueError, match=r"missing.csv: cannot read"):
        read_incidents(tmp_path / "missing.csv", start_column="start", end_column="end")
    (tmp_path / "latin.csv").write_bytes(b"start,end\n\xe9\n")
    with pytest.raises(ValueError, match=r"latin.csv: not a UTF-8 text file \(byte 10\)"):
        read_incidents(tmp_path / "latin.csv", start_column="start", end_column="end")


def test_import_stays_light():
    # pandas and scipy load only when a log is read or fitted
    code = ("import sys, drmath.calibrate; print(sorted({'pandas', 'scipy'} & "
            "{m.split('.')[0] for m in sys.modules}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]"


# --------------------------------------------------------------------------- the CLI


def cli_args(*extra):
    return ["calibrate", str(EXAMPLE), "--start-column", "start", "--end-column", "end", "--where", "cluster=primary",
            *extra]


def test_cli_json_fields(capsys):
    assert main(cli_args("--gpus", "16384", "--json", "--since", "2024-05-01", "--until", "2024-06-24")) == 0
    data = json.loads(capsys.readouterr().out)
    for key in ("events", "window", "mtbf", "mtbf_ci", "weibull_shape", "weibull_shape_ci", "weibull_scale",
                "repair_median", "repair_sigma", "trend", "gpu_failure_rate", "gpu_failure_rate_ci", "provenance"):
        assert key in data, key
    assert set(data["trend"]) == {"statistic", "p_value", "direction"}
    assert data["window"] == 54 * 86400.0 and data["mtbf"] == pytest.approx(data["window"] / data["events"])
    lo, hi = data["mtbf_ci"]
    assert lo < data["mtbf"] < hi
    assert data["gpu_failure_rate"] == pytest.approx(1 / (16384 * data["mtbf"]))
    assert data["trend"]["direction"] == "falling"  # the example is generated with a falling rate (beta = 0.8)
    assert data["provenance"]["file"] == "incidents_example.csv" and data["provenance"]["filter"] == ["cluster=primary"]
    assert data["provenance"]["rows_used"] < data["provenance"]["rows_read"]  # the research cluster is filtered out


def test_cli_without_gpus_has_no_rate(capsys):
    assert main(cli_args("--json")) == 0
    assert "gpu_failure_rate" not in json.loads(capsys.readouterr().out)


def test_cli_summary(capsys):
    assert main(cli_args("--gpus", "16384")) == 0
    out = capsys.readouterr().out
    assert "MTBF" in out and "95% interval" in out and "the failure rate is falling" in out
    assert "Faulty GPU" in out and "Per GPU" in out


def test_cli_fragment_changes_the_plans_mtbf(tmp_path, capsys):
    fleet = tmp_path / "fleet.toml"
    assert main(cli_args("--gpus", "16384", "--since", "2024-05-01", "--until", "2024-06-24", "-o", str(fleet))) == 0
    capsys.readouterr()
    fit = read_incidents(EXAMPLE, start_column="start", end_column="end", where=["cluster=primary"], gpus=16384,
                         since="2024-05-01", until="2024-06-24")
    assert main(["plan", "seed", str(fleet), "--json"]) == 0
    merged = json.loads(capsys.readouterr().out)
    assert merged["mtbf"] == pytest.approx(1 / (Scenario().training.gpus * fit.gpu_failure_rate))
    assert merged["mtbf"] != pytest.approx(plan().mtbf)
    # without --gpus the fragment carries the measured cluster MTBF of the fleet the log covers
    assert main(cli_args("-o", str(fleet))) == 0
    capsys.readouterr()
    assert main(["plan", "seed", str(fleet), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["mtbf"] == pytest.approx(
        read_incidents(EXAMPLE, start_column="start", end_column="end", where=["cluster=primary"]).mtbf)


def test_plan_merges_files_field_by_field(tmp_path, capsys):
    base, over = tmp_path / "base.toml", tmp_path / "over.toml"
    base.write_text('[training]\ngpus = 16384\nmfu = 0.35\n[failover]\ntier = "hot"\n')
    over.write_text("[training]\ngpus = 8000\n")  # the default value, still an override
    assert main(["plan", str(base), str(over), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    expected = plan(Scenario().with_changes({"training.gpus": 8000, "training.mfu": 0.35, "failover.tier": "hot"}))
    assert data["time_to_train"] == pytest.approx(expected.time_to_train)
    assert data["rto_site"] == pytest.approx(expected.rto_site)
    over.write_text("[training]\nmfu = 7\n")
    assert main(["plan", str(base), str(over)]) == 2
    assert "over.toml: training.mfu = 7 is out of range" in capsys.readouterr().err


def test_cli_error_lists_rows_and_writes_nothing(tmp_path, capsys):
    log, fleet = tmp_path / "log.csv", tmp_path / "fleet.toml"
    log.write_text(GOOD.replace("2024-05-01 03:10", "2024-05-01 02:10").replace("2024-05-01 07:00", "later"))
    assert main(["calibrate", str(log), "--start-column", "start", "--end-column", "end", "-o", str(fleet)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("drmath: error: log.csv row 3, column end:")
    assert err[1].startswith("log.csv row 4, column start: 'later'")
    assert err[2] == "log.csv: 2 problems in 2 rows; the file was refused, nothing fitted"
    assert not fleet.exists()


@pytest.mark.parametrize("extra, match", [
    ([], r"needs --end-column or --duration-column"),
    (["--end-column", "end", "--duration-column", "minutes", "--duration-unit", "min"], r"not both"),
    (["--duration-column", "minutes"], r"--duration-column needs --duration-unit s, min or h"),
    (["--end-column", "end", "--gpus", "0"], r"--gpus 0 is out of range"),
    (["--end-column", "end", "--duration-unit", "h"], r"--duration-unit goes with --duration-column"),
])
def test_cli_argument_errors(tmp_path, capsys, extra, match):
    log = tmp_path / "log.csv"
    log.write_text(GOOD)
    assert main(["calibrate", str(log), "--start-column", "start", *extra]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and __import__("re").search(match, err), err


def test_cli_reads_standard_input(monkeypatch, capsys):
    import io

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(GOOD.encode())))
    assert main(["calibrate", "-", "--start-column", "start", "--duration-column", "minutes", "--duration-unit",
                 "min", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["events"] == 3 and data["provenance"]["file"] == "<stdin>"


def test_example_is_what_its_generator_writes(tmp_path):
    # the shipped log is reproducible from its stated parameters and seed
    script = (ROOT / "data" / "make_incidents_example.py").read_text()
    copy = tmp_path / "make_incidents_example.py"
    copy.write_text(script)
    subprocess.run([sys.executable, str(copy)], check=True, capture_output=True, cwd=tmp_path)
    assert (tmp_path / "incidents_example.csv").read_text() == EXAMPLE.read_text()
    assert EXAMPLE.read_text().startswith("# GENERATED")


def test_module_names_its_rules():
    # the merge rule (its window and its default), the time order and the censoring rule are stated where a reader
    # looks: the reader that applies them
    from drmath.io import incidents

    assert "Merged rows (the window)" in incidents.__doc__ and "right-censored" in incidents.__doc__
    assert "**Time order.**" in incidents.__doc__ and ":data:`MERGE_WITHIN` = 0" in incidents.__doc__
    assert "drmath.io.incidents" in calibrate.__doc__  # and the fits say where the rows become events


def test_the_fragment_is_the_fitted_model_and_refuses_a_value_out_of_range():
    from drmath.io import fits, scenarios

    fit = fit_events([0.0, 3000.0, 9000.0, 10000.0, 18000.0], 0.0, 20000.0, gpus=512)
    assert scenarios.loads(fits.fragment(fit)) == fit.apply(Scenario())  # the TOML holds what apply() sets
    with pytest.raises(ValueError, match=r"the calibrated fragment: uncertainty\.failures\.measured_mtbf = .* is out "
                                         r"of range: low < high, both in \[60, 3\.1536e\+09\]"):
        fits.fragment(fit_events([0.0, 30.0, 90.0, 100.0, 180.0], 0.0, 200.0))  # an MTBF of 40 s


def test_the_old_fragment_method_still_works_with_a_warning():
    # deprecated (issue 33): the method runs the function drmath.io registered, and gives the same text
    from drmath.io import fits

    fit = read_incidents(EXAMPLE, start_column="start", end_column="end", where=["cluster=primary"], gpus=16384)
    with pytest.warns(FutureWarning, match=r"drmath\.calibrate\.Calibration\.fragment\(\) moved to "
                                           r"drmath\.io\.fits\.fragment; the old spelling goes in 0\.3"):
        assert fit.fragment() == fits.fragment(fit)


def test_the_core_writes_no_toml_before_drmath_io_is_imported():
    # drmath.calibrate imports nothing of drmath.io: the old method, before anything imported it, says where to look
    code = ("import sys, drmath.calibrate as c\nassert not [m for m in sys.modules if m.startswith('drmath.io')]\n"
            "c.fit_events([0.0, 3000.0, 9000.0, 10000.0], 0.0, 20000.0).fragment()")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 1 and out.stderr.strip().splitlines()[-1] == (
        "RuntimeError: drmath.calibrate.Calibration.fragment() moved to drmath.io.fits.fragment: call that (the old "
        "spelling works, until 0.3, once drmath.io.fits is imported)")


def test_the_readers_old_names_still_work_with_a_warning():
    from drmath.io import incidents

    with pytest.warns(FutureWarning, match=r"drmath\.calibrate\.read_incidents moved to drmath\.io\.incidents"):
        assert calibrate.read_incidents is incidents.read_incidents
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        calibrate.nope  # noqa: B018
