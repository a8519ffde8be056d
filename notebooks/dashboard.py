# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %%
# The drmath dashboard (served by `python -m drmath.serve`). The app lives in drmath.dashboard;
# every number on it comes from drmath.plan() and drmath.sweep(). The page's request reaches this
# kernel through drmath.serve.query_client, the kernel's light end of Voilà's request channel.
from IPython.display import display

from drmath.dashboard import build_app
from drmath.serve.query_client import query_string

# the worked answer's design, the seed pinned as its baseline; build_app({"training.gpus": 4096}) opens another
app = build_app()
display(app)

# %%
# A share link's settings: with preheated kernels Voilà hands over the query string only once
# the visitor's request arrives, so this cell waits for it (outside Voilà it returns at once, empty).
if query := query_string():
    app.restore(query)
