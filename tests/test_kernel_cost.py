"""What a page's kernel spends before the dashboard shows (issue 24): nothing it does not need before the first paint.

The CPU a pooled kernel burns to get ready is measured by ``bench/bench_kernel.py`` (a test never asserts a
timing); these tests pin the causes that profiling found, so that none comes back unnoticed:

- the app reaches the page in one message per widget, with its first render's state (no update follows at
  open), and at most :data:`MAX_WIDGETS_AT_OPEN` widgets (123 widgets and 240 messages before issue 24);
- building the app loads neither ``numpy.ma`` (``np.median`` imports it) nor mistune (a plan warning's one line
  of ``**bold**`` and ```code``` is rendered without it, exactly as mistune renders it);
- the page kernel does not import psutil (jupyter_client lists the network interfaces for a default ip that the
  connection file overrides), nor jupyter_client's managers, kernel specs and provisioners until asked for;
  collection stays off until the notebook's first cell has run (Voilà's own cell before it does not count),
  then start-up's objects leave the young generations without being walked.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

import drmath
from drmath import report
from drmath.io import scenarios

ROOT = Path(__file__).resolve().parent.parent
MAX_WIDGETS_AT_OPEN = 115
"""Widgets (each one comm and one message) the dashboard opens before a visitor touches anything. [1]"""


def test_the_app_opens_each_widget_once_with_its_final_state_and_sends_nothing_more(monkeypatch):
    import comm
    import ipywidgets

    from drmath.dashboard import build_app

    sent = []

    class Recording(comm.DummyComm):
        def publish_msg(self, msg_type, data=None, metadata=None, buffers=None, **keys):
            sent.append((msg_type, (data or {}).get("method"), (data or {}).get("state", {}).get("value")))

    monkeypatch.setattr(ipywidgets.comm, "create_comm", lambda *args, **kwargs: Recording(*args, **kwargs))
    app = build_app()
    opens = [m for m in sent if m[0] == "comm_open"]
    assert [m for m in sent if m[0] != "comm_open"] == []  # no update after an open
    assert len(opens) <= MAX_WIDGETS_AT_OPEN
    assert app.cards["ettr"].value and (app.cards["ettr"].value in [value for _, _, value in opens])  # rendered
    view = "application/vnd.jupyter.widget-view+json"  # displayed as its root, without a repr of the whole tree
    assert app._repr_mimebundle_()[view] == app.root._repr_mimebundle_()[view]




def test_building_the_app_loads_neither_numpy_ma_nor_mistune():
    code = ("import sys, json; from drmath.dashboard import build_app; app = build_app(); "
            "print(json.dumps([m for m in ('numpy.ma', 'mistune') if m in sys.modules]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []


TRICKY = ["a & b", "a &copy; b", "_a_ b", "a*b*", "1. first", "- item", "# title", "x **a**b", "**a **b", "a `b` c",
          "a ` b` c", "a \\*b", "a <i>b</i>", "a | b", "$x$ y", "a  b", 'a "q" b', "tier's own", "x rpo_site y",
          "**Site** 1.2 h; (a.b_c)", "a [b](c)", "a ~~b~~", "x\ny", " x", "**a**.", "**a**)"]


def test_a_simple_warning_is_rendered_as_mistune_renders_it():
    """Every text the shortcut takes comes out as mistune's; what it refuses still goes to mistune."""
    seed = drmath.plan(scenarios.seed()).warnings()
    assert seed and all(report._simple_html(text) is not None for text in seed.values())  # the page's own
    for text in [*TRICKY, *seed.values()]:
        simple = report._simple_html(text)
        assert simple is None or simple == report._markdown()(text), text
        assert report.markdown_html(text) == report._markdown()(text), text


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(gpus=st.sampled_from([8, 512, 8000, 131_072]), tier=st.sampled_from(["cold", "warm", "hot", "multi-site"]),
       link=st.sampled_from([1e9, 1e10, 4e11]), interval=st.sampled_from([300.0, 3600.0, 86_400.0]),
       rpo=st.sampled_from([None, 60.0, 900.0, 86_400.0]), rto=st.sampled_from([None, 600.0, 14_400.0]))
def test_every_plan_warning_renders_as_mistune_renders_it(gpus, tier, link, interval, rpo, rto):
    s = scenarios.seed().with_changes({"training.gpus": gpus, "failover.tier": tier,
                                         "replication.link_bandwidth": link, "replication.interval": interval,
                                         "requirements.rpo_site": rpo, "requirements.rto_site": rto})
    for text in drmath.plan(s).warnings().values():
        assert report.markdown_html(text) == report._markdown()(text), text


def test_a_page_kernel_skips_psutil_and_managers_and_moves_startup_objects_to_gen2(tmp_path, monkeypatch):
    from jupyter_client.manager import start_new_kernel

    from drmath import serve

    monkeypatch.setenv("JUPYTER_PATH", serve.voila_env({})["JUPYTER_PATH"])
    km, kc = start_new_kernel(kernel_name="python3", env=dict(os.environ), cwd=str(tmp_path))
    try:
        assert "drmath.serve.kernel_process" in " ".join(km.kernel_spec.argv)
        outputs = []

        def run(code, store_history=True):
            kc.execute_interactive(code, store_history=store_history, timeout=60,
                                   output_hook=lambda m: outputs.append(m["content"].get("text", "")))

        run("import os; os.environ['VOILA_KERNEL_ID'] = 'k'", store_history=False)  # Voilà's cell before the page's
        run("import gc; print(gc.isenabled())", store_history=False)
        run("import numpy; x = 1")  # the page's first cell
        run("import gc, sys; print(gc.isenabled(), 'psutil' in sys.modules, 'jupyter_client.manager' in sys.modules, "
            "len(gc.get_objects(2)) > 20 * len(gc.get_objects(1)) + 20 * len(gc.get_objects(0)))")
        run("from jupyter_client import KernelManager; import jupyter_client; print(jupyter_client.__version__ != '', "
            "KernelManager.__module__)")  # the whole package, once asked for
        assert "".join(outputs).split() == ["False", "True", "False", "False", "True", "True",
                                            "jupyter_client.manager"], outputs
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
