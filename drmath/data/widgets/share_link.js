// ShareLink (drmath.dashboard): keeps the page URL's query equal to the scenario; a button copies it.
export default {
  render({ model, el }) {
    el.classList.add('drmath-share');
    const input = document.createElement('input');
    input.readOnly = true;
    input.className = 'drmath-share-link';
    const button = document.createElement('button');
    button.className = 'drmath-copy-link jupyter-button';
    button.textContent = 'copy link';
    const status = document.createElement('span');
    status.className = 'drmath-share-status';
    el.append(button, input, status);
    const link = () => {
      const url = new URL(window.location.href);
      url.search = model.get('query');
      return url.toString();
    };
    const update = () => {
      const href = link();
      // the page's own URL carries the state, so reloading or bookmarking keeps it
      if (href !== window.location.href) window.history.replaceState(window.history.state, '', href);
      input.value = href;
      el.dataset.link = href;
    };
    button.addEventListener('click', async () => {
      const href = link();
      try { await navigator.clipboard.writeText(href); status.textContent = 'copied'; }
      catch (e) { input.select(); status.textContent = 'select and copy the link'; }
      el.dataset.copied = href;
      setTimeout(() => { status.textContent = ''; }, 2000);
    });
    update();
    model.on('change:query', update);
    return () => model.off('change:query', update);
  }
};
