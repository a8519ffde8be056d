"""What crosses drmath's boundary: files and links in, files out.

The model core (formulas, :class:`~drmath.Scenario`, :func:`~drmath.plan` …) takes numbers and arrays and gives
results; it reads and writes nothing. What turns a file or a link into a scenario, or a scenario into a file or a
link, lives here, one module a kind:

- :mod:`drmath.io.scenarios`: scenario files (TOML) and the values in them (units, preset names);
- :mod:`drmath.io.links`: share links (a scenario as a URL query string, and back);
- :mod:`drmath.io.files`: the guards every file read and write goes through, and atomic writes.

    >>> from drmath.io import scenarios, links
    >>> links.to_query(scenarios.seed())[:39]
    'requirements.rpo_site=15min&requirement'
"""
