"""`--statistics`: how many findings each rule produced."""

from __future__ import annotations

from collections import Counter

from gradlint.diagnostic import Diagnostic


def render_statistics(diagnostics: list[Diagnostic]) -> str:
    """One line per code, most frequent first: `count  CODE  name`."""
    counts = Counter(d.code for d in diagnostics)
    names = {d.code: d.name for d in diagnostics}
    width = len(str(max(counts.values(), default=0)))
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return "".join(f"{n:>{width}}  {code}  {names[code]}\n" for code, n in ordered)
