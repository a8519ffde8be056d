"""``python -m drmath.serve``: serve the dashboard with Voilà (see :mod:`drmath.serve`)."""

from .cli import main

if __name__ == "__main__":
    main()
