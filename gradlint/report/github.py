"""`github`: GitHub Actions workflow commands, which become annotations on the diff."""

from __future__ import annotations

from gradlint.diagnostic import Diagnostic, Severity
from gradlint.notebook import file_lines, file_span
from gradlint.report.flake8 import probe_suffix


def escape_data(text: str) -> str:
    """The message part (after `::`): GitHub decodes %25, %0D and %0A."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A `key=value` property: additionally `:` and `,`, which delimit the command."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def format_command(diagnostic: Diagnostic, cells: dict[int, list[int]] | None = None) -> str:
    """The annotation of one finding; in a notebook (`cells`: its `file_lines`) it stands
    on the lines of the .ipynb file that hold the cell's code, as GitHub shows the file,
    without columns (they count within the JSON string), its title naming the cell."""
    d = diagnostic
    command = "warning" if d.severity == Severity.WARNING else "error"
    properties: dict[str, object] = {"file": d.path}
    if d.cell is None:
        properties |= {"line": d.line, "col": d.column, "endLine": d.end_line}
        properties |= {"endColumn": d.end_column, "title": d.code}
    else:
        span = file_span(cells or {}, d.cell, d.line, d.end_line)
        if span is not None:  # else an annotation on the whole file
            properties["line"], properties["endLine"] = span
        properties["title"] = f"{d.code} (cell {d.cell}:{d.line}:{d.column})"
    joined = ",".join(f"{key}={escape_property(str(value))}" for key, value in properties.items())
    text = d.message + probe_suffix(d) + (f"\n\n{d.detail}" if d.detail else "")
    return f"::{command} {joined}::{escape_data(text)}"


def render(diagnostics: list[Diagnostic], sources: dict[str, str]) -> str:
    notebooks = {
        path: file_lines(sources.get(path, ""))
        for path in {d.path for d in diagnostics if d.cell is not None}
    }
    return "".join(format_command(d, notebooks.get(d.path)) + "\n" for d in diagnostics)
