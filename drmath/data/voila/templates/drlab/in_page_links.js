/* drmath (issue 35): a link to a place on this page scrolls there, in place. JupyterLab's renderer gives every
   link of a cell's output target="_blank" (its URL is absolute, so it does not count as local), and a click on the
   worked answer's summary opened a new tab, a new kernel and the notebook run again, at the top. The click is
   caught first (capture), the element scrolled into view in whatever box scrolls it, and the hash put in the URL. */
(function () {
  if (window.__drmathInPageLinks) return;
  window.__drmathInPageLinks = true;
  document.addEventListener('click', function (event) {
    var a = event.target && event.target.closest && event.target.closest('a[href]');
    if (!a || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
    var url = new URL(a.getAttribute('href'), location.href);
    if (!url.hash || url.origin !== location.origin || url.pathname !== location.pathname
        || url.search !== location.search) return;
    var target = document.getElementById(decodeURIComponent(url.hash.slice(1)));
    if (!target) return;
    event.preventDefault();
    event.stopPropagation();
    target.scrollIntoView({block: 'start'});
    if (location.hash !== url.hash) history.pushState(null, '', url.hash);
  }, true);
})();
