"""The before/after example of README's "What gradlint catches" is what gradlint reports."""

import re
from pathlib import Path

from gradlint.engine import lint_source

README = Path(__file__).resolve().parent.parent / "README.md"


def example_section() -> str:
    text = README.read_text(encoding="utf-8")
    return text.split("## What gradlint catches", 1)[1].split("\n## ", 1)[0]


def test_before_reports_the_shown_findings_and_after_is_clean():
    section = example_section()
    before, after = re.findall(r"```python\n(.*?)```", section, re.DOTALL)
    shown = re.findall(r"^train\.py:(\d+):(\d+): (GL\d{3}) ", section, re.MULTILINE)
    found = lint_source("train.py", before).diagnostics
    assert [(str(d.line), str(d.column), d.code) for d in found] == shown
    assert len(shown) == 2
    assert lint_source("train.py", after).diagnostics == []
