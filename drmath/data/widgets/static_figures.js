// drmath's static figures (issue 24): the page sent static first draws its figures with plotly.js, the ones on
// screen first. Each figure's plotly spec is added with drmathStaticFigures.add(element, figure, config) as the
// page is read: a figure on screen, or within a quarter of a screen of it, is drawn there and then; the others are
// drawn together once the page has painted its first screen (each at once if the reader scrolls near it before),
// and none once the live page has taken over. Drawn as they came, the twelve figures held up a phone's first
// paint (its first screen holds the headline cards, no figure) by about 0.4 s. Drawn one at a time, each would
// cost a layout and paint of the whole page; requestIdleCallback ran only at its timeout while the page, still
// loading as it waits for its kernel, was static.
window.drmathStaticFigures = window.drmathStaticFigures || (function () {
  var MARGIN = 0.25;  // of the box's height, above and below it: "near the screen"
  var waiting = new Map();  // element -> [figure, config], not drawn yet
  var seen = null, painted = false;

  function box() { return document.getElementById('drmath-preview'); }  // the static page's scrolling box
  function draw(element) {
    var job = waiting.get(element);
    if (!job) return;
    waiting.delete(element);
    seen.unobserve(element);
    if (element.isConnected) window.Plotly.newPlot(element, job[0].data || [], job[0].layout || {}, job[1]);
  }
  function onScreen(element) {  // the box is there while the page is static, the only time figures are added
    var view = box().getBoundingClientRect(), r = element.getBoundingClientRect(), margin = MARGIN * view.height;
    return r.bottom >= view.top - margin && r.top <= view.bottom + margin;
  }
  function drawRest() {  // every figure not drawn yet, in the page's order, once the first screen is painted
    if (!painted) return;
    if (!box()) waiting.clear();  // the live page has taken over: its own figures are drawn
    Array.from(waiting.keys()).forEach(draw);
  }
  return {
    add: function (element, figure, config) {
      if (!element || !window.Plotly) return;
      if (!seen) {
        requestAnimationFrame(function () { setTimeout(function () { painted = true; drawRest(); }, 0); });
        seen = new IntersectionObserver(function (entries) {
          entries.forEach(function (e) {
            if (e.isIntersecting && waiting.has(e.target)) setTimeout(function () { draw(e.target); }, 0);
          });
        }, {root: box(), rootMargin: (MARGIN * 100) + '% 0px'});
      }
      waiting.set(element, [figure || {}, config]);
      seen.observe(element);
      if (onScreen(element)) draw(element);
      else drawRest();
    }
  };
})();
