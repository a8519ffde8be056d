r"""The dashboard's controller: :class:`Dashboard` and :func:`build_app`, over one :func:`drmath.plan`.

:func:`build_app` returns a :class:`Dashboard`; display it (the Voilà notebook
``drmath/data/dashboard.ipynb`` is just that). Every control edits one Scenario
field through :meth:`Dashboard.apply`, which builds a new Scenario with
``with_changes``, derives ``plan()`` (and, when its inputs are uncertain, their
bands with ``bands()``, once per change: :func:`bands_for`), and only then
updates the view, which draws what it is handed (the curves are the plan's own
``Plan.sweep``). A ``ValueError`` shows its message in the error area and
leaves the previous scenario, plan and controls as they were.

    >>> app = build_app()
    >>> app.apply({"training.gpus": 16_384})
    True
    >>> app.scenario.training.gpus
    16384
    >>> app.apply({"training.mfu": 1.5})
    False
    >>> app.scenario.training.mfu, "training.mfu" in app.error.value
    (0.4, True)
"""

import base64
import html
import json
import math

import ipywidgets as W
import traitlets
from ipywidgets.widgets.widget_bool import ToggleButtonStyle
from ipywidgets.widgets.widget_button import ButtonStyle
from ipywidgets.widgets.widget_string import HTMLStyle

import drmath

from .. import _resources, viz
from ..formatting import every
from ..io import links, scenarios
from ..quantities import SOLVE_HINT
from ..report import markdown_html
from ..scenario import Scenario
from .bands import DRAWS, SEED, shade_all, whole_changes
from .baseline import BaselineView
from .cards import CARDS, TARGET_CONTROLS, _card_html, tier_table_html
from .fleet import FleetPanel, confidence_choice, searching_html
from .inert import compute_note, mark_inert
from .page import FIGURES, STORY
from .widgets import PlotlyView, ShareLink, _controls, opened_when_built

__all__ = ["build_app", "Dashboard", "bands_for"]

VOILA_PARAMETERS = links.VOILA_PARAMETERS
"""Query keys that belong to Voilà, not to the scenario (defined with the link format)."""


_STYLE = (f"<style>\n{viz.css_variables()}\n{_resources.data_file('widgets', 'dashboard.css').read_text('utf-8')}"
          "</style>")
"""The page's style: the palette as CSS variables, then ``drmath/data/widgets/dashboard.css``."""


# --------------------------------------------------------------------------- the app


def bands_for(scenario, draws=DRAWS):
    """The bands of a scenario's uncertain inputs, or None when it has none (then nothing is drawn).

    The dashboard draws them once per input change, with its plan, and hands them to the cards and the figures'
    shading (:mod:`drmath.dashboard.bands`), which draw what they are handed.

    Parameters
    ----------
    scenario : Scenario
        The inputs on screen.
    draws : int, default DRAWS
        Draws of the uncertain inputs. [1]

    Returns
    -------
    bands : Bands or None
        :func:`drmath.bands` of the scenario, with the fixed seed :data:`~drmath.dashboard.bands.SEED`
        (equal inputs show equal ranges); None without uncertainty.

    Examples
    --------
    >>> import drmath
    >>> bands_for(drmath.Scenario()) is None
    True
    >>> bands_for(drmath.Scenario().replace(**{"uncertainty.training.mfu": (0.3, 0.5)})).draws
    2000
    """
    if not scenario.uncertainty:
        return None
    return drmath.bands(scenario, draws=draws, seed=SEED)


class Dashboard:
    """The dashboard: controls → :meth:`apply` → plan/sweep → cards and figures.

    Attributes
    ----------
    scenario : Scenario
        The inputs on screen.
    plan : Plan
        ``plan(scenario)``: every number shown comes from it or from its ``sweep``.
    bands : Bands or None
        The 90% ranges of the scenario's uncertain inputs (:func:`bands_for`), drawn with the plan; None without.
    controls : dict of str to ipywidgets.Widget
        The control of each Scenario field, by ``section.field``.
    cards : dict of str to ipywidgets.HTML
        Each KPI card's value, by plan field.
    math_toggles : dict of str to ipywidgets.ToggleButton
        Each card's "show the math" toggle.
    math_views : dict of str to ipywidgets.Output
        The derivations shown so far (``Plan.explain``), made on first toggle.
    figures : dict of str to PlotlyView
        Each figure, by name (see :data:`FIGURES`).
    error : ipywidgets.HTML
        The last rejected input's message; empty when the inputs are valid.
    root : ipywidgets.Widget
        The whole app, to display.

    Examples
    --------
    >>> app = Dashboard()
    >>> app.cards["ettr"].value.count("drmath-kpi-ettr")
    1
    """

    _SOLVE = "apply the cheapest design"  # the solve button's label, which the stale Pareto figure names

    def __init__(self, scenario=None):
        with opened_when_built():  # each widget reaches the page once, with its first render's state
            self._build(scenario)

    def _build(self, scenario):
        # no scenario: the worked answer's design (the seed solved, shipped: no search at page start), with the
        # seed's own design pinned as the baseline it improves on, one click ("compare with baseline") away
        opening = scenarios.answer() if scenario is None else None  # read once: it is also what "open" shows first
        self.scenario = opening if scenario is None else scenario  # both carry the seed's targets
        self.plan = drmath.plan(self.scenario)
        self.bands = bands_for(self.scenario)  # None for the seed: no uncertainty, nothing drawn
        self._syncing = False
        # plain pieces share one layout and one style model: ~60 fewer models for each page to build
        self._plain, self._html_style, self._auto = W.Layout(), HTMLStyle(), W.Layout(width="auto")
        self._controls = _controls(self.scenario)
        self.controls = {path: c.widget for path, c in self._controls.items()}
        full = self._full = W.Layout(width="100%")
        self.error = self._html("", layout=full).add_class("drmath-error")
        self.scenario_view = self._html("", layout=W.Layout(display="none")).add_class("drmath-scenario-holder")
        self.replication_note = self._html("").add_class("drmath-note")
        self.mfu_note, self._mfu_judged = self._html("").add_class("drmath-note"), None  # what MFU moves, and why
        self.inert_note, self._inert_tier = self._html("").add_class("drmath-note"), None  # controls that do nothing
        self.notice = self._html("", layout=full).add_class("drmath-notice")
        self.warnings = self._html("", layout=full).add_class("drmath-warnings")  # what is wrong with the design
        self._make_files(opening)
        self._make_solver(None if scenario is not None else drmath.plan(scenarios.seed()))
        self.tiers = self._html("", layout=full).add_class("drmath-tiers")
        card_boxes = self._make_cards()
        self.fleet = FleetPanel(self)  # "your own fleet": an incident log in, applied as the failure model
        self.figures = {name: PlotlyView().add_class("drmath-figure").add_class(f"drmath-figure-{name}")
                        for name in FIGURES}
        for path, control in self._controls.items():
            control.widget.observe(lambda change, path=path: self._on_control(path, change), "value")
        self.root = self._layout(card_boxes)
        self._render(self.plan, self._specs(self.plan, self.bands))

    # ---- the parts of the page

    def _make_files(self, opening=None):
        """The files row: the share link, the scenario picker, the save link and what is open (the worked answer's
        design, as ``opening`` when already read)."""
        self.share = ShareLink(layout=self._plain)
        self._scenario_files = scenarios.shipped_scenarios()
        self.picker = W.Dropdown(options=[("open a scenario…", "")] + [(n, n) for n in self._scenario_files],
                                 value="", layout=W.Layout(width="300px", max_width="100%"),
                                 tooltip="load one of the scenarios that ship with drmath")
        self.picker.add_class("drmath-scenario-picker")
        self.picker.observe(lambda change: self._pick(change["new"]), "value")
        self.save_link = self._html("").add_class("drmath-save")
        self.opened = self._html("").add_class("drmath-opened-holder")  # the scenario last opened, and if edited
        path = scenarios.SCENARIO_DIR / "answer.toml"
        if opening is None and path.exists():
            opening = scenarios.answer()
        self._opened = ((opening, scenarios.read_meta(path)) if path.exists()
                        else (Scenario(), {"name": "default scenario"}))

    def _make_solver(self, baseline=None):
        """The baseline each card is compared with (pinned by a button; ``baseline``, a Plan, pinned at the start),
        and the "meet these targets" panel."""
        self.baseline = baseline
        self.compare_view = BaselineView()  # every card, baseline against now, and one chart
        button_style = ButtonStyle()  # the two buttons share it and the auto-width layout
        self.pin = W.Button(description="pin as baseline" if baseline is None else "clear baseline", icon="",
                            layout=self._auto, style=button_style,
                            tooltip="keep this design's numbers: every card then shows its change against them")
        self.pin.add_class("drmath-pin")
        self.pin.on_click(lambda _: self.pin_baseline(self.baseline is None))
        self.solve_button = W.Button(description=self._SOLVE, icon="", button_style="primary",
                                     layout=self._auto, style=button_style,
                                     tooltip="search tier, link, replication and checkpoint cadence and standby size "
                                             "for the cheapest design that meets every target, and apply it")
        self.solve_button.add_class("drmath-solve")
        self.solve_button.on_click(lambda _: self.solve())
        self.confidence = confidence_choice()  # point estimate, or 90% / 95% over the uncertain inputs
        self.solution = self._html("").add_class("drmath-solution")
        self.solution_view = None  # the last search: (Solution, the scenario it applied)
        # not a "drmath-figure": those five are drawn on every page; this one only after a search
        self.pareto = PlotlyView(layout=W.Layout(display="none")).add_class("drmath-pareto")

    def _make_cards(self):
        """Each card's value and its "show the math" toggle; returns the cards' boxes, in :data:`CARDS` order."""
        self.cards, self.math_toggles, self.math_views = {}, {}, {}
        card_boxes = []
        toggle_layout, toggle_style = self._auto, ToggleButtonStyle()
        for name in CARDS:
            value = self._html("")
            toggle = W.ToggleButton(value=False, description="show the math", icon="",
                                    tooltip=f"the derivation of {name}", layout=toggle_layout, style=toggle_style)
            toggle.add_class(f"drmath-math-toggle-{name}")
            toggle.observe(lambda change, name=name: self._toggle_math(name, change["new"]), "value")
            self.cards[name], self.math_toggles[name] = value, toggle
            card_boxes.append(W.VBox([value, toggle], layout=self._plain).add_class("drmath-card"))
        return card_boxes

    # ---- layout

    def _layout(self, card_boxes):
        c = self.controls

        def section(text):
            return self._html(f'<div class="drmath-section">{html.escape(text)}</div>')

        controls = W.VBox([
            section("Training"), c["training.gpus"], c["training.mfu"], self.mfu_note, c["training.params"],
            section("Checkpoints"), c["checkpoint.interval"],
            section("Replication"), c["replication.link_bandwidth"], c["replication.interval"],
            self.replication_note,
            section("Failures and failover"), c["failures.gpu_failure_rate"], c["failover.tier"],
            c["failover.standby_fraction"], c["failover.detection_time"], c["failover.decision_time"], self.inert_note,
            section("Meet these targets"), *(c[path] for path, *_ in TARGET_CONTROLS),
            W.HBox([self.solve_button, self.confidence], layout=self._plain).add_class("drmath-solve-row"),
            self.solution,
        ], layout=self._plain).add_class("drmath-controls")
        # sizes and the grid's areas live in dashboard.css (a Layout would write them inline, out of reach of
        # its media queries): side by side on a wide screen, controls above one column of charts on a phone
        f = self.figures
        for name, area in zip(FIGURES, ("rpo", "ettr", "rto", "tier", "link")):
            f[name].layout = W.Layout(grid_area=area)
        grid = W.GridBox(list(f.values()), layout=self._plain).add_class("drmath-grid")
        header = self._html(STORY, layout=self._full)
        cards = W.HBox(card_boxes, layout=self._full).add_class("drmath-cards")
        # the derivations' views are made on first use: fewer widgets for the page to build
        maths = self._maths = W.VBox([], layout=self._full)
        body = W.HBox([controls, grid], layout=self._plain).add_class("drmath-body")
        files = W.HBox([self.picker, self.opened, self.save_link, self.share, self.pin, self.compare_view.toggle],
                       layout=W.Layout(width="100%", align_items="center", grid_gap="10px")).add_class("drmath-files")
        return W.VBox([self._html(_STYLE), header, files, self.notice, cards, self.compare_view.root, self.warnings,
                       maths, self.error, body,
                       self.tiers, self.pareto, self.fleet.root, self.scenario_view],
                      layout=W.Layout(width="100%", grid_gap="10px")).add_class("drmath-app")

    def _html(self, value, layout=None):
        """An HTML widget with the shared style (and the shared plain layout unless given one)."""
        return W.HTML(value, layout=self._plain if layout is None else layout, style=self._html_style)

    def _repr_mimebundle_(self, **kwargs):
        # the root's own bundle (ipywidgets' DOMWidget) reprs the whole widget tree, ~4 ms of a page's kernel,
        # for a text/plain it then cuts to 110 characters: the same view, with a text of its own
        s = self.plan.scenario
        return {"text/plain": f"drmath dashboard: {s.training.gpus:,} GPUs, DR tier {s.failover.tier}",
                "application/vnd.jupyter.widget-view+json": {"version_major": 2, "version_minor": 0,
                                                             "model_id": self.root.model_id}}

    # ---- the one funnel for changes

    def apply(self, changes):
        """Apply input changes all at once, or not at all.

        Parameters
        ----------
        changes : mapping
            ``{"section.field": value}`` in SI (None unsets an optional field).

        Returns
        -------
        applied : bool
            True if the scenario changed; False if it was rejected (the message
            is then in :attr:`error` and nothing else moved).

        Examples
        --------
        >>> app = build_app()
        >>> app.apply({"failover.tier": "hot"}), app.plan.scenario.failover.tier
        (True, 'hot')
        """
        try:
            scenario = self.scenario.with_changes(changes)
            p = drmath.plan(scenario)
            bands = bands_for(scenario)  # the plan's 90% ranges: drawn once a change, for cards and figures
            specs = self._specs(p, bands)
        except (ValueError, TypeError) as exc:
            self._show_error(exc)
            self._sync_controls()
            return False
        self.scenario, self.plan, self.bands = scenario, p, bands
        self._render(p, specs)
        self._sync_controls()
        return True

    def load(self, scenario):
        """Show a whole scenario (a file, a link); every field is replaced.

        Parameters
        ----------
        scenario : Scenario
            The inputs to show.

        Returns
        -------
        applied : bool
            True when shown.

        Examples
        --------
        >>> app = build_app()
        >>> app.load(Scenario().with_changes({"failover.tier": "cold"})), app.plan.format("rto_site")
        (True, '21.0 days')
        """
        return self.apply(whole_changes(self.scenario, scenario))  # its spreads too, not only its fields

    def _pick(self, name):
        if not name:
            return
        try:
            scenario = scenarios.load(self._scenario_files[name])
        except (ValueError, TypeError, OSError) as exc:
            self._show_error(exc)
        else:
            self.notice.value = ""
            meta = scenarios.read_meta(self._scenario_files[name])
            if self.load(scenario):
                self._opened = (scenario, meta)
                self._render_file()
        finally:
            self.picker.value = ""

    def restore(self, query):
        """Restore the state a share link encodes; a bad link shows a notice and keeps the defaults.

        Parameters
        ----------
        query : str
            The page URL's query string.

        Returns
        -------
        restored : bool
            True when the link's settings were used.

        Examples
        --------
        >>> app = build_app()
        >>> app.restore("training.gpus=4096"), app.scenario.training.gpus
        (True, 4096)
        >>> app.restore("training.gpus=<script>"), app.scenario.training.gpus
        (False, 8000)
        """
        scenario, notice = links.from_query(query or "", ignore=VOILA_PARAMETERS)
        self.notice.value = ("" if notice is None else
                             f'<div class="drmath-notice-message">{html.escape(notice)}</div>')
        self.load(scenario)
        return notice is None

    def pin_baseline(self, on=True):
        """Pin the current plan as the baseline every card is compared with, or unpin it.

        Parameters
        ----------
        on : bool, default True
            Pin the design on screen now; False clears the baseline.

        Examples
        --------
        >>> app = build_app()
        >>> app.pin_baseline()
        >>> app.apply({"failover.tier": "hot"}), "vs baseline" in app.cards["rto_site"].value
        (True, True)
        """
        self.baseline = self.plan if on else None
        self.pin.description = "clear baseline" if on else "pin as baseline"
        self._render_cards(self.plan)

    def solve(self):
        """Find the cheapest design that meets every target (:func:`drmath.solve`), apply it and draw its front.

        The search runs on the inputs on screen; when nothing meets the targets, nothing is applied and the
        message says which target is closest and what it would take.

        Returns
        -------
        solution : Solution or None
            The search's result; None when the search was refused (its message is in :attr:`error`).

        Examples
        --------
        >>> app = build_app({"requirements.rto_site": 4 * 3600})
        >>> sol = app.solve()
        >>> sol.feasible, app.scenario.failover.tier == sol.scenario.failover.tier
        (True, True)
        """
        self.solve_button.disabled, self.solve_button.description = True, "searching…"
        confidence = self.confidence.value or None  # 0: on the point estimates
        self.solution.value = searching_html(confidence)
        try:
            solution = drmath.solve(self.scenario, confidence=confidence)
        except (ValueError, TypeError) as exc:
            self.solution.value = ""
            self._show_error(exc)
            return None
        finally:
            self.solve_button.disabled, self.solve_button.description = False, self._SOLVE
        if solution.feasible:
            self.apply(solution.changes)
        self.solution_view = (solution, self.scenario)
        self._pareto_spec = viz.pareto_spec(solution)
        self.pareto.layout.display = "block"
        self._render_solution()
        return solution

    def _render_solution(self):
        if self.solution_view is None:
            return
        solution, applied = self.solution_view
        stale = ("" if self.scenario == applied else
                 '<div class="drmath-solution-stale">The inputs changed since this search: press again.</div>')
        self._draw_pareto(self.scenario != applied)
        verdict = "applied" if solution.feasible else "nothing applied"
        self.solution.value = (f'<div class="drmath-solution-message drmath-solution-'
                               f'{"found" if solution.feasible else "none"}">'
                               f"<b>{verdict}:</b> {markdown_html(solution.message)}</div>{stale}")

    def _draw_pareto(self, stale):
        """The last search's front, greyed and marked stale when the inputs moved since (say what to press)."""
        spec = self._pareto_spec
        if stale:
            spec = viz.stale_pareto_spec(spec, self._SOLVE)
        if self.pareto.figure != spec:
            with self.pareto.hold_sync():
                self.pareto.revision += 1
                self.pareto.figure = spec

    def _show_error(self, exc):
        self.error.value = f'<div class="drmath-error-message">{html.escape(str(exc))}</div>'

    def _on_control(self, path, change):
        if self._syncing:
            return
        self.apply(self._controls[path].changes(change["new"]))

    def _sync_controls(self):
        """Set every control to the current scenario (after a change, a load or a rejection).

        A value off a slider's grid is added to its options; a value no control can show is an error
        (in :attr:`error`), never silently dropped.
        """
        self._syncing = True
        try:
            for path, control in self._controls.items():
                try:
                    control.show(control.current(self.scenario))
                except traitlets.TraitError as exc:
                    self._show_error(ValueError(f"{path}: the control cannot show {self.scenario.get(path)!r} "
                                                f"({exc})"))
        finally:
            self._syncing = False

    # ---- views: numbers from plan() and sweep() only

    def _specs(self, p, bands=None):
        """Every figure of the plan, through the one registry (:func:`drmath.viz.figure_specs`), the ``bands`` handed
        in shaded (none: nothing shaded)."""
        return shade_all(viz.figure_specs(p, FIGURES), bands, p)  # no uncertainty: no cost

    def _render_cards(self, p):
        for name in CARDS:
            self.cards[name].value = _card_html(p, name, self.baseline, self.bands)
        self.compare_view.update(self.baseline, p)

    def _render(self, p, specs):
        self.error.value = ""
        self._render_cards(p)
        for name in CARDS:
            if self.math_toggles[name].value:
                self._show_math(name)
        for name, spec in specs.items():
            view = self.figures[name]
            if view.figure != spec:
                with view.hold_sync():
                    view.revision += 1
                    view.figure = spec
        here = f'the button "{self._SOLVE}", under the controls, finds the cheapest design that meets every target.'
        self.warnings.value = "".join(f'<div class="drmath-warning drmath-warning-{name}">'
                                      f'{markdown_html(text.replace(SOLVE_HINT, here))}</div>'
                                      for name, text in p.warnings().items())
        judged = (p.scenario.failover.tier, p.run_driver)  # what the probe's answer depends on
        if judged != self._mfu_judged:
            self._mfu_judged = judged
            mfu = self._controls["training.mfu"]
            self.mfu_note.value = compute_note(p, (mfu.to_si(mfu.widget.options[0][1]),
                                                   mfu.to_si(mfu.widget.options[-1][1])))
        self.replication_note.value = (
            f"→ {every(p.replication_every)}: an off-site copy every {p.format('replication_interval')}, "
            f"taking {p.format('replication_time')}")
        flat = {k: (None if isinstance(v, float) and not math.isfinite(v) else v)
                for k, v in p.scenario.flat().items()}
        self.scenario_view.value = (f'<div class="drmath-scenario" data-scenario="'
                                    f'{html.escape(json.dumps(flat))}"></div>')
        self.share.query = links.to_query(p.scenario)
        self.tiers.value = tier_table_html(p)
        self._inert_tier = mark_inert(p, self._controls, self.inert_note, self._inert_tier)
        self._render_solution()
        self._render_file()

    def _render_file(self):
        """The save link (the TOML keeps the opened file's name and sources) and what is open."""
        opened, meta = self._opened
        edited = self.scenario != opened
        name = meta.get("name") or "drmath scenario"
        saved = dict(meta, name=f"{name} (edited)" if edited else name)
        if edited:
            saved["description"] = (f"Saved from the drmath dashboard: {name!r} with changes. "
                                    + str(meta.get("description") or "")).strip()
        toml = base64.b64encode(scenarios.dumps(self.scenario, saved).encode()).decode()
        self.save_link.value = (f'<a class="drmath-save-link" download="drmath-scenario.toml" '
                                f'href="data:application/toml;base64,{toml}">save scenario (TOML)</a>')
        # " · edited" keeps its room while hidden, so the first edit moves nothing (it wrapped the toolbar, ~41 px)
        hidden = "" if edited else ' style="visibility: hidden"'
        self.opened.value = (f'<span class="drmath-opened" title="{html.escape(str(meta.get("description", "")))}">'
                             f'showing: {html.escape(name)}<span class="drmath-edited"{hidden}> · edited</span></span>')

    def _toggle_math(self, name, on):
        if name not in self.math_views:
            view = W.Output(layout=W.Layout(display="none", width="100%"))
            view.add_class(f"drmath-math-{name}").add_class("drmath-math")
            self.math_views[name] = view
            self._maths.children = tuple(self.math_views[n] for n in CARDS if n in self.math_views)
        view = self.math_views[name]
        view.layout.display = "block" if on else "none"
        self.math_toggles[name].description = "hide the math" if on else "show the math"
        if on:
            self._show_math(name)

    def _show_math(self, name):
        try:
            text = self.plan.explain(name)
        except Exception as exc:  # noqa: BLE001 - the explainer is optional to the view
            text = f"*The derivation of `{name}` is not available: {exc}*"
        self.math_views[name].outputs = ({"output_type": "display_data",
                                          "data": {"text/markdown": text, "text/plain": text},
                                          "metadata": {}},)


def build_app(scenario=None):
    """Build the dashboard for a scenario.

    Parameters
    ----------
    scenario : Scenario or mapping, optional
        The inputs it opens with: a Scenario, or changes to the seed
        (``{"training.gpus": 4096}``). When omitted, the worked answer's design (:func:`drmath.io.scenarios.answer`,
        the seed solved), with the seed's own design (:func:`drmath.io.scenarios.seed`) pinned as the baseline it
        improves on: "compare with baseline" shows the two side by side.

    Returns
    -------
    app : Dashboard
        Display it; ``app.root`` is the widget tree.

    Examples
    --------
    >>> app = build_app({"training.gpus": 4096})
    >>> app.controls["training.gpus"].value
    4096
    >>> app = build_app()
    >>> app.scenario == scenarios.answer(), app.baseline.scenario == scenarios.seed()
    (True, True)
    """
    if scenario is not None and not isinstance(scenario, Scenario):
        scenario = scenarios.seed().with_changes(scenario)
    return Dashboard(scenario)
