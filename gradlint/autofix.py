"""Applying fixes: `--fix`, `--unsafe-fixes`, `--diff`, and the editor's "fix all".

A file is fixed in rounds: lint it (suppressed findings and `per-file-ignores` are
gone by then), apply every enabled fix whose edits do not overlap an earlier one, and
lint again, until no fix is left or `MAX_ROUNDS` is reached. A round whose result does
not parse is dropped, and a file that does not parse (GL001) is never touched.
"""

from __future__ import annotations

import difflib
import os
import stat
import tempfile
from dataclasses import dataclass, field

from gradlint.config import Config
from gradlint.diagnostic import Diagnostic, Edit, Fix
from gradlint.fixes import line_starts
from gradlint.guard import declared_encoding

MAX_ROUNDS = 10


def enabled(fix: Fix | None, unsafe: bool) -> bool:
    """Whether `--fix` (with `--unsafe-fixes` when `unsafe`) applies this fix."""
    return fix is not None and (unsafe or fix.is_safe)


def apply_fixes(
    text: str, diagnostics: list[Diagnostic], unsafe: bool = False
) -> tuple[str, list[Diagnostic]]:
    """`text` with the enabled fixes applied, and the findings whose fixes were.

    Fixes are taken in the order of their first edit; one that overlaps an edit already
    taken waits for the next round (it is recomputed on the fixed text)."""
    starts = line_starts(text)

    def offset(line: int, column: int) -> int | None:
        if not 1 <= line <= len(starts):
            return None
        end = starts[line] if line < len(starts) else len(text)
        result = starts[line - 1] + column - 1
        return result if result <= end else None

    candidates = []
    for diagnostic in diagnostics:
        if not enabled(diagnostic.fix, unsafe):
            continue
        spans = [_span(edit, offset) for edit in diagnostic.fix.edits]
        if spans and None not in spans:
            candidates.append((min(s[0] for s in spans), spans, diagnostic))
    candidates.sort(key=lambda c: (c[0], c[2].sort_key()))
    taken: list[tuple[int, int, str]] = []
    applied = []
    for _, spans, diagnostic in candidates:
        if any(_overlap(s, t) for s in spans for t in taken):
            continue
        taken.extend(spans)
        applied.append(diagnostic)
    for start, end, content in sorted(taken, key=lambda s: (s[0], s[1]), reverse=True):
        text = text[:start] + content + text[end:]
    return text, applied


def _span(edit: Edit, offset) -> tuple[int, int, str] | None:
    start, end = offset(edit.line, edit.column), offset(edit.end_line, edit.end_column)
    if start is None or end is None or end < start:
        return None
    return start, end, edit.content


def _overlap(a: tuple[int, int, str], b: tuple[int, int, str]) -> bool:
    return a[0] == b[0] or (a[0] < b[1] and b[0] < a[1])


# -- one file -----------------------------------------------------------------------


@dataclass
class FixOutcome:
    """What fixing one file gave: its new text and the findings left in it."""

    path: str
    original: str
    text: str
    fixed: list[Diagnostic] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    internal_errors: list[str] = field(default_factory=list)
    converged: bool = True

    @property
    def changed(self) -> bool:
        return self.text != self.original


def fix_source(path: str, source: bytes, config: Config, unsafe: bool = False) -> FixOutcome:
    """Fix one file's bytes (read from `path` or stdin) in rounds, see the module doc."""
    from gradlint.engine import parse
    from gradlint.runner import lint_file

    encoding = declared_encoding(source)
    result = lint_file(path, config, source)
    text = original = source.decode(encoding) if encoding else ""
    outcome = FixOutcome(path, original, original, [], result.diagnostics, result.internal_errors)
    if (
        encoding is None
        or path.endswith(".ipynb")  # lines count within cells: notebooks are not fixed yet
        or any(d.code == "GL001" or d.cell is not None for d in result.diagnostics)
        or isinstance(parse(path, source), Diagnostic)
    ):
        return outcome
    for _ in range(MAX_ROUNDS):
        if result.internal_errors:
            break
        new_text, applied = apply_fixes(text, result.diagnostics, unsafe)
        if not applied or new_text == text:
            break
        new_source = new_text.encode(encoding)
        if isinstance(parse(path, new_source), Diagnostic):
            break  # never write what does not parse
        text = new_text
        outcome.fixed.extend(applied)
        result = lint_file(path, config, new_source)
    else:
        outcome.converged = not any(enabled(d.fix, unsafe) for d in result.diagnostics)
    outcome.text = text
    outcome.diagnostics = result.diagnostics
    outcome.internal_errors = result.internal_errors
    return outcome


def encode_like(outcome: FixOutcome, source: bytes) -> bytes:
    return outcome.text.encode(declared_encoding(source) or "utf-8")


def unified_diff(outcome: FixOutcome) -> str:
    path = outcome.path
    relative = not os.path.isabs(path)
    diff = difflib.unified_diff(
        outcome.original.splitlines(keepends=True),
        outcome.text.splitlines(keepends=True),
        fromfile=f"a/{path}" if relative else path,  # `patch -p1` applies a relative one
        tofile=f"b/{path}" if relative else path,
    )
    lines = [
        line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n"
        for line in diff
    ]
    return "".join(lines)


class ChangedOnDisk(OSError):
    pass


def write_atomic(path: str, original: bytes, new: bytes) -> None:
    """Replace `path` with `new` through a temporary file and a rename, keeping its mode;
    ChangedOnDisk (and nothing written) when the file no longer holds `original`."""
    target = os.path.realpath(path)
    mode = stat.S_IMODE(os.stat(target).st_mode)
    directory = os.path.dirname(target) or "."
    fd, temporary = tempfile.mkstemp(dir=directory, prefix=".gradlint-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(new)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, mode)
        with open(target, "rb") as current:
            if current.read() != original:
                raise ChangedOnDisk(f"{path} changed on disk since it was read; not fixed")
        os.replace(temporary, target)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def add_noqa_to_notebook(source: bytes, diagnostics: list[Diagnostic]) -> tuple[bytes, int]:
    """`--add-noqa` on a notebook: a `# noqa: CODES` comment in each finding's cell, on the
    line the comment would take in a file of that cell's code (see suppression.add_noqa),
    written into the cell's source string; the rest of the file is kept byte for byte. A
    line IPython syntax changed (`files = !ls`) gets none. Returns the new bytes and how
    many lines got a comment."""
    from gradlint.notebook import python_lines, replace_in_sources, source_strings
    from gradlint.suppression import add_noqa

    try:
        text = source.decode("utf-8")
    except UnicodeDecodeError:
        return source, 0
    strings = source_strings(text)
    by_cell: dict[int, list[Diagnostic]] = {}
    for d in diagnostics:
        if d.cell is not None:
            by_cell.setdefault(d.cell, []).append(d)
    edits = []
    for cell, found in by_cell.items():
        cell_source = "".join(value for _, value in strings.get(cell, []))
        script = [line or "" for line in python_lines(cell_source)]
        with_noqa, _ = add_noqa("".join(f"{line}\n" for line in script).encode(), found)
        offset = 0
        for line, before, after in zip(
            cell_source.splitlines(keepends=True),
            script,
            with_noqa.decode().splitlines(),
            strict=True,
        ):
            body = line.splitlines()[0]
            if after != before and body == before:
                same = len(os.path.commonprefix([before, after]))
                edits.append((cell, offset + same, offset + len(before), after[same:]))
            offset += len(line)
    if not edits:
        return source, 0
    return replace_in_sources(text, strings, edits).encode("utf-8"), len(edits)
