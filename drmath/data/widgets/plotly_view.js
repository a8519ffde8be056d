// PlotlyView (drmath.dashboard): draws a plain {data, layout} figure with Plotly.react.
// plotly.js is loaded once per page by the drlab Voilà template, from a cacheable static file.
async function loadPlotly() {
  if (window.Plotly) return window.Plotly;
  // the drlab Voilà template defines the loader (plotly.js is one of its static files)
  if (window.__drmathLoadPlotly) return window.__drmathLoadPlotly();
  throw new Error('plotly.js comes with the drlab Voilà template: serve with python -m drmath.serve');
}

export default {
  async render({ model, el }) {
    const div = document.createElement('div');
    div.className = 'drmath-plot';
    el.appendChild(div);
    let Plotly;
    try { Plotly = await loadPlotly(); }
    catch (e) { div.className = 'drmath-figure-error'; div.textContent = String(e.message || e); return; }
    // drmath.viz.PLOTLY_CONFIG's settings: no "Share chart…" (it uploads the chart to an outside service)
    const config = { displaylogo: false, responsive: true, showSendToCloud: false,
                     modeBarButtonsToRemove: ['lasso2d', 'select2d', 'autoScale2d', 'sendChartToCloud'] };
    let configured = false;
    const draw = () => {
      const f = model.get('figure') || {};
      const revision = String(model.get('revision'));
      // the config goes in once: given again, plotly deep-copies its defaults on every redraw
      const drawn = configured ? Plotly.react(div, f.data || [], f.layout || {})
                               : Plotly.react(div, f.data || [], f.layout || {}, config);
      configured = true;
      drawn.then(() => { el.dataset.revision = revision; });
    };
    draw();
    model.on('change:figure', draw);
    // the widget may be laid out after the first draw (or re-laid out): fit the plot to its box
    let width = 0;
    const resized = new ResizeObserver(() => {
      const w = el.clientWidth;
      if (w > 0 && Math.abs(w - width) > 2) { width = w; Plotly.Plots.resize(div); }
    });
    resized.observe(el);
    return () => { resized.disconnect(); model.off('change:figure', draw); Plotly.purge(div); };
  }
};
