r"""Serve the workbook with Voilà: ``python -m drmath.serve [--port N] [--ip 127.0.0.1]``: the dashboard at ``/``,
the worked answer and every chapter at ``/notebooks/<name>`` (:mod:`~drmath.serve.site`).

The public page is hostile ground: every byte a visitor sends is checked before a library parses it,
and everything a visitor can make the server spend is bounded. One module a job:

- :mod:`~drmath.serve.settings`: every limit and default, with its unit, and the machine sizing that
  picks the preheated pool and the kernel cap (:func:`machine_defaults`);
- :mod:`~drmath.serve.cli`: ``python -m drmath.serve``'s options, the Voilà command line they
  become (:func:`voila_argv`) and its environment (:func:`voila_env`);
- :mod:`~drmath.serve.app`: the Voilà application with drmath's handlers (:func:`~drmath.serve.app.voila_main`);
- :mod:`~drmath.serve.kernels`: the seat count, the pool, culling, and the watchdog that ends a session
  over its memory or CPU budget, frees a seat whose page never connects, and stops a busy kernel whose
  page has gone;
- :mod:`~drmath.serve.sessions`: why a session ends (the code its page explains) and the seat cookie
  that binds a kernel to the page that took it;
- :mod:`~drmath.serve.frames`: every websocket frame checked before jupyter_server parses it;
- :mod:`~drmath.serve.websocket`: the kernel websocket (seat, frames, queues, no tracebacks);
- :mod:`~drmath.serve.pages`: the page (cap, seat, preview), the busy and static explainers, the 414
  page;
- :mod:`~drmath.serve.static`: static first, live later: a browser's page opens on its static explainer
  at once and waits in line for a seat (issue 24);
- :mod:`~drmath.serve.static_dashboard`: that page's first screen, the live dashboard's own boxes drawn without
  a kernel;
- :mod:`~drmath.serve.site`: the site's pages (issue 35): the notebook pages, their navigation and their static
  starts, each notebook run once by nbclient;
- :mod:`~drmath.serve.query`: each preheated kernel's own request channel;
- :mod:`~drmath.serve.handlers`: plain error pages, the kernel API behind the seat, security headers
  and bounded log lines;
- :mod:`~drmath.serve.zygote`: the server's end of the kernel zygote, the provisioner that forks page kernels.

Three modules run inside a page kernel, not in the server, and import none of the above:

- :mod:`~drmath.serve.kernel_process`: the page kernel's process, ipykernel less what a visitor's kernel never
  uses (the kernel spec's command);
- :mod:`~drmath.serve.zygote_process`: the kernel zygote's process, which imports what every kernel needs once
  and forks the kernels;
- :mod:`~drmath.serve.query_client`: the kernel's end of the request channel, which reads the visitor's
  request.

So that a kernel importing them pays for no more than they need, this package's names (from
:mod:`~drmath.serve.cli` and :mod:`~drmath.serve.settings`) load when first asked for (PEP 562).

``stack.md`` says why Voilà is set up as it is: the local ``drlab`` template (no CDN), plotly.js as a
cached static file, preheated kernels with culling, permessage-deflate, a cap on kernels, loopback
only unless ``--ip`` says otherwise. What stays as Voilà 0.5.13 ships it (``tests/test_security.py``
checks each): a visitor's websocket forwards only comm and kernel-info messages; notebook sources are
stripped; none of Jupyter's contents, sessions, terminals, lab or tree endpoints are registered; XSRF
checks stay on.

    >>> from drmath.serve import voila_argv
    >>> "--Voila.ip=127.0.0.1" in voila_argv(port=8866)
    True
"""

_FROM = {"cli": ("command", "main", "voila_argv", "voila_env"),
         "settings": ("IDLE_CONNECTED_TIMEOUT", "IOPUB_TIMEOUT", "KERNEL_MEMORY_LIMIT", "MAX_KERNELS",
                      "MAX_MESSAGE_SIZE", "MAX_URL_LENGTH", "NOTEBOOK", "RETRY_AFTER", "ROOT", "TEMPLATE_ROOT",
                      "machine_defaults", "parse_size")}
_HOME = {name: module for module, names in _FROM.items() for name in names}
"""Each name this package gives, and the submodule it comes from: loaded on first use, not on import."""

__all__ = ["ROOT", "NOTEBOOK", "TEMPLATE_ROOT", "MAX_KERNELS", "RETRY_AFTER", "IDLE_CONNECTED_TIMEOUT",
           "KERNEL_MEMORY_LIMIT", "MAX_MESSAGE_SIZE", "MAX_URL_LENGTH", "IOPUB_TIMEOUT", "parse_size",
           "machine_defaults", "voila_argv", "voila_env", "command", "main"]


def __getattr__(name):
    if name in _HOME:
        import importlib

        value = getattr(importlib.import_module(f"{__name__}.{_HOME[name]}"), name)
        globals()[name] = value  # looked up once
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_HOME))
