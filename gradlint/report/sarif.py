"""`sarif`: a SARIF 2.1.0 log with one run, for code-scanning dashboards."""

from __future__ import annotations

import json
import os
from pathlib import Path, PurePath
from urllib.parse import quote

from gradlint import __version__
from gradlint.catalogue import RuleDoc, load_catalogue
from gradlint.diagnostic import Diagnostic, Fix
from gradlint.notebook import file_lines, file_span

SCHEMA = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
SRCROOT = "%SRCROOT%"


def plain(text: str) -> str:
    """A Markdown paragraph as one line of text."""
    return " ".join(text.split())


def rule_descriptor(doc: RuleDoc) -> dict:
    help_text = plain(doc.sections.get("What it does", doc.summary))
    if doc.fix_hint:
        help_text += f"\n\nUse instead: {plain(doc.fix_hint)}"
    return {
        "id": doc.code,
        "name": doc.name,
        "shortDescription": {"text": doc.summary},
        "fullDescription": {"text": plain(doc.sections.get("Why is this bad", doc.summary))},
        "help": {"text": help_text, "markdown": doc.text},
        "defaultConfiguration": {"level": doc.severity.value},
    }


def artifact_location(path: str) -> dict:
    """Absolute paths as file: URIs; relative ones against %SRCROOT% (the run's directory)."""
    if PurePath(path).is_absolute():
        return {"uri": Path(path).as_uri()}
    # os.fsencode: a file name that is not valid UTF-8 is percent-encoded as its bytes
    return {"uri": quote(os.fsencode(PurePath(path).as_posix())), "uriBaseId": SRCROOT}


def region(line: int, column: int, end_line: int, end_column: int) -> dict:
    return {"startLine": line, "startColumn": column, "endLine": end_line, "endColumn": end_column}


def sarif_fix(path: str, fix: Fix) -> dict:
    replacements = [
        {
            "deletedRegion": region(edit.line, edit.column, edit.end_line, edit.end_column),
            "insertedContent": {"text": edit.content},
        }
        for edit in fix.edits
    ]
    return {
        "description": {"text": fix.description or "Apply the suggested replacement"},
        "artifactChanges": [
            {"artifactLocation": artifact_location(path), "replacements": replacements}
        ],
        "properties": {"applicability": fix.applicability.value},
    }


def notebook_region(diagnostic: Diagnostic, cells: dict[int, list[int]]) -> dict:
    """The lines of the .ipynb file that hold the finding's cell lines (as code scanning
    shows the file), without columns: they count within the JSON string."""
    d = diagnostic
    span = file_span(cells, d.cell or 0, d.line, d.end_line)
    if span is None:
        return {"startLine": 1}
    return {"startLine": span[0], "endLine": span[1]}


def sarif_result(
    diagnostic: Diagnostic, rule_index: dict[str, int], cells: dict[int, list[int]] | None = None
) -> dict:
    """One result; in a notebook (`cells`: its `file_lines`) the region stands on the
    .ipynb file's own lines and the properties keep the cell, line and column."""
    d = diagnostic
    if d.cell is None:
        where = region(d.line, d.column, d.end_line, d.end_column)
    else:
        where = notebook_region(d, cells or {})
    result = {
        "ruleId": d.code,
        "level": d.severity.value,
        "message": {"text": d.message},
        "locations": [
            {"physicalLocation": {"artifactLocation": artifact_location(d.path), "region": where}}
        ],
    }
    if d.code in rule_index:
        result["ruleIndex"] = rule_index[d.code]
    if d.fix is not None and d.cell is None:  # a fix's edits count within the script
        result["fixes"] = [sarif_fix(d.path, d.fix)]
    properties = {"detail": d.detail} if d.detail else {}
    if d.cell is not None:
        properties |= {"cell": d.cell, "cellLine": d.line, "cellColumn": d.column}
    if d.probe is not None:
        properties["probe"] = d.probe
    if properties:
        result["properties"] = properties
    return result


def sarif_log(diagnostics: list[Diagnostic], sources: dict[str, str] | None = None) -> dict:
    notebooks = {
        path: file_lines((sources or {}).get(path, ""))
        for path in {d.path for d in diagnostics if d.cell is not None}
    }
    docs = list(load_catalogue().values())
    rule_index = {doc.code: i for i, doc in enumerate(docs)}
    driver = {
        "name": "gradlint",
        "version": __version__,
        "semanticVersion": __version__,
        "rules": [rule_descriptor(doc) for doc in docs],
    }
    run = {
        "tool": {"driver": driver},
        "originalUriBaseIds": {SRCROOT: {"uri": Path.cwd().as_uri() + "/"}},
        "columnKind": "unicodeCodePoints",
        "results": [sarif_result(d, rule_index, notebooks.get(d.path)) for d in diagnostics],
    }
    return {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}


def render(diagnostics: list[Diagnostic], sources: dict[str, str]) -> str:
    return json.dumps(sarif_log(diagnostics, sources), indent=2, default=str) + "\n"
