// drmath's static figures (issue 24): the page sent static first shows its figures before any kernel.
//
// The dashboard's figures come as SVG drawn by the server (drmath/serve/figure_svg.py): dashboard() measures each
// figure's box, asks for the SVGs at the rungs of the server's ladder nearest those widths, and stretches each to
// its box (at most 1 %). Parsing plotly.js and drawing the figures with it held a 1400 px page's first paint to
// 0.74 s (0.25 s with SVGs). A figure the server has no SVG of yet (another width, a new scenario, no renderer
// there), or whose SVGs have not come within the ladder's wait, is drawn with plotly.js instead.
//
// plotly.js draws the rest (the explainer's, below the dashboard) and is loaded only for them, without holding up the
// page (loadPlotly): each figure is added with add(element, figure, config) as the page is read; one on screen, or
// within a quarter of a screen of it, is drawn as soon as plotly.js is there; the others together once the page
// has painted its first screen and the dashboard's figures are in (each at once if the reader scrolls near it
// before), and none once the live page has taken over.
window.drmathStaticFigures = window.drmathStaticFigures || (function () {
  var MARGIN = 0.25;  // of the box's height, above and below it: "near the screen"
  var waiting = new Map();  // element -> [figure, config], not drawn yet
  var seen = null, painted = false, plotly = null;
  var settling = 0;  // dashboards whose SVGs are asked for: the figures below wait for them (the first screen's)

  function box() { return document.getElementById('drmath-preview'); }  // the static page's scrolling box
  function loadPlotly() {  // once, without blocking the page; the live page's loader finds window.Plotly set
    var link = document.querySelector('link[data-drmath-static-plotly]');
    if (window.Plotly || plotly || !link) return;
    plotly = document.createElement('script');
    var amd = window.define;  // plotly.js is UMD: hide an AMD loader so that it sets window.Plotly (as the template)
    if (amd && amd.amd) window.define = undefined;
    plotly.src = link.href;
    plotly.onload = function () {
      if (amd && amd.amd) window.define = amd;
      if (!box()) return waiting.clear();  // the live page has taken over meanwhile: its own figures are drawn
      waiting.forEach(function (job, element) { if (onScreen(element)) draw(element); });
      drawRest();
    };
    document.head.appendChild(plotly);
  }
  function draw(element) {
    var job = waiting.get(element);
    if (!job || !window.Plotly) return;
    waiting.delete(element);
    seen.unobserve(element);
    if (element.isConnected) window.Plotly.newPlot(element, job[0].data || [], job[0].layout || {}, job[1]);
  }
  function onScreen(element) {  // the box is there while the page is static, the only time figures are added
    var view = box().getBoundingClientRect(), r = element.getBoundingClientRect(), margin = MARGIN * view.height;
    return r.bottom >= view.top - margin && r.top <= view.bottom + margin;
  }
  function drawRest() {  // every figure not drawn yet, in the page's order, once the first screen is painted
    if (!painted || settling || !window.Plotly) return;
    if (!box()) waiting.clear();  // the live page has taken over: its own figures are drawn
    Array.from(waiting.keys()).forEach(draw);
  }
  function rest() {  // plotly.js for the figures below, once the first screen is painted and its figures are in
    if (!painted || settling) return;
    if (waiting.size) loadPlotly();
    drawRest();
  }
  function add(element, figure, config) {
    if (!element) return;
    if (!seen) {
      requestAnimationFrame(function () { setTimeout(function () { painted = true; rest(); }, 0); });
      seen = new IntersectionObserver(function (entries) {
        entries.forEach(function (e) {
          if (e.isIntersecting && waiting.has(e.target)) setTimeout(function () { loadPlotly(); draw(e.target); }, 0);
        });
      }, {root: box(), rootMargin: (MARGIN * 100) + '% 0px'});
    }
    waiting.set(element, [figure || {}, config]);
    seen.observe(element);
    if (onScreen(element)) {  // wanted now: plotly.js is loaded now (the others wait for the first paint)
      loadPlotly();
      draw(element);
    } else drawRest();
  }
  function rung(width, ladder) {  // drmath.serve.figure_svg.rung
    if (!(width > 0)) return null;
    var k = Math.round(Math.log(width / ladder.min) / Math.log(ladder.step));
    return k >= 0 && k < ladder.rungs ? k : null;
  }
  function showSvg(element, svg, height) {  // the server's SVG, stretched to the box's width, the figure's height
    element.innerHTML = svg;
    var image = element.querySelector('svg');
    if (!image) return false;
    image.setAttribute('width', '100%');
    image.setAttribute('height', String(height));
    image.setAttribute('preserveAspectRatio', 'none');
    image.style.display = 'block';
    element.classList.add('drmath-s-svg');
    return true;
  }
  function dashboard(boxes, figures, config, ladder) {  // the static dashboard's figures: SVG, else plotly.js
    var plots = [], names = [], rungs = [];
    Array.prototype.forEach.call(boxes, function (b) {
      var plot = b.querySelector('.drmath-s-plot');
      if (!plot) return;
      plots.push(plot);
      names.push(b.getAttribute('data-figure'));
      rungs.push(rung(plot.clientWidth, ladder));  // the boxes are laid out: this script follows them
    });
    var done = false;
    function finish(svgs) {
      if (done) return;
      done = true;
      settling -= 1;
      plots.forEach(function (plot, i) {
        var figure = figures[names[i]] || {}, height = (figure.layout || {}).height || 400;
        if (!(svgs && typeof svgs[names[i]] === 'string' && showSvg(plot, svgs[names[i]], height)))
          add(plot, figure, config);
      });
      rest();
    }
    settling += 1;
    if (!window.fetch || rungs.some(function (k) { return k === null; })) return finish(null);
    setTimeout(function () { finish(null); }, ladder.wait);
    fetch((box().getAttribute('data-base') || '/') + ladder.url + rungs.join(','), {credentials: 'omit'})
      .then(function (r) { return r.ok ? r.json() : null; })
      .catch(function () { return null; })
      .then(finish);
  }
  return {add: add, dashboard: dashboard};
})();
