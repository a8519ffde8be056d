"""The README's worked numbers are plan()'s, not typed-in copies that drift."""

import re
from pathlib import Path

from drmath import plan

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_starts_with_the_two_commands():
    text = README.read_text()
    first_block = re.search(r"```bash\n(.*?)```", text, re.S).group(1)
    commands = [line.split()[0:2] for line in first_block.strip().splitlines()]
    assert commands == [["./tasks", "serve"], ["./tasks", "test"]]
    assert (README.parent / ".ci" / "run").read_text().strip().endswith("./tasks test")


def test_readme_numbers_match_the_plan():
    p = plan()
    section = README.read_text().split("<!-- readme-numbers")[1].split("Ask for any other")[0]
    quoted = re.findall(r"\*\*([^*]+)\*\*", section)
    expected = [p.format("mtbf"), f"{p.expected_interruptions:.0f}", p.format("checkpoint_size"),
                p.format("checkpoint_interval"), p.format("ettr"), f"{p.replication_every:.0f}",
                p.format("replication_time"), p.format("rpo_site"), p.format("rpo_site_expected"),
                p.format("rto_site")]
    assert quoted == expected
