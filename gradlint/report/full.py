"""`full`: each finding with its source line, the span underlined, and the rule's fix hint."""

from __future__ import annotations

import re
import textwrap

from gradlint.catalogue import load_catalogue
from gradlint.diagnostic import Diagnostic
from gradlint.report.flake8 import format_line, probe_verdict

# The line breaks Python's tokenizer knows (str.splitlines also splits on \f, \x1c, ...).
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_WIDTH = 100


def source_line(lines: list[str], number: int) -> str | None:
    return lines[number - 1] if 1 <= number <= len(lines) else None


def underline(line: str, diagnostic: Diagnostic) -> str:
    """`^~~~` under the span on the finding's first line (to its end for a multi-line span).

    Tabs before the span are kept so the marker lines up however the terminal expands them.
    """
    start = min(diagnostic.column - 1, len(line))
    if diagnostic.end_line == diagnostic.line:
        end = min(diagnostic.end_column - 1, len(line))
    else:
        end = len(line.rstrip())
    indent = "".join(c if c == "\t" else " " for c in line[:start])
    return indent + "^" + "~" * max(end - start - 1, 0)


def note(label: str, text: str) -> list[str]:
    """`   = label: text`, wrapped, continuation lines aligned under the text."""
    head = f"   = {label}: "
    return textwrap.wrap(
        " ".join(text.split()), _WIDTH, initial_indent=head, subsequent_indent=" " * len(head)
    )


def format_finding(
    diagnostic: Diagnostic, lines: list[str] | None, unsafe_fixes: bool = False
) -> str:
    d = diagnostic
    out = [format_line(d)]
    if d.fix is not None and (unsafe_fixes or d.fix.is_safe):
        out[0] = out[0].replace(f" {d.code} ", f" {d.code} [*] ", 1)
    line = source_line(lines, d.line) if lines is not None else None
    if line is not None:
        gutter = " " * len(str(d.line))
        out += [
            f"{gutter} |",
            f"{d.line} | {line}",
            f"{gutter} | {underline(line, d)}",
        ]
    if d.detail:
        out += note("detail", d.detail)
    doc = load_catalogue().get(d.code)
    if doc is not None and doc.fix_hint:
        out += note("help", doc.fix_hint)
    if d.fix is not None and d.fix.description:
        safety = "" if d.fix.is_safe else " (unsafe)"
        out += note(f"fix{safety}", d.fix.description)
    if verdict := probe_verdict(d):
        out += note("probe", verdict)
    return "\n".join(out) + "\n"


def render(
    diagnostics: list[Diagnostic], sources: dict[str, str], unsafe_fixes: bool = False
) -> str:
    split: dict[tuple[str, int | None], list[str] | None] = {}
    blocks = []
    for d in diagnostics:
        key = (d.path, d.cell)
        if key not in split and d.path in sources:
            split[key] = _lines(sources[d.path], d.cell)
        blocks.append(format_finding(d, split.get(key), unsafe_fixes))
    fixable = sum(d.fix is not None and (unsafe_fixes or d.fix.is_safe) for d in diagnostics)
    hidden = sum(d.fix is not None for d in diagnostics) - fixable
    if fixable or hidden:
        tally = f"[*] {fixable} fixable with `--fix`"
        if unsafe_fixes and fixable:
            tally = f"[*] {fixable} fixable with `--fix --unsafe-fixes`"
        if hidden:
            tally += f" ({hidden} more with `--unsafe-fixes`)"
        blocks.append(tally + "\n")
    return "\n".join(blocks)


def _lines(text: str, cell: int | None) -> list[str] | None:
    """The lines of a file, or of one code cell of a notebook (`text` is its JSON)."""
    if cell is None:
        return _LINE_BREAK.split(text)
    from gradlint.notebook import NotebookError, read_notebook

    try:
        return _LINE_BREAK.split(read_notebook(text).cells.get(cell, ""))
    except NotebookError:
        return None
