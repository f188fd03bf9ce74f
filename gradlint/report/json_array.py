"""`json`: one array, one object per finding; `cell`, `fix` and `probe` only where present."""

from __future__ import annotations

import dataclasses
import json

from gradlint.catalogue import load_catalogue
from gradlint.diagnostic import Diagnostic


def help_text(code: str) -> str:
    """The rule's fix hint (first paragraph of its *Use instead*), one line."""
    doc = load_catalogue().get(code)
    return " ".join(doc.fix_hint.split()) if doc is not None else ""


def as_dict(diagnostic: Diagnostic) -> dict:
    d = diagnostic
    finding = {
        "path": d.path,
        "line": d.line,
        "column": d.column,
        "end_line": d.end_line,
        "end_column": d.end_column,
        "code": d.code,
        "name": d.name,
        "severity": d.severity.value,
        "message": d.message,
        "detail": d.detail,
        "help": help_text(d.code),
    }
    if d.cell is not None:
        finding["cell"] = d.cell
    if d.fix is not None:
        finding["fix"] = {
            "applicability": d.fix.applicability.value,
            "description": d.fix.description,
            "edits": [dataclasses.asdict(edit) for edit in d.fix.edits],
        }
    if d.probe is not None:
        finding["probe"] = d.probe
    return finding


def render(diagnostics: list[Diagnostic], sources: dict[str, str]) -> str:
    return json.dumps([as_dict(d) for d in diagnostics], indent=2, default=str) + "\n"
