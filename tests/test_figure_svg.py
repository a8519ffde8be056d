"""Issue 24: the static dashboard's figures as SVG drawn once by the server (drmath.serve.figure_svg).

The ladder, the queue and its bounds are tested here with a stand-in renderer; the real renderer (kaleido) draws
a figure in :func:`test_kaleido_draws_a_figure_as_the_page_would`, and the page that shows the SVGs is tested in
``tests/test_static_first.py``.
"""

import asyncio
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # pytest runs with --import-mode=importlib
from conftest import CHROMIUM, run_async  # noqa: E402
from waiting import until  # noqa: E402

from drmath.serve import figure_svg, settings  # noqa: E402
from drmath.serve.figure_svg import FigureSVGs, plot_widths, remember, rung, rung_width  # noqa: E402

FIGURES = {"a": {"data": [{"type": "bar", "x": ["x"], "y": [1]}], "layout": {"height": 300, "title": {"text": "A"}}},
           "b": {"data": [{"type": "bar", "x": ["y"], "y": [2]}], "layout": {"height": 200}}}


def test_every_plot_width_on_the_ladder_is_within_one_percent_of_its_rung():
    """The page stretches an SVG to its box: at most half a step (1 %) off, from the first rung to the last."""
    widths = range(rung_width(0), rung_width(settings.SVG_RUNGS - 1) + 1)
    worst = max(abs(rung_width(rung(w)) / w - 1) for w in widths)
    assert worst <= (settings.SVG_STEP - 1) / 2 + 1 / rung_width(0)  # half a step, and a pixel's rounding
    assert rung(rung_width(0) - 10) is None and rung(rung_width(settings.SVG_RUNGS - 1) * 1.05) is None
    assert all(rung(bad) is None for bad in (0, -5, float("nan"), float("inf"), None, "457"))


def test_the_windows_drawn_at_start_have_plot_widths_on_the_ladder():
    for window in settings.SVG_WINDOWS:
        assert all(rung(w) is not None for w in plot_widths(window)), window


class FakeRenderer:
    """Draws ``<svg>`` naming the figure's title and width; ``fail`` (cannot start: True, or its first ``fail``
    starts) or ``misses`` (the widths whose figure it fails to draw) raise instead."""

    def __init__(self, fail=False, misses=()):
        self.fail, self.misses, self.drawn, self.closed, self.opened = fail, set(misses), [], False, 0
        self.failed_starts = 0


def stand_in(monkeypatch, renderer):
    async def open_renderer():
        if renderer.fail is True or renderer.fail > renderer.failed_starts:
            renderer.failed_starts += 1
            raise RuntimeError("no Chromium here")
        renderer.opened += 1
        return renderer

    async def draw(r, spec, width):
        await asyncio.sleep(0)  # a turn of the loop, as a real draw awaits: not a wait for anything
        if width in r.misses:
            raise RuntimeError(f"could not draw at {width}")
        r.drawn.append(width)
        title = spec["layout"].get("title", {}).get("text", "")
        return f'<svg class="main-svg" width="{width}">{title}</svg>'

    async def close(r):
        r.closed = True

    monkeypatch.setattr(figure_svg, "_open_renderer", open_renderer)
    monkeypatch.setattr(figure_svg, "_draw", draw)
    monkeypatch.setattr(figure_svg, "_close_renderer", close)
    monkeypatch.setattr(settings, "SVG_IDLE", 0.05)
    monkeypatch.setattr(figure_svg, "OPEN_RETRY", 0.01)


def test_a_page_gets_what_is_drawn_and_queues_the_rest_once(monkeypatch):
    renderer = FakeRenderer()
    stand_in(monkeypatch, renderer)

    async def scenario():
        svgs = FigureSVGs()
        key = remember(FIGURES)
        assert svgs.ready(key, [42, 42]) == {}  # nothing drawn yet: both queued
        assert svgs.ready(key, [42, 42]) == {}  # asked again while queued: not queued twice
        await until(lambda: renderer.closed, 5, "the queue drawn and the renderer closed once idle")
        assert renderer.drawn == [rung_width(42)] * 2
        got = svgs.ready(key, [42, 43])
        assert got == {"a": f'<svg class="main-svg" width="{rung_width(42)}">A</svg>'}  # "b" at 43 queued
        await until(lambda: len(renderer.drawn) == 3, 5, '"b" at 43 drawn')
        assert set(svgs.ready(key, [42, 43])) == {"a", "b"}

    run_async(scenario())


def test_what_a_page_can_ask_for_is_bounded(monkeypatch):
    renderer = FakeRenderer()
    stand_in(monkeypatch, renderer)
    monkeypatch.setattr(settings, "SVG_QUEUE", 3)

    async def scenario():
        svgs = FigureSVGs()
        key = remember(FIGURES)
        assert svgs.ready("0" * 16, [42, 42]) is None  # figures this server never rendered: nothing
        assert svgs.ready(key, [42]) is None and svgs.ready(key, [42, 42, 42]) is None  # not a rung per figure
        assert svgs.ready(key, [42, settings.SVG_RUNGS]) is None  # off the ladder
        for k in range(10):
            svgs.ready(key, [k, k])
        assert len(svgs._queue) == 3  # the rest are not drawn: their pages draw with plotly.js
        await until(lambda: renderer.closed, 5, "the queue drawn and the renderer closed once idle")
        assert len(renderer.drawn) == 3

    run_async(scenario())


def test_the_svgs_kept_are_bounded_in_bytes(monkeypatch):
    renderer = FakeRenderer()
    stand_in(monkeypatch, renderer)
    monkeypatch.setattr(settings, "SVG_CACHE_BYTES", 200)
    monkeypatch.setattr(settings, "SVG_CLIENT_LAYOUTS", 100)  # eight layouts from one client: not its budget's test

    async def scenario():
        svgs = FigureSVGs()
        key = remember(FIGURES)
        for k in range(8):  # one layout drawn (both figures) before the next is asked for
            svgs.ready(key, [k, k])
            await until(lambda: len(renderer.drawn) == 2 * (k + 1), 5, f"layout {k} drawn")  # noqa: B023
        assert 0 < sum(map(len, svgs._svgs.values())) <= 200
        assert svgs.ready(key, [7, 7]) and not svgs.ready(key, [0, 0])  # the last drawn kept, the first dropped

    run_async(scenario())


def test_a_renderer_whose_chromium_fails_to_start_once_is_tried_again(monkeypatch):
    """Two of three clean CI runs: the renderer's Chromium "closed immediately after starting" once on a loaded
    machine, and the server gave SVGs up for good."""
    renderer = FakeRenderer(fail=1)
    stand_in(monkeypatch, renderer)

    async def scenario():
        svgs = FigureSVGs()
        key = remember(FIGURES)
        svgs.ready(key, [42, 42])  # the first start fails; the same figure is tried again, and drawn
        await until(lambda: renderer.closed, 5, "the queue worked off and the renderer closed once idle")
        assert renderer.failed_starts == 1 and len(renderer.drawn) == 2 and not svgs._broken
        assert len(svgs.ready(key, [42, 42])) == 2  # both figures drawn: none lost to the failed start

    run_async(scenario())


def test_without_a_renderer_it_says_so_once_and_queues_nothing_more(monkeypatch, caplog):
    renderer = FakeRenderer(fail=True)
    stand_in(monkeypatch, renderer)

    def said():
        return [r.getMessage() for r in caplog.records if "no SVG renderer" in r.getMessage()]

    async def scenario():
        svgs = FigureSVGs()
        key = remember(FIGURES)
        with caplog.at_level("WARNING"):
            svgs.ready(key, [42, 42])
            svgs.ready(key, [41, 41])  # four figures: a Chromium that fails to start is tried FAILURES times
            await until(lambda: svgs._broken, 5, "the renderer found missing")
            assert renderer.failed_starts == figure_svg.FAILURES
            await until(said, 5, "the warning that there is no renderer")
            for k in range(5):
                assert svgs.ready(key, [k, k]) == {}
            assert len(svgs._queue) == 0  # read before any task could take from it: nothing was queued
        assert [r.getMessage() for r in caplog.records if "no SVG renderer" in r.getMessage()] == [
            "Static figures are drawn in the page: no SVG renderer here (RuntimeError: no Chromium here)"]
        assert len(svgs._queue) == 0

    run_async(scenario())


@pytest.mark.slow
def test_kaleido_draws_a_figure_as_the_page_would():
    """The real renderer: the page's own plotly.js bundle, no MathJax (no request leaves the machine), the width
    asked for and the figure's own height, its title as text."""
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is absent")

    async def draw():
        renderer = await figure_svg._open_renderer()
        try:
            return await figure_svg._draw(renderer, FIGURES["a"], rung_width(42))
        finally:
            await figure_svg._close_renderer(renderer)

    svg = run_async(draw())
    assert svg.startswith("<svg") and 'class="main-svg"' in svg
    assert f'width="{rung_width(42)}"' in svg and 'height="300"' in svg and ">A<" in svg


def test_a_figure_that_fails_is_skipped_with_a_fresh_renderer_and_failures_in_a_row_give_up(monkeypatch, caplog):
    renderer = FakeRenderer(misses={rung_width(1)})
    stand_in(monkeypatch, renderer)

    async def scenario():
        svgs = FigureSVGs()
        key = remember(FIGURES)
        svgs.ready(key, [1, 2])  # "a" at rung 1 fails: skipped; "b" at 2 drawn by a fresh renderer
        await until(lambda: renderer.drawn, 5, '"b" drawn')
        assert renderer.drawn == [rung_width(2)] and renderer.opened == 2 and not svgs._broken
        renderer.misses = {rung_width(k) for k in range(10, 20)}
        with caplog.at_level("WARNING"):
            for k in range(10, 15):
                svgs.ready(key, [k, k])
            await until(lambda: svgs._broken, 5, "the renderer given up after failures in a row")
        assert svgs._broken == f"RuntimeError: could not draw at {rung_width(11)}"  # the third in a row
        assert len(renderer.drawn) == 1 and len(svgs._queue) == 0

    run_async(scenario())


REAPED = """
import asyncio, psutil
from drmath.serve import figure_svg
from drmath.serve.zygote import subreaper
assert subreaper()  # as the server is: Chromium's helpers become this process's children when their parent goes

async def draw():
    renderer = await figure_svg._open_renderer()
    await figure_svg._draw(renderer, {"data": [], "layout": {"height": 100}}, 300)
    await figure_svg._close_renderer(renderer)

asyncio.run(draw())
print(sorted((c.name(), c.status()) for c in psutil.Process().children()))
"""


@pytest.mark.slow
def test_a_renderer_whose_chromium_start_never_ends_is_given_up_and_tried_again(monkeypatch):
    """A CI run: the renderer's first start never ended, and its server drew no SVG for the whole module."""
    renderer = FakeRenderer()
    stand_in(monkeypatch, renderer)
    opened, hung = figure_svg._open_renderer, []

    async def hangs_once():
        if not hung:
            hung.append(True)
            await asyncio.sleep(3600)  # a Chromium start that never comes back
        return await opened()

    monkeypatch.setattr(figure_svg, "_open_renderer", hangs_once)
    monkeypatch.setattr(figure_svg, "OPEN_TIMEOUT", 0.2)

    async def scenario():
        svgs = FigureSVGs()
        key = remember(FIGURES)
        svgs.ready(key, [42, 42])
        await until(lambda: renderer.closed, 5, "the hung start given up, the figures drawn by a second renderer")
        assert hung and renderer.opened == 1 and len(renderer.drawn) == 2 and not svgs._broken
        assert len(svgs.ready(key, [42, 42])) == 2

    run_async(scenario())


def test_a_closed_renderer_leaves_no_process_behind_in_a_subreaper():
    """The server reaps its orphans (its kernels are forks): Chromium's ended helpers stayed zombies (4 a renderer)."""
    import subprocess

    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is absent")
    out = subprocess.run([sys.executable, "-c", REAPED], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "[]"
