"""Notebook 08 reads the reader's own log, and its prose follows that log, not the shipped example's (issue 35).

Two ways in: a path in the notebook's ``parameters`` cell (``LOG``, ``OPTIONS``), for a reader in Jupyter; and an
upload (:class:`drmath.dashboard.logform.LogUpload`), for a reader of the published page, which draws every section
that depends on the fit again (:class:`drmath.dashboard.logform.Sections`). The notebook is executed once, with its
parameters cell replaced by a ticket export's path and options, as papermill would; then, in the same kernel, the
upload's "fit" is pressed on the bytes of a small generated CSV (what the upload button hands on), and on a bad one.
Outside Voilà each section is a cell's own output, updated in place by display id, so the executed notebook holds
what a reader sees.
"""

import copy
import html
import json
import re
import sys
from pathlib import Path

import pytest

from drmath.dashboard.logform import LogUpload, Sections
from drmath.formatting import short_duration
from drmath.io import incidents

sys.path.insert(0, str(Path(__file__).resolve().parent))  # pytest runs with --import-mode=importlib
from conftest import EXECUTE_REPLY_TIMEOUT, EXECUTE_TIMEOUT, ROOT

NOTEBOOK = ROOT / "notebooks" / "08_your_fleet.ipynb"
TICKETS = ROOT / "data" / "tickets_example.csv"
TICKET_OPTIONS = {"start_column": "Created", "end_column": "Resolved", "cause_column": "Component",
                  "where": ["Cluster=prod"]}
SMALL_OPTIONS = {"start_column": "opened", "duration_column": "minutes", "duration_unit": "min",
                 "cause_column": "component"}
EXAMPLE_FACTS = ("54 days", "16,384", "incidents_example.csv", "GENERATED, not a real fleet's log")
"""What only the shipped example's page says: its window, its GPU count, its name and its stated parameters."""


def small_log():
    """A small CSV of 25 incidents over about 10 days, with irregular gaps: not the example, not the export."""
    gaps = [3, 11, 5, 17, 2, 9, 14, 6, 21, 4, 8, 12, 7, 19, 3, 10, 15, 5, 13, 6, 9, 16, 4, 11, 7]  # [h]
    rows, t = ["opened,minutes,component"], 0
    for i, gap in enumerate(gaps):
        t += gap
        cause = ("GPU", "NIC", "PSU")[i % 3]
        rows.append(f"2025-06-{1 + t // 24:02d} {t % 24:02d}:{(7 * i) % 60:02d},{20 + 3 * i},{cause}")
    return ("\n".join(rows) + "\n").encode()


def shown(nb):
    """The page's text, cell by cell: each Markdown cell's source, and each code cell's outputs (Markdown, HTML
    tags stripped, plain text; a figure as its JSON)."""
    cells = []
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cells.append(cell.source)
            continue
        parts = []
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if "application/vnd.plotly.v1+json" in data:
                parts.append(json.dumps(data["application/vnd.plotly.v1+json"]["data"], sort_keys=True))
            elif "text/markdown" in data:
                parts.append(html.unescape(re.sub(r"<[^>]+>", "", data["text/markdown"])).replace("**", ""))
            elif "text/html" in data:
                parts.append(html.unescape(re.sub(r"<[^>]+>", "", data["text/html"])))
            elif "text/plain" in data and "Output()" not in data["text/plain"]:
                parts.append(data["text/plain"])
            elif out.get("output_type") == "stream":
                parts.append(out["text"])
        cells.append("\n".join(parts))
    return cells


def sections(nb):
    """The indices of the cells that draw a section of the fit: each shows its ``ipywidgets.Output`` first."""
    return [i for i, cell in enumerate(nb.cells) if any(
        out.get("data", {}).get("text/plain") == "Output()" for out in cell.get("outputs", []))]


def takeaway_of(fit):
    """The takeaway's first sentence, as the notebook writes it for ``fit``."""
    return (f"Over {short_duration(fit.window)} this fleet had {fit.events:,} interruptions: one every "
            f"{short_duration(fit.mtbf)} on average")


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """The notebook's text after it ran on the ticket export, after a good upload and after a bad one."""
    nbclient = pytest.importorskip("nbclient")
    import nbformat

    nb = nbformat.read(NOTEBOOK, as_version=4)
    (params,) = [cell for cell in nb.cells if "parameters" in cell.metadata.get("tags", [])]
    params.source = f"LOG = {str(TICKETS)!r}\nOPTIONS = {TICKET_OPTIONS!r}\n"
    client = nbclient.NotebookClient(nb, timeout=EXECUTE_REPLY_TIMEOUT, timeout_func=lambda cell: EXECUTE_TIMEOUT,
                                     kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOK.parent)}})
    bad = small_log().decode().replace("2025-06-01 03:00", "last tuesday").encode()
    steps = {
        "good": f"""
before = page.page
upload.load("small.csv", {small_log()!r})
upload.map_columns(start="opened", duration="minutes", unit="min", cause="component")
fit = upload.fit()
print(json.dumps({{"fitted": fit is not None, "error": upload.error.value, "new_page": page.page is not before,
                   "file": page.page.fit.provenance["file"], "new_solve": page.page.at_95 is not before.at_95}}))""",
        "bad": f"""
before = page.page
upload.load("bad.csv", {bad!r})
upload.map_columns(start="opened", duration="minutes", unit="min", cause="component")
print(json.dumps({{"fitted": upload.fit() is not None, "error": upload.error.value,
                   "new_page": page.page is not before}}))""",
    }
    out = {}
    with client.setup_kernel():
        for index, cell in enumerate(nb.cells):
            client.execute_cell(cell, index)
        out["log"], out["sections"] = shown(nb), sections(nb)
        for name, source in steps.items():
            nb.cells.append(nbformat.v4.new_code_cell("import json\n" + source.strip()))
            client.execute_cell(nb.cells[-1], len(nb.cells) - 1)
            said = json.loads(nb.cells.pop()["outputs"][-1]["text"])
            out[name] = (copy.deepcopy(shown(nb)), said)
    return out


def test_the_notebook_given_a_path_tells_that_logs_story_not_the_examples(pages):
    fit = incidents.read_incidents(TICKETS, **TICKET_OPTIONS)
    text = "\n".join(pages["log"])
    assert takeaway_of(fit) in text
    assert f"Your log, tickets_example.csv: {fit.provenance['rows_read']:,} rows read" in text
    assert "drmath calibrate: tickets_example.csv" in text  # the fit's own summary
    assert "no GPU count was given" in text  # the export gives none; the example's 16,384 is not assumed
    for fact in EXAMPLE_FACTS:
        assert fact not in text, fact


def test_an_upload_draws_every_section_again_from_its_log(pages):
    text_before, (text_after, said) = pages["log"], pages["good"]
    assert said == {"fitted": True, "error": "", "new_page": True, "file": "small.csv", "new_solve": True}
    fit = incidents.parse_incidents(small_log().decode(), name="small.csv", **SMALL_OPTIONS)
    after = "\n".join(text_after)
    assert takeaway_of(fit) in after and "Your log, small.csv: 25 rows read" in after
    assert "drmath calibrate: small.csv" in after and "tickets_example.csv:" not in after
    changed = [i for i, (a, b) in enumerate(zip(text_before, text_after)) if a != b]
    assert len(pages["sections"]) == 7 and changed == pages["sections"]  # the log, the fit, the figures, the
    # design, its bands, the 95% solve, the takeaway: each drawn again, and nothing else


def test_a_bad_upload_is_one_line_and_the_page_stays_as_it_was(pages):
    (good, _), (bad, said) = pages["good"], pages["bad"]
    assert said["fitted"] is False and said["new_page"] is False
    error = html.unescape(re.sub(r"<[^>]+>", "", said["error"]))
    assert error.startswith("bad.csv row 2, column opened: 'last tuesday' is not a time") and "\n" not in error
    assert bad == good


# --------------------------------------------------------------------------- the form and the sections, alone

GOOD = ("start,minutes,cause\n2024-05-01 00:00,30,GPU\n2024-05-01 05:00,12,NIC\n"
        "2024-05-01 09:00,45,GPU\n2024-05-01 16:00,20,GPU\n")


def test_the_upload_form_hands_its_fit_on_and_says_a_refusal_in_one_line():
    form, fits = LogUpload(), []
    form.on_fit(fits.append)
    form.upload._handle_custom_msg({"event": "file", "name": "mine.csv", "size": len(GOOD)},
                                   [memoryview(GOOD.encode())])
    form.map_columns(start="start", duration="minutes", unit="min", cause="cause")
    fit = form.fit()
    assert fits == [fit] and fit.events == 3 and form.keywords()["duration_column"] == "minutes"
    assert not form.is_example and "shown: mine.csv" in form.status.value

    def refuse(fit):
        raise ValueError("failures.gpu_failure_rate = 1.0 is out of range\nsecond line")

    form.on_fit(refuse)
    assert form.fit() is None
    assert html.unescape(re.sub(r"<[^>]+>", "", form.error.value)) == (
        "failures.gpu_failure_rate = 1.0 is out of range (2 lines)")
    assert form.status.value == ""

    def fail(fit):  # what solve(confidence=...) raised on a log of a failure every 3 minutes
        raise IndexError("index 0 is out of bounds for axis 0 with size 0")

    form._callbacks[-1:] = [fail]
    assert form.fit() is None
    assert html.unescape(re.sub(r"<[^>]+>", "", form.error.value)) == (
        "mine.csv: the page could not be drawn from this log (IndexError: index 0 is out of bounds for axis 0 "
        "with size 0); nothing changed")
    assert form.use_example() and form.is_example


def test_sections_are_redrawn_all_or_none(monkeypatch):
    shown_now = {}

    class View:  # offline.Redraw, without a kernel
        def __init__(self):
            self.output, self.key = None, len(shown_now)

        def show(self, *objects):
            shown_now[self.key] = objects

    monkeypatch.setattr("drmath.offline.Redraw", View)
    monkeypatch.setattr("IPython.display.display", lambda *objects: None)

    def double(page):
        page.double = 2 * page.fit
        return [page.double]

    def check(page):
        if page.fit < 0:
            raise ValueError("fit = -1 is out of range: must be >= 0")
        return [page.double + 1]

    page = Sections(fit=1)
    page.section(double)
    page.section(check)
    assert shown_now == {0: (2,), 1: (3,)}
    page.refill(fit=5)
    assert shown_now == {0: (10,), 1: (11,)} and page.page.fit == 5
    with pytest.raises(ValueError, match="fit = -1 is out of range"):
        page.refill(fit=-1)
    assert shown_now == {0: (10,), 1: (11,)} and page.page.fit == 5  # the first section was not redrawn alone
