"""Write ``scenarios/answer.toml``: the worked answer's design, the seed scenario solved.

Not data from a source: the design :func:`drmath.solve` finds for ``scenarios/seed.toml`` (whose requirements are
the worked answer's), written so the dashboard and the served page open on it without a second of search at page
start. Run it again whenever the model or the seed changes what ``solve()`` finds::

    .venv/bin/python data/make_answer.py      # writes data/scenarios/answer.toml

``tests/test_one_answer.py`` fails, naming this script, when the shipped file is not what it writes today.
"""

from pathlib import Path

from drmath import answer

if __name__ == "__main__":
    out = Path(__file__).resolve().parent / "scenarios" / "answer.toml"
    out.write_text(answer.design_toml(), encoding="utf-8")
    print(out)
