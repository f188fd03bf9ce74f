"""`github`: GitHub Actions workflow commands, which become annotations on the diff."""

from __future__ import annotations

from gradlint.diagnostic import Diagnostic, Severity
from gradlint.report.flake8 import probe_suffix


def escape_data(text: str) -> str:
    """The message part (after `::`): GitHub decodes %25, %0D and %0A."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A `key=value` property: additionally `:` and `,`, which delimit the command."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def format_command(diagnostic: Diagnostic) -> str:
    d = diagnostic
    command = "warning" if d.severity == Severity.WARNING else "error"
    properties = {
        "file": d.path,
        "line": d.line,
        "col": d.column,
        "endLine": d.end_line,
        "endColumn": d.end_column,
        "title": d.code if d.cell is None else f"{d.code} (cell {d.cell})",
    }
    joined = ",".join(f"{key}={escape_property(str(value))}" for key, value in properties.items())
    text = d.message + probe_suffix(d) + (f"\n\n{d.detail}" if d.detail else "")
    return f"::{command} {joined}::{escape_data(text)}"


def render(diagnostics: list[Diagnostic], sources: dict[str, str]) -> str:
    return "".join(format_command(d) + "\n" for d in diagnostics)
