"""Hostile files and outputs: the CLI's ``-o`` target, deep or wrong-typed TOML, huge values, BOMs.

Every refusal is a ``ValueError`` (or ``OSError``) whose message names the file and the field, is
one line and stays short; the CLI prints it as one line and exits 2. Big inputs are built in
``tmp_path``, never anything outside it.
"""

import contextlib
import dataclasses
import errno
import html
import io
import json
import math
import os
import re
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
from pathlib import Path

import pytest
import tomli_w
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drmath import Scenario, plan, reliability
from drmath._validate import MAX_SHOWN, clip, short_repr
from drmath.cli import main
from drmath.io import drills, files, incidents, scenarios

HEADER = "date,drill,phase,seconds,outcome\n"
GOOD_ROW = "2025-01-06,detection-alerting,local.detection,170,pass\n"
BIG = 50 * 1024 * 1024  # 50 MiB of one bad value
ERROR_CAP = 2000  # [characters]: what the longest error may print


def run(argv):
    """main(argv) -> (status, stdout, stderr), with any exception left to fail the test."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    return status, out.getvalue(), err.getvalue()


def one_line_error(argv, match):
    status, _, err = run(argv)
    assert status == 2, err
    assert err.count("\n") == 1 and err.startswith("drmath: error: "), err[:500]
    assert len(err) < ERROR_CAP, len(err)
    assert match in err, err
    return err


def _report(target, *extra):
    return ["report", *extra, "-o", str(target), "--quiet"]


# --------------------------------------------------------------------------- 1. the output target


def _drain(path, sink):
    with open(path, "rb") as fh:  # blocks until a writer opens the FIFO
        sink.append(fh.read())


def test_report_into_a_fifo_writes_through_and_keeps_the_fifo(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=_drain, args=(fifo, got), daemon=True)
    reader.start()
    status, out, err = run(_report(fifo))
    reader.join(timeout=60)
    assert status == 0, err
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO was replaced by a regular file"
    assert got and got[0].startswith(b"<!DOCTYPE html>") and got[0].rstrip().endswith(b"</html>")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]  # no temporary file left


def _char_device(path):
    """A null device (major 1, minor 3) in tmp_path; never the machine's own /dev/null."""
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        with open(path, "wb") as fh:
            fh.write(b"probe")
    except (PermissionError, OSError) as exc:
        pytest.skip(f"cannot make a character device here: {exc}")


def test_atomic_write_to_a_character_device_writes_through(tmp_path):
    dev = tmp_path / "null"
    _char_device(dev)
    assert files.atomic_write(dev, "hello") == dev
    assert stat.S_ISCHR(os.lstat(dev).st_mode), "the device node was replaced by a regular file"
    status, _, err = run(_report(dev))
    assert status == 0, err
    assert stat.S_ISCHR(os.lstat(dev).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["null"]


def test_report_through_a_symlink_writes_the_target_and_keeps_the_link(tmp_path):
    real = tmp_path / "reports" / "plan-v2.html"
    real.parent.mkdir()
    real.write_text("old")
    link = tmp_path / "latest.html"
    link.symlink_to(real)
    status, _, err = run(_report(link))
    assert status == 0, err
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert sorted(p.name for p in real.parent.iterdir()) == ["plan-v2.html"]  # atomic: no temp left


def test_a_dangling_symlink_creates_its_target(tmp_path):
    link = tmp_path / "latest.html"
    link.symlink_to("new.html")  # relative, as `ln -s new.html latest.html` makes it
    assert files.atomic_write(link, "hi") == tmp_path / "new.html"
    assert link.is_symlink() and (tmp_path / "new.html").read_text() == "hi"


def test_a_symlink_loop_is_refused(tmp_path):
    a, b = tmp_path / "a.html", tmp_path / "b.html"
    a.symlink_to(b)
    b.symlink_to(a)
    with pytest.raises(ValueError, match=r"a.html: cannot write: it is a symlink that loops"):
        files.atomic_write(a, "x")
    one_line_error(_report(a), "symlink that loops")
    assert a.is_symlink() and b.is_symlink()


def test_a_socket_is_refused_with_one_line(tmp_path):
    path = tmp_path / "s.sock"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(str(path))
    except OSError as exc:  # a tmp_path longer than a socket address allows
        pytest.skip(f"cannot bind a unix socket here: {exc}")
    try:
        with pytest.raises(ValueError, match=r"s.sock: cannot write: it is a socket"):
            files.atomic_write(path, "x")
        one_line_error(_report(path), "it is a socket")
        assert stat.S_ISSOCK(os.lstat(path).st_mode)
    finally:
        sock.close()


def test_a_block_device_is_refused(tmp_path):
    dev = tmp_path / "blk"
    try:
        os.mknod(dev, 0o600 | stat.S_IFBLK, os.makedev(7, 200))  # a loop device number, never opened
    except (PermissionError, OSError) as exc:
        pytest.skip(f"cannot make a block device here: {exc}")
    with pytest.raises(ValueError, match=r"blk: cannot write: it is a block device"):
        files.atomic_write(dev, "x")
    one_line_error(_report(dev), "it is a block device")
    assert stat.S_ISBLK(os.lstat(dev).st_mode)


def test_a_directory_is_refused(tmp_path):
    with pytest.raises(ValueError, match=r"cannot write: it is a directory"):
        files.atomic_write(tmp_path, "x")
    one_line_error(_report(tmp_path), "it is a directory")


def test_a_regular_file_is_still_replaced_atomically(tmp_path, monkeypatch):
    target = tmp_path / "plan.html"
    target.write_text("good")
    before = os.stat(target).st_ino
    files.atomic_write(target, "new")
    assert target.read_text() == "new" and os.stat(target).st_ino != before  # renamed over, not rewritten
    monkeypatch.setattr(os, "replace", lambda src, dst: (_ for _ in ()).throw(OSError("disk full")))
    with pytest.raises(OSError, match="disk full"):
        files.atomic_write(target, "half")
    assert target.read_text() == "new" and [p.name for p in tmp_path.iterdir()] == ["plan.html"]


# --------------------------------------------------------------------------- 2. deep and wrong-typed TOML

DEEP = {
    "array in [scenario]": "[scenario]\nx = " + "[" * 500 + "]" * 500 + "\n",
    "array in a field": "[training]\ngpus = " + "[" * 500 + "]" * 500 + "\n",
    "inline tables": "[scenario]\nx = " + "{a = " * 400 + "1" + "}" * 400 + "\n",
}


@pytest.mark.parametrize("command", ["plan", "compare", "report"])
@pytest.mark.parametrize("kind", list(DEEP))
def test_deep_nesting_exits_2_with_one_line(tmp_path, command, kind):
    f = tmp_path / "deep.toml"
    f.write_text(DEEP[kind])
    argv = {"plan": ["plan", str(f)], "compare": ["compare", str(f), str(f)],
            "report": _report(tmp_path / "out.html", str(f))}[command]
    one_line_error(argv, "deep.toml: not valid TOML: nested too deeply")
    with pytest.raises(scenarios.ScenarioFileError, match=r"deep.toml: not valid TOML: nested too deeply"):
        scenarios.load(f)
    with pytest.raises(scenarios.ScenarioFileError, match=r"deep.toml: .*nested too deeply"):
        scenarios.read_meta(f)
    assert not (tmp_path / "out.html").exists()


META = [
    ("description = 5", r"scenario.description = 5 has the wrong type \(int\): must be text"),
    ("name = 5", r"scenario.name = 5 has the wrong type \(int\): must be text"),
    ("name = 1979-05-27", r"scenario.name = datetime.date\(1979, 5, 27\) has the wrong type \(date\)"),
    ("sources = 3", r"scenario.sources = 3 has the wrong type \(int\): must be a list of text"),
    ("sources = [1, 'a']", r"scenario.sources = \[1, 'a'\] has the wrong type \(list\): must be a list of text"),
    ("description = [" + "[" * 50 + "]" * 50 + "]", r"scenario.description = \[\[\[.* has the wrong type \(list\)"),
]


@pytest.mark.parametrize("command", ["plan", "compare", "report"])
@pytest.mark.parametrize("line, match", META)
def test_wrong_typed_metadata_exits_2_with_one_line(tmp_path, command, line, match):
    f = tmp_path / "meta.toml"
    f.write_text(f"[scenario]\n{line}\n\n[training]\ngpus = 2048\n")
    argv = {"plan": ["plan", str(f)], "compare": ["compare", str(f), str(f)],
            "report": _report(tmp_path / "out.html", str(f))}[command]
    err = one_line_error(argv, "meta.toml: scenario.")
    assert __import__("re").search(match, err) and "(line 2)" in err
    with pytest.raises(scenarios.ScenarioFileError, match=match):
        scenarios.load(f)
    with pytest.raises(scenarios.ScenarioFileError, match=match):
        scenarios.read_meta(f)


def test_a_scenario_key_that_is_not_a_table_is_refused(tmp_path):
    f = tmp_path / "m.toml"
    f.write_text("scenario = 5\n")
    one_line_error(["compare", str(f), str(f)], "m.toml: scenario must be a table ([scenario]), got int")


def test_good_metadata_still_reads():
    meta = scenarios.read_meta(scenarios.SCENARIO_DIR / "seed.toml")
    assert isinstance(meta["name"], str) and all(isinstance(s, str) for s in meta["sources"])
    assert scenarios.loads('[scenario]\nname = "x"\ndescription = "y"\nsources = ["a"]\nextra = 1\n') == Scenario()


# --------------------------------------------------------------------------- 3. one cap on message length


def test_clip_and_short_repr_cap_length():
    huge = "x" * BIG
    shown = short_repr(huge)
    assert len(shown) < MAX_SHOWN + 40 and shown.endswith(f"… ({BIG:,} characters)")
    assert short_repr("lots") == "'lots'" and short_repr(1.5) == "1.5"
    assert len(short_repr([[1] * 10_000] * 10_000)) < MAX_SHOWN + 40
    assert len(clip("y" * 10_000)) < MAX_SHOWN + 40 and clip("short") == "short"


@pytest.mark.parametrize("path", ["training.gpus", "failover.tier", "replication.streamed"])
def test_a_50_mb_set_value_prints_a_short_error(path):
    err = one_line_error(["plan", "--set", f"{path}={'x' * BIG}"], path)
    assert f"({BIG:,} characters)" in err


def test_a_huge_unknown_set_key_prints_a_short_error():
    one_line_error(["plan", "--set", f"training.{'x' * BIG}=1"], "unknown field 'training.xxx")
    one_line_error(["plan", "--set", "x" * BIG], "must look like section.field=value")


@pytest.mark.parametrize("text, size, match", [
    ('[training]\ngpus = "{x}"\n', 10**6, "f.toml: training.gpus = 'xxx"),  # 50 MB: over the ceiling (section 6)
    ('[failover]\ntier = "{x}"\n', 10**6, "f.toml: failover.tier = 'xxx"),
    ('[training]\n{x} = 1\n', 10**6, "f.toml: unknown field 'training.xxx"),
    ('[{x}]\na = 1\n', 10**6, "f.toml: unknown section 'xxx"),
    ('[scenario]\ndescription = ["{x}"]\n', 10**6, "f.toml: scenario.description = ['xxx"),
])
def test_a_huge_toml_value_prints_a_short_error(tmp_path, text, size, match):
    f = tmp_path / "f.toml"
    f.write_text(text.replace("{x}", "x" * size))
    one_line_error(["plan", str(f)], match)


def test_a_4000_digit_integer_is_out_of_range_not_a_crash(tmp_path):
    f = tmp_path / "f.toml"
    f.write_text("[training]\ngpus = " + "9" * 4000 + "\n")
    one_line_error(["plan", str(f)], "f.toml: training.gpus = 9999")
    with pytest.raises(ValueError, match=r"training.gpus = 9+… \(4,000 characters\) is out of range"):
        Scenario().with_changes({"training.gpus": 10 ** 4000 - 1})


def test_a_5000_digit_integer_names_the_file(tmp_path):
    f = tmp_path / "f.toml"
    f.write_text("[training]\ngpus = " + "9" * 5000 + "\n")
    one_line_error(["plan", str(f)], "f.toml: not valid TOML: an integer has more than 4,300 digits")


def test_a_huge_value_passed_to_a_formula_is_shown_short():
    with pytest.raises(TypeError, match=r"must be a number.*… \(52,428,800 characters\)") as info:
        reliability.cluster_mtbf("x" * BIG, 1e-6)
    assert len(str(info.value)) < ERROR_CAP


@pytest.mark.slow  # the attack's size is what it checks
def test_a_million_bad_csv_rows_give_a_short_error():
    text = HEADER + "x,y,z,w,v\n" * 1_000_000
    with pytest.raises(ValueError, match=r"(?s)^big.csv row 2, column date: 'x' is not a date.*"
                                         r"more errors not shown \(4,000,000 errors in 1,000,000 rows\)$") as info:
        drills.parse_drill_records(text, name="big.csv")
    assert len(str(info.value)) < ERROR_CAP


def test_a_huge_csv_cell_gives_a_short_error():
    text = HEADER + GOOD_ROW.replace("170", "x" * BIG)  # beyond csv's field limit: named, not echoed
    with pytest.raises(ValueError, match=r"^big.csv row 2: cannot read as CSV: field larger than field limit") as info:
        drills.parse_drill_records(text, name="big.csv")
    assert len(str(info.value)) < ERROR_CAP
    text = HEADER + GOOD_ROW.replace("170", "x" * 100_000)  # within it: echoed, shortened
    with pytest.raises(ValueError,
                       match=r"big.csv row 2, column seconds: 'xxx.*… \(100,000 characters\) is not") as info:
        drills.parse_drill_records(text, name="big.csv")
    assert len(str(info.value)) < ERROR_CAP
    with pytest.raises(ValueError, match=r"big.csv row 1: header is 'xxx.*… \(100,000 characters\)") as info:
        drills.parse_drill_records("x" * 100_000 + "\n" + GOOD_ROW, name="big.csv")
    assert len(str(info.value)) < ERROR_CAP


# --------------------------------------------------------------------------- 4. byte-order marks


def test_a_toml_file_with_a_bom_is_read(tmp_path):
    f = tmp_path / "bom.toml"
    f.write_bytes(b"\xef\xbb\xbf" + b'[scenario]\nname = "bom"\n\n[training]\ngpus = 2048\n')
    assert scenarios.load(f).training.gpus == 2048 and scenarios.read_meta(f)["name"] == "bom"
    assert scenarios.loads("\ufeff[training]\ngpus = 2048\n").training.gpus == 2048
    status, out, err = run(["plan", str(f), "--json"])
    assert status == 0 and '"checkpoint_size"' in out, err
    status, out, err = run(["compare", str(f), str(f)])
    assert status == 0 and "bom" in out, err


def test_a_bom_in_a_set_value_is_named():
    one_line_error(["plan", "--set", "\ufefftraining.gpus=2048"], "byte-order mark (U+FEFF)")
    one_line_error(["plan", "--set", "training.gpus=\ufeff2048"], "byte-order mark (U+FEFF)")


def test_a_csv_with_a_bom_is_read(tmp_path):
    f = tmp_path / "bom.csv"
    f.write_bytes(b"\xef\xbb\xbf" + (HEADER + GOOD_ROW).encode())
    assert drills.read_drill_records(f)[0].seconds == 170.0
    assert drills.parse_drill_records("\ufeff" + HEADER + GOOD_ROW)[0].phase == "local.detection"


def test_a_csv_with_a_bom_and_crlf_line_ends_is_read(tmp_path):
    f = tmp_path / "excel.csv"  # Excel's "CSV UTF-8": a BOM, then CRLF after every row
    f.write_bytes(b"\xef\xbb\xbf" + (HEADER + GOOD_ROW + "\n" + GOOD_ROW.replace("170", "171")).replace(
        "\n", "\r\n").encode())
    assert [(r.row, r.seconds) for r in drills.read_drill_records(f)] == [(2, 170.0), (4, 171.0)]


# --------------------------------------------------------------------------- 5. other hostile files


def test_a_csv_cell_over_the_csv_field_limit_names_row_and_column():
    text = HEADER + GOOD_ROW.replace("170", '"' + "1" * 200_000 + '"')
    with pytest.raises(ValueError, match=r"drills.csv row 2: cannot read as CSV: field larger than field limit"):
        drills.parse_drill_records(text)


def test_a_binary_csv_names_the_file(tmp_path):
    f = tmp_path / "b.csv"
    f.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ValueError, match=r"b.csv: not a UTF-8 text file \(byte 0\)"):
        drills.read_drill_records(f)


toml_leaf = st.one_of(st.integers(-10**30, 10**30), st.floats(), st.text(max_size=8), st.booleans(),
                      st.dates(), st.datetimes(), st.times())
toml_value = st.recursive(toml_leaf, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                             st.dictionaries(st.text(max_size=4), inner, max_size=3)),
                          max_leaves=12)
toml_shape = st.dictionaries(
    st.sampled_from(["scenario", "training", "failover", "checkpoint", "nosuch"]),
    st.one_of(st.dictionaries(st.sampled_from(["name", "description", "sources", "gpus", "tier", "mode", "x"]),
                              toml_value, max_size=4), toml_value),
    max_size=3)


@pytest.mark.slow  # 300 shapes: fuzzing, as tests/test_fuzz.py, is CI's
@settings(max_examples=300, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(toml_shape)
def test_any_toml_shape_loads_or_fails_with_one_short_line(tmp_path_factory, doc):
    try:
        text = tomli_w.dumps(doc)
    except (TypeError, ValueError):
        return
    f = tmp_path_factory.getbasetemp() / "shape.toml"
    f.write_text(text, encoding="utf-8")
    for read in (scenarios.load, scenarios.read_meta):
        try:
            got = read(f)
        except ValueError as exc:
            message = str(exc)
            assert message.startswith(f"{f}: ") and "\n" not in message and len(message) < ERROR_CAP
            continue
        if read is scenarios.read_meta:  # what report and compare use must have the documented types
            assert isinstance(got["name"], str) and isinstance(got["description"], str)
            assert isinstance(got["sources"], list) and all(isinstance(x, str) for x in got["sources"])
    status, _, err = run(["plan", str(f)])
    assert status == 0 or (status == 2 and err.count("\n") == 1 and len(err) < ERROR_CAP), err[:500]


def test_a_huge_quantity_is_echoed_short():
    from drmath import units
    with pytest.raises(ValueError, match=r"cannot read .* as a number") as info:
        units.parse_quantity("9" * 10 + "x" * 10**6)
    assert len(str(info.value)) < 2000


# --------------------------------------------------------------------------- 6. keys, endless inputs, modes, FIFOs


def _no_tomllib(monkeypatch):
    """Make tomllib fail the test if it is reached: the depth checks must refuse first."""
    def loads(text, **kwargs):
        raise AssertionError(f"tomllib read {len(text):,} characters that the depth scan should have refused")
    monkeypatch.setattr(tomllib, "loads", loads)


DOTTED = {  # each 5,000 parts: the old reader took 0.4 s and 130 MB (100,000 parts: 41 s, then MemoryError)
    "dotted key": ".".join(["a"] * 5000) + " = 1\n",
    "spaced dotted key": "[scenario]\n" + " . ".join(["a"] * 5000) + " = 1\n",
    "quoted parts": ".".join(['"a.b"', "'c'"] * 2500) + " = 1\n",
    "table header": "[" + ".".join(["t"] * 5000) + "]\n",
    "array of tables": "[[" + ".".join(["t"] * 5000) + "]]\n",
    "inline table": "[scenario]\nx = {" + ".".join(["a"] * 5000) + " = 1}\n",
}


@pytest.mark.parametrize("kind", list(DOTTED))
def test_a_key_of_thousands_of_parts_is_refused_before_tomllib(tmp_path, monkeypatch, kind):
    f = tmp_path / "keys.toml"
    f.write_text(DOTTED[kind])
    _no_tomllib(monkeypatch)
    line = 2 if DOTTED[kind].startswith("[scenario]") else 1
    want = rf"keys.toml: not read: the key .* has 5,000 parts; at most {files.MAX_KEY_DEPTH} are read \(line {line}\)"
    for read in (scenarios.load, scenarios.read_meta, scenarios.load_with_meta):
        with pytest.raises(scenarios.ScenarioFileError, match=want):
            read(f)
    with pytest.raises(scenarios.ScenarioFileError, match=r"^<string>: not read: the key"):
        scenarios.loads(DOTTED[kind])
    one_line_error(["plan", str(f)], "keys.toml: not read: the key")
    one_line_error(["compare", str(f), "seed"], "keys.toml: not read: the key")


def test_the_issues_100_000_part_key_is_refused_at_once(tmp_path, monkeypatch):
    f = tmp_path / "keys.toml"
    f.write_text(".".join(["a"] * 100_000) + " = 1\n")  # 200 kB: 41 s and a MemoryError traceback before
    _no_tomllib(monkeypatch)
    err = one_line_error(["plan", str(f)], "keys.toml: not read: the key 'a.a.a")
    assert "has 100,000 parts" in err


def test_keys_up_to_the_limit_and_dots_in_strings_still_read():
    n = files.MAX_KEY_DEPTH
    with pytest.raises(scenarios.ScenarioFileError, match="unknown section 'a'"):  # tomllib read it; the model refused
        scenarios.loads(".".join(["a"] * n) + " = 1\n")
    with pytest.raises(scenarios.ScenarioFileError, match=f"has {n + 1} parts"):
        scenarios.loads(".".join(["a"] * (n + 1)) + " = 1\n")
    dots = ".".join(["x"] * 200)
    text = (f'# {dots}\n[scenario]\nname = "{dots}"\ndescription = """\n{dots}\n"{dots}"\n"""\n'
            f"sources = ['{dots}', '''{dots}''', \"https://example.org/{dots}\"]\nwhen = 1979-05-27T07:32:00.999\n"
            f"[training]  # {dots}\nmfu = 0.4\nparams = 1.5e+11\n")
    assert scenarios.loads(text).training.mfu == 0.4
    for path in scenarios.SCENARIO_DIR.glob("*.toml"):  # every shipped scenario passes the scan
        files.check_toml_depth(path.read_text(encoding="utf-8"), path.name)


def test_nesting_past_the_limit_is_refused_before_tomllib(monkeypatch):
    n = files.MAX_NESTING
    assert scenarios.loads("[scenario]\nx = " + "[" * n + "]" * n + "\n") == Scenario()
    assert scenarios.loads(f'[scenario]\nname = "{"[" * 500}"\n') == Scenario()  # brackets in text count for nothing
    _no_tomllib(monkeypatch)
    for text in ("[scenario]\nx = " + "[" * (n + 1) + "]" * (n + 1) + "\n",
                 "[scenario]\nx = " + "{a = " * (n + 1) + "1" + "}" * (n + 1) + "\n"):
        with pytest.raises(scenarios.ScenarioFileError, match=rf"nested too deeply \({n + 1} levels .*\) \(line 2\)"):
            scenarios.loads(text, "deep.toml")


def _device(path, major, minor):
    """A character device node in tmp_path (never the machine's own), or skip where it cannot be made."""
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(major, minor))
        with open(path, "rb"):
            pass
    except (PermissionError, OSError) as exc:
        pytest.skip(f"cannot make a character device here: {exc}")


def _limited_cli(argv, stdin=subprocess.DEVNULL):
    """`python -m drmath` in a child with 1.5 GB of address space and a 120 s cap: the old reader ran out of both."""
    def limit():
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (1_500_000_000, 1_500_000_000))
    return subprocess.run([sys.executable, "-m", "drmath", *argv], stdin=stdin, capture_output=True, text=True,
                          timeout=120, preexec_fn=limit)


def test_an_endless_device_is_refused_not_read(tmp_path):
    zero = tmp_path / "zero"
    _device(zero, 1, 5)  # /dev/zero's numbers: reads never end
    proc = _limited_cli(["plan", str(zero)])  # before: read to a MemoryError traceback
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert proc.stderr == f"drmath: error: {zero}: cannot read: it is a character device, not a regular file\n"
    with pytest.raises(ValueError, match=r"zero: cannot read: it is a character device, not a regular file"):
        drills.read_drill_records(zero)


def test_an_endless_stdin_stops_at_the_ceiling(tmp_path):
    zero = tmp_path / "zero"
    _device(zero, 1, 5)
    with open(zero, "rb") as endless:
        proc = _limited_cli(["plan", "-"], stdin=endless)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert proc.stderr == (f"drmath: error: <stdin>: cannot read: it is longer than {files.MAX_INPUT_BYTES:,} "
                           "bytes, the most that is read\n")


class _Endless(io.RawIOBase):
    """A standard input that never ends: zeros, as many as asked for."""

    def readable(self):
        return True

    def readinto(self, buffer):
        buffer[:] = bytes(len(buffer))
        return len(buffer)


def _stdin(monkeypatch, data):
    raw = _Endless() if data is None else io.BytesIO(data)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(raw), encoding="utf-8"))


def test_stdin_is_read_with_the_same_ceiling(monkeypatch):
    monkeypatch.setattr(files, "MAX_INPUT_BYTES", 4096)
    _stdin(monkeypatch, None)
    one_line_error(["plan", "-"], "<stdin>: cannot read: it is longer than 4,096 bytes, the most that is read")
    _stdin(monkeypatch, b"[training]\n" + b"#" * 5000 + b"\ngpus = 2048\n")
    one_line_error(["plan", "-"], "<stdin>: cannot read: it is longer than 4,096 bytes")


def test_stdin_is_a_scenario_read_once(monkeypatch):
    text = b'[scenario]\nname = "piped"\n\n[training]\ngpus = 2048\n'
    mtbf_2048 = plan(Scenario().with_changes({"training.gpus": 2048})).mtbf
    _stdin(monkeypatch, text)
    status, out, err = run(["plan", "-", "--json"])
    assert status == 0, err
    assert json.loads(out)["mtbf"] == pytest.approx(mtbf_2048)
    _stdin(monkeypatch, text)
    status, out, err = run(["compare", "-", "-"])  # both columns from the one read
    assert status == 0, err
    assert out.splitlines()[0].split() == ["quantity", "piped", "piped"]
    _stdin(monkeypatch, text)
    status, out, err = run(["compare", "-", "-", "--json"])
    mtbf = next(row for row in json.loads(out)["rows"] if row["field"] == "mtbf")
    assert status == 0 and mtbf["values"] == [pytest.approx(mtbf_2048)] * 2
    _stdin(monkeypatch, b"[training]\ngpus = -1\n")
    one_line_error(["plan", "-"], "<stdin>: training.gpus = -1 is out of range")


def test_a_file_over_the_ceiling_is_refused_unread(tmp_path, monkeypatch):
    f = tmp_path / "big.toml"
    f.write_bytes(b"[training]\ngpus = 2048\n" + b"#" * files.MAX_INPUT_BYTES)
    size = f.stat().st_size
    one_line_error(["plan", str(f)], f"big.toml: cannot read: it is {size:,} bytes; at most "
                                     f"{files.MAX_INPUT_BYTES:,} are read")
    f.write_bytes(b"[training]\ngpus = 2048\n" + b"#" * (files.MAX_INPUT_BYTES - 30))
    assert scenarios.load(f).training.gpus == 2048  # just under it: read
    csv = tmp_path / "big.csv"
    csv.write_bytes((HEADER + GOOD_ROW).encode())
    monkeypatch.setattr(files, "MAX_TABLE_BYTES", 60)
    with pytest.raises(ValueError, match=rf"big.csv: cannot read: it is {csv.stat().st_size} bytes; at most 60 are"):
        drills.read_drill_records(csv)


def _unblock_reader(fifo):
    """Let a reader stuck in open() on ``fifo`` go (the old code blocked there): open and close the write end."""
    try:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    except OSError:
        pass


def _in_thread(call, fifo, unblock, timeout=60):
    """``call()`` in a thread; if it is still waiting after ``timeout`` s, ``unblock(fifo)`` frees it to end."""
    result = []
    worker = threading.Thread(target=lambda: result.append(call()), daemon=True)
    worker.start()
    worker.join(timeout=timeout)
    if worker.is_alive():
        unblock(fifo)
        worker.join(timeout=60)
    return result


@pytest.mark.parametrize("command", ["plan", "compare", "report"])
def test_an_input_fifo_is_refused_at_once(tmp_path, command):
    fifo = tmp_path / "in.toml"
    os.mkfifo(fifo)
    argv = {"plan": ["plan", str(fifo)], "compare": ["compare", "seed", str(fifo)],
            "report": _report(tmp_path / "out.html", str(fifo))}[command]
    result = _in_thread(lambda: run(argv), fifo, _unblock_reader, timeout=30)  # before: waited in open() for ever
    assert result == [(2, "", f"drmath: error: {fifo}: cannot read: it is a FIFO (named pipe), not a regular "
                               "file; give a file, or - to read standard input\n")]
    assert not (tmp_path / "out.html").exists()


def test_a_drill_csv_fifo_is_refused_at_once(tmp_path):
    fifo = tmp_path / "drills.csv"
    os.mkfifo(fifo)

    def read():
        with pytest.raises(ValueError, match=r"drills.csv: cannot read: it is a FIFO \(named pipe\), not a regular"):
            drills.read_drill_records(fifo)
        return "refused"
    assert _in_thread(read, fifo, _unblock_reader, timeout=30) == ["refused"]


def test_a_private_file_stays_private(tmp_path):
    target = tmp_path / "plan.html"
    target.write_text("secret")
    os.chmod(target, 0o600)
    files.atomic_write(target, "new")  # before: 0644, readable by everyone
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o600 and target.read_text() == "new"
    os.chmod(target, 0o640)
    status, _, err = run(_report(target))
    assert status == 0, err
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640
    assert target.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_a_file_through_a_symlink_keeps_its_mode(tmp_path):
    real = tmp_path / "real.html"
    real.write_text("old")
    os.chmod(real, 0o600)
    link = tmp_path / "link.html"
    link.symlink_to(real)
    files.atomic_write(link, "new")
    assert link.is_symlink() and stat.S_IMODE(os.stat(real).st_mode) == 0o600 and real.read_text() == "new"


def test_a_new_file_gets_the_umask(tmp_path):
    old = os.umask(0o027)
    try:
        files.atomic_write(tmp_path / "new.html", "x")  # before: always 0644
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "new.html").st_mode) == 0o640


def test_an_owner_is_kept_where_allowed_and_a_refusal_is_no_error(tmp_path, monkeypatch):
    target = tmp_path / "plan.html"
    target.write_text("old")
    if os.geteuid() == 0:  # only root may give a file away: check the owner is put back
        os.chown(target, 4321, 4321)
        files.atomic_write(target, "new")
        assert (os.stat(target).st_uid, os.stat(target).st_gid) == (4321, 4321)
        os.chown(target, 0, 0)

    def refuse(*args):
        raise PermissionError(errno.EPERM, "Operation not permitted")
    real_stat = os.stat
    monkeypatch.setattr(os, "fchown", refuse)  # as for any user but root: the owner cannot be put back
    monkeypatch.setattr(os, "stat", lambda p, **kw: os.stat_result(  # an old file owned by someone else
        (0o100600, 0, 0, 1, 4321, 4321, 3, 0, 0, 0)) if str(p) == str(target) else real_stat(p, **kw))
    files.atomic_write(target, "again")  # written anyway, its mode kept
    monkeypatch.undo()
    assert target.read_text() == "again" and stat.S_IMODE(os.stat(target).st_mode) == 0o600


def _free_writer(fifo):
    """Free a writer that the old code left blocked in open(): open the read end and read to the end."""
    def read():
        with open(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK), "rb") as fh:
            os.set_blocking(fh.fileno(), True)
            fh.read()
    threading.Thread(target=read, daemon=True).start()


def test_an_output_fifo_without_a_reader_times_out(tmp_path, monkeypatch):
    monkeypatch.setattr(files, "FIFO_TIMEOUT", 0.3)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    result = _in_thread(lambda: run(_report(fifo)), fifo, _free_writer, timeout=120)  # before: waited for ever
    assert result == [(2, "", f"drmath: error: {fifo}: cannot write: no reader opened the FIFO within 0.3 s\n")]
    with pytest.raises(TimeoutError, match=r"cannot write: no reader opened the FIFO within 0.3 s: '.*pipe'"):
        files.atomic_write(fifo, "x")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]


def test_a_full_device_is_named(tmp_path):
    full = tmp_path / "full"
    _device(full, 1, 7)  # /dev/full's numbers: every write fails with ENOSPC
    with pytest.raises(OSError, match=r"cannot write: No space left on device: '.*full'") as info:
        files.atomic_write(full, "x" * 100_000)
    assert info.value.errno == errno.ENOSPC and info.value.filename == str(full)
    err = one_line_error(_report(full), "full: cannot write: No space left on device")
    assert err == f"drmath: error: {full}: cannot write: No space left on device\n"  # before: "[Errno 28] ..." alone


def test_a_full_disk_is_named(tmp_path, monkeypatch):
    target = tmp_path / "plan.html"
    target.write_text("good")

    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(os, "fsync", full)  # the disk fills as the temporary file is written
    with pytest.raises(OSError, match=r"\[Errno 28\] cannot write: No space left on device: '.*plan.html'"):
        files.atomic_write(target, "new")
    err = one_line_error(_report(target), "plan.html: cannot write: No space left on device")
    assert err == f"drmath: error: {target}: cannot write: No space left on device\n"
    assert target.read_text() == "good" and sorted(p.name for p in tmp_path.iterdir()) == ["plan.html"]


# --------------------------------------------------------------------------- 7. hostile incident logs (issue 32)
# Each file is built in tmp_path and given to the real `python -m drmath calibrate`, or to the dashboard's fleet
# panel, in a child process whose wall time, CPU time and peak RSS are measured (os.wait4). Before the reader's
# bounds: a 1 MiB cell of digits took 117 s, a header of commas ran to a MemoryError at ~2.7 GB, 16 MiB of bad
# rows took 72.8 s and 1.77 GB, `--time-format %Y%Y` gave a re.error traceback, ESC/BEL/OSC reached the terminal,
# `1e308 h` gave an error naming no row, and a CR-only upload parsed 58,000 rows past the panel's cap.

HOSTILE_SECONDS = 5.0
"""The issue's bound on each hostile file's answer [s]; asserted with a margin for a loaded machine."""
HOSTILE_MB = 300.0
"""The issue's bound on the peak memory of the process that answers [MB]."""
CPU_SLACK, WALL_SLACK, MB_SLACK = 2.0, 6.0, 1.2  # [1]: CPU is what the file costs; wall time waits for the machine
CHILD_TIMEOUT = 90  # [s]: a child still running then is killed (the old reader took 117 s on one file)
CHILD_ADDRESS_SPACE = 3_000_000_000  # [B]: a runaway child (the old reader took ~2.7 GB) stops here, not the machine
CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")  # anything but \n
ROOT = Path(__file__).resolve().parents[1]
CALIBRATE = ["-m", "drmath", "calibrate"]
PANEL = """
import json, sys
from drmath.dashboard import build_app
from drmath.dashboard.fleet import FleetPanel
path, name, mapping = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
panel = FleetPanel(build_app())
loaded = panel.load(name, open(path, "rb").read())
if loaded and mapping:
    panel.map_columns(**mapping)
    panel.fit()
print(json.dumps({"loaded": loaded, "error": panel.error.value, "source": panel.source.value,
                  "summary": panel.summary.value, "causes": panel.causes.value, "columns": panel.columns}))
"""


@dataclasses.dataclass
class Child:
    """What one child process answered, and what it cost."""
    status: int
    out: str
    err: str
    seconds: float  # [s] wall
    cpu: float  # [s] user + system
    peak_mb: float  # [MB] peak RSS


SPAWN = """
import json, os, resource, sys
out, limit, argv = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
pid = os.fork()
if pid == 0:
    try:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        os.execv(argv[0], argv)
    finally:
        os._exit(127)
_, status, usage = os.wait4(pid, 0)
with open(out, "w") as fh:
    json.dump({"status": os.waitstatus_to_exitcode(status), "cpu": usage.ru_utime + usage.ru_stime,
               "kib": usage.ru_maxrss}, fh)
"""
"""A small parent for the measured child: a child's peak RSS (ru_maxrss) starts at its parent's RSS at the fork
and is kept across exec (forked from a 500 MB process, `python -c pass` reported 488 MB), so the child is forked
from this small process, not from the test runner."""


def measured_child(args):
    """``python *args`` run from the repository, measured: wall and CPU time, peak RSS (os.wait4 in a small parent).
    A child still running after :data:`CHILD_TIMEOUT` is killed (its CPU time and memory are then unknown: inf)."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "PYTHONIOENCODING": "utf-8"}
    fd, usage_file = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", SPAWN, usage_file, str(CHILD_ADDRESS_SPACE), sys.executable, *args],
                            cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=CHILD_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
    seconds = time.perf_counter() - start
    try:
        with open(usage_file, encoding="utf-8") as fh:
            usage = json.load(fh)
    except (OSError, ValueError):
        usage = {"status": proc.returncode, "cpu": math.inf, "kib": math.inf}
    finally:
        os.unlink(usage_file)
    return Child(usage["status"], out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), seconds,
                 usage["cpu"], usage["kib"] * 1024 / 1e6)


def _within_bounds(child):
    assert child.cpu <= HOSTILE_SECONDS * CPU_SLACK, f"{child.cpu:.1f} s of CPU; {child.err[-500:]}"
    assert child.seconds <= HOSTILE_SECONDS * WALL_SLACK, f"{child.seconds:.1f} s; {child.err[-500:]}"
    assert child.peak_mb <= HOSTILE_MB * MB_SLACK, f"{child.peak_mb:.0f} MB; {child.err[-500:]}"


def _calibrate_error(path, match, *extra, lines=1):
    """`drmath calibrate` on a hostile file: exit 2, ``lines`` lines of error (the first matching), no traceback,
    no control character, within the issue's bounds."""
    args = extra or ("--start-column", "start", "--end-column", "end")
    child = measured_child([*CALIBRATE, str(path), *args])
    assert child.status == 2 and "Traceback" not in child.err, (child.status, child.err[-2000:])
    assert child.err.startswith("drmath: error: ") and child.err.count("\n") == lines, child.err[:3000]
    assert re.search(match, child.err.splitlines()[0]), child.err[:1000]
    assert not CONTROL.search(child.out + child.err), child.err[:1000]
    assert all(len(line) < ERROR_CAP for line in child.err.splitlines())
    _within_bounds(child)
    return child


def _write(path, text):
    path.write_bytes(text.encode("utf-8"))
    return path


def _bad_times(rows):
    return "start,end\n" + "".join(f"{i:019d}x,{i:018d}y\n" for i in range(rows))


CALIBRATE_FILES = {  # what each file is, its text, the error's first line
    "a 1 MiB cell of digits": (lambda: "start,end\n" + "1" * 2**20 + ",2024-05-01 00:10\n" + "2024-05-01 00:00,"
                               "2024-05-01 00:10\n", r"big.csv row 2: a line of 1,048,593 characters; drmath "
                                                     r"calibrate takes at most 65,536$"),
    "a 10,000-character time": (lambda: "start,end\n" + "1" * 10_000 + ",2024-05-01 00:10\n",
                                r"big.csv row 2, column start: a cell of 10,000 characters; at most 4,096 are read$"),
    "a header of 4 MiB of commas": (lambda: "," * 4 * 2**20 + "\n1,2\n",
                                    r"big.csv row 1: a line of 4,194,304 characters; drmath calibrate takes at most"),
    "a header of 60,000 commas": (lambda: "," * 60_000 + "\n1,2\n",
                                  r"big.csv has 60,001 columns: drmath calibrate takes at most 256$"),
    "16 MiB of bad rows": (lambda: "start,end\n" + "x,y\n" * (4 * 2**20 - 3),
                           r"big.csv has 4,194,302 lines: drmath calibrate takes at most 300,000 rows$"),
    "16 MiB of blank lines": (lambda: "start,end\n" + "\r" * (16 * 2**20 - 20),
                              r"big.csv has 16,777,197 lines: drmath calibrate takes at most 300,000 rows$"),
}


@pytest.mark.parametrize("kind", list(CALIBRATE_FILES))
def test_a_hostile_incident_log_is_refused_in_one_line_within_bounds(tmp_path, kind):
    text, match = CALIBRATE_FILES[kind]
    _calibrate_error(_write(tmp_path / "big.csv", text()), r"^drmath: error: " + match)


@pytest.mark.slow  # the attack's size is what it checks
def test_300_000_bad_rows_are_counted_not_each_described(tmp_path):
    # within every bound: each row's two times are bad and distinct, so nothing is parsed twice
    log = _write(tmp_path / "bad.csv", _bad_times(300_000))
    child = _calibrate_error(log, r"^drmath: error: bad.csv row 2, column end: '000000000000000000y' is not a time "
                                  r"\(give --time-format\)$", lines=11)
    assert child.err.splitlines()[-1] == ("bad.csv: 600,000 problems in 300,000 rows (599,990 not shown); the file "
                                          "was refused, nothing fitted")


@pytest.mark.slow  # the attack's size is what it checks
def test_300_000_rows_with_a_value_too_many_are_named(tmp_path):
    log = _write(tmp_path / "wide.csv", "start,end\n" + "".join(f"{i:06d},{i:06d},{i:06d}\n" for i in range(300_000)))
    child = _calibrate_error(log, r"^drmath: error: wide.csv row 2: has more than 2 values, the header's count$",
                             lines=11)
    assert child.err.splitlines()[-1].startswith("wide.csv: 300,000 problems in 300,000 rows")


@pytest.mark.parametrize("fmt, match", [
    ("%Y%Y", r"time_format \(--time-format\) = '%Y%Y' is not valid: redefinition of group name 'Y'"),
    ("%d/%m/%Y %H:%M %z%z", r"time_format \(--time-format\) = '%d/%m/%Y %H:%M %z%z' is not valid: redefinition"),
    ("%Q", r"time_format \(--time-format\) = '%Q' is not valid: 'Q' is a bad directive in format '%Q'"),
    ("%\x1b]0;x\x07", r"time_format \(--time-format\) = '%\\x1b\]0;x\\x07' is not valid: '\\x1b' is a bad directive"),
])
def test_a_bad_time_format_is_one_line_naming_the_option(tmp_path, fmt, match):
    log = _write(tmp_path / "log.csv", "start,hours\n2024-05-01,1\n2024-05-02,1\n2024-05-03,1\n2024-05-05,1\n")
    _calibrate_error(log, match, "--start-column", "start", "--duration-column", "hours", "--duration-unit", "h",
                     "--time-format", fmt)
    with pytest.raises(ValueError, match=match):
        incidents.parse_incidents(log.read_text(), start_column="start", duration_column="hours", duration_unit="h",
                                  time_format=fmt)


def test_a_huge_duration_names_its_row_and_column(tmp_path):
    log = _write(tmp_path / "log.csv", "start,hours\n2024-05-01,1\n2024-05-02,1e308\n2024-05-03,1\n2024-05-05,1\n")
    _calibrate_error(log, r"log.csv row 3, column hours: '1e308' h is longer than a century: at most 8.766e\+05 h$",
                     "--start-column", "start", "--duration-column", "hours", "--duration-unit", "h")


ESCAPES = "\x1b]0;owned\x07\x1b[2J\x1b]52;c;aGk=\x07\u202e\x9b"  # retitle, clear, clipboard write, bidi, C1 CSI
SHOWN = r"\x1b]0;owned\x07\x1b[2J\x1b]52;c;aGk=\x07\u202e\x9b"


def _escape_log(tmp_path):
    return _write(tmp_path / f"log{ESCAPES}.csv", f"start,hours,cause\n2024-05-01,1,{ESCAPES}GPU\n2024-05-02,1,NIC\n"
                                                  f"2024-05-04,1,{ESCAPES}GPU\n2024-05-05,1,{ESCAPES}GPU\n")


@pytest.mark.slow  # calibrate in measured subprocesses, twice: ~7 s
def test_control_characters_of_a_log_never_reach_the_terminal(tmp_path):
    log = _escape_log(tmp_path)
    hours = ("--start-column", "start", "--duration-column", "hours", "--duration-unit", "h")
    child = measured_child([*CALIBRATE, str(log), *hours, "--where", f"cause={ESCAPES}GPU"])  # a fit: the summary
    assert child.status == 0 and not CONTROL.search(child.out + child.err), child.out + child.err
    assert f"drmath calibrate: log{SHOWN}.csv (3 of 4 rows where cause={SHOWN}GPU)" in child.out
    assert f"{SHOWN}GPU" in child.out  # the cause table
    _within_bounds(child)
    err = _calibrate_error(log, rf"^drmath: error: log{re.escape(SHOWN)}.csv: unknown column 'x'", "--start-column",
                           "x", "--duration-column", "hours", "--duration-unit", "h").err
    assert "the columns are start, hours, cause" in err
    _write(log, f"start,hours,cause{ESCAPES}\n2024-05-01,{ESCAPES}\n")
    err = _calibrate_error(log, rf"^drmath: error: log{re.escape(SHOWN)}.csv: unknown column 'x'",
                           "--start-column", "x", "--duration-column", "hours", "--duration-unit", "h").err
    assert f"the columns are start, hours, cause{SHOWN}" in err
    _write(log, f"start,hours\n2024-05-01,{ESCAPES}\n2024-05-02,1\n2024-05-03,1\n")
    _calibrate_error(log, rf"^drmath: error: log{re.escape(SHOWN)}.csv row 2, column hours: '", *hours)
    _calibrate_error(tmp_path / f"missing{ESCAPES}.csv", rf"missing{re.escape(SHOWN)}.csv: cannot read", *hours)


# ---- the same files through the dashboard's fleet panel


def _panel(path, name, mapping=None):
    """The fleet panel of a dashboard, in a child: load ``path`` as ``name``, map and fit; what it shows, measured."""
    child = measured_child(["-c", PANEL, str(path), name, json.dumps(mapping or {})])
    assert child.status == 0, child.err[-2000:]
    shown = json.loads(child.out)
    assert not CONTROL.search(json.dumps(shown, ensure_ascii=False)), shown
    _within_bounds(child)
    return shown, child


def _panel_error(shown):
    """The panel's error as a reader sees it (tags stripped): one line."""
    text = html.unescape(re.sub(r"<[^>]+>", "", shown["error"]))
    assert text and "\n" not in text, shown
    return text


HOURS = {"start": "start", "duration": "hours", "unit": "h"}
PANEL_FILES = {  # the same attacks, at most the panel's 768 KiB
    "CR-only line ends": (lambda: "start,hours\r" + "2024-05-01,1\r" * 58_000, None,
                          r"^up.csv has 58,001 lines: this page takes at most 20,000 rows; fit a bigger log"),
    "LF line ends": (lambda: "start,hours\n" + "2024-05-01,1\n" * 58_000, None, r"^up.csv has 58,001 lines"),
    "CRLF line ends": (lambda: "start,hours\r\n" + "2024-05-01,1\r\n" * 50_000, None, r"^up.csv has 50,001 lines"),
    "a 760 KiB cell of digits": (lambda: "start,hours\n" + "1" * 760 * 2**10 + ",1\n2024-05-01,1\n", HOURS,
                                 r"^up.csv row 2: a line of 778,242 characters; this page takes at most 65,536$"),
    "a header of 760 KiB of commas": (lambda: "," * 760 * 2**10 + "\n1,2\n", None,
                                      r"^up.csv row 1: a line of 778,240 characters; this page takes at most 65,536$"),
    "bad rows, CR line ends": (lambda: _bad_times(19_000).replace("\n", "\r"), {"start": "start", "end": "end"},
                               r"^up.csv row 2, column end: '000000000000000000y' is not a time in ISO 8601 or a "
                               r"format inferred from the log's values"
                               r" \(38,000 problems in 19,000 rows \(37,990 not shown\)"),
    "12 cells of 60,000 digits": (lambda: "start,hours\n" + ("1" * 60_000 + ",1\n") * 12, HOURS,
                                  r"^up.csv row 2, column start: a cell of 60,000 characters; at most 4,096 are read"
                                  r" \(12 problems in 12 rows"),
    "a 1e308 h duration": (lambda: "start,hours\n2024-05-01,1\n2024-05-02,1e308\n2024-05-03,1\n2024-05-05,1\n",
                           HOURS, r"^up.csv row 3, column hours: '1e308' h is longer than a century"),
}


@pytest.mark.parametrize("kind", list(PANEL_FILES))
def test_a_hostile_upload_is_one_line_in_the_fleet_panel(tmp_path, kind):
    text, mapping, match = PANEL_FILES[kind]
    text = text()
    shown, _ = _panel(_write(tmp_path / "up.csv", text), "up.csv", mapping)
    assert re.search(match, _panel_error(shown)), shown["error"]
    assert shown["summary"] == ""
    if shown["loaded"]:  # the lines the panel says it took, whatever ends them
        assert f"{incidents.count_lines(text):,} lines" in shown["source"] and incidents.count_lines(text) > 2


@pytest.mark.slow  # three uploads through the fleet panel: ~10 s
def test_every_line_end_counts_in_the_panel(tmp_path):
    for end in ("\r", "\n", "\r\n"):
        log = "start,hours,cause" + end + end.join(["2024-05-01,1,GPU", "2024-05-02,1,NIC", "2024-05-03,1,GPU",
                                                     "2024-05-05,1,GPU"]) + end
        shown, _ = _panel(_write(tmp_path / "up.csv", log), "up.csv", HOURS)
        assert "up.csv: 3 columns, 5 lines" in shown["source"], (repr(end), shown["source"])  # before: "0 lines"
        assert shown["loaded"] and shown["error"] == "" and "Events          3" in shown["summary"]


@pytest.mark.slow  # two uploads through the fleet panel: ~7 s
def test_control_characters_of_an_upload_never_reach_the_page(tmp_path):
    log = _escape_log(tmp_path)
    shown, _ = _panel(log, f"mine{ESCAPES}.csv", {**HOURS, "cause": "cause"})
    assert shown["error"] == "" and f"mine{SHOWN}.csv" in shown["source"] and f"{SHOWN}GPU" in shown["causes"]
    assert f"drmath calibrate: mine{SHOWN}.csv" in html.unescape(shown["summary"])
    _write(log, f"start,hours{ESCAPES}\n2024-05-01,1\n")
    shown, _ = _panel(log, f"mine{ESCAPES}.csv")
    assert shown["columns"] == ["start", f"hours{SHOWN}"]
    _write(log, f"start,hours\n2024-05-01,{ESCAPES}\n2024-05-02,1\n2024-05-03,1\n2024-05-05,1\n")
    shown, _ = _panel(log, f"mine{ESCAPES}.csv", HOURS)
    assert _panel_error(shown).startswith(f"mine{SHOWN}.csv row 2, column hours: '")
