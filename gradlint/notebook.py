"""Jupyter notebooks: the code cells as one Python script, and findings mapped back.

The code cells of a Python notebook are joined in order, so names and facts flow from
one cell to the next as they do in the kernel. IPython syntax is not Python, so it is
neutralised line by line, keeping every line number: a line magic (`%time f()`), a
shell escape (`!pip install x`), a help query (`obj?`, `?obj`) and their backslash
continuations become `pass` at the same indentation (`x = !ls` becomes `x = ...`).
A cell magic runs Python only for `%%time`, `%%timeit`, `%%capture` and `%%prun`
(its first line is dropped); a cell under any other (`%%bash`, `%%writefile`, ...) is
skipped. A `from __future__ import` line becomes `pass` too: the kernel compiles each
cell on its own, so it may stand atop any cell, where the joined script could not have
it. A cell that does not compile on its own (pasted log text, a half-typed line) fails
alone in the kernel: it is left out of the script and reported as a GL001 of that cell,
and the other cells are linted. Cells are numbered from 1 counting every cell, Markdown
included, as they appear in the notebook; a finding's line then counts within its cell.
"""

from __future__ import annotations

import bisect
import json
import re
import warnings
from dataclasses import dataclass, field, replace

from gradlint.depth import NOTEBOOK_FLAGS
from gradlint.diagnostic import Diagnostic

SUFFIX = ".ipynb"
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun"})
_MAGIC = re.compile(r"^(?P<indent>\s*)(?:(?P<target>[\w.,\s\[\]]+?)\s*=\s*)?(?:[%!]|\?)")
_HELP = re.compile(r"^\s*[\w.]+(?:\(\))?\?{1,2}\s*$")
# a line a message names ("on line 31"); one already named in its cell ("cell 3 line 12",
# the probe's) is left as it is
_NAMED_LINE = re.compile(r"(cell \d+ )?\bline (\d+)\b")
_FUTURE = re.compile(r"^from\s+__future__\s+import\s+[\w\s,]+(?:#.*)?$")


class NotebookError(ValueError):
    """Not a notebook gradlint can read (bad JSON, no cell list, a cell without source)."""


@dataclass
class Notebook:
    """A notebook's code cells joined into one script, and where each line came from."""

    script: str = ""
    # script line (1-based) -> (cell number, line within the cell), index = line - 1
    lines: list[tuple[int, int]] = field(default_factory=list)
    cells: dict[int, str] = field(default_factory=dict)  # cell number -> its source
    # cell number -> (line, column, CPython's message) of a cell that does not compile
    broken: dict[int, tuple[int, int, str]] = field(default_factory=dict)

    def to_cells(self, diagnostics: list[Diagnostic]) -> list[Diagnostic]:
        """Findings on script lines -> findings on cell lines (`cell` set, no fix: a fix's
        edits address the script, not the notebook file)."""
        out = []
        for d in diagnostics:
            cell, line = self._where(d.line)
            end_cell, end_line = self._where(d.end_line)
            end_column = d.end_column
            if end_cell != cell:  # a span cannot leave its cell: end it on its first line
                end_line, end_column = line, len(self._line(cell, line)) + 1
            message, detail = self._named_lines(d.message, cell), self._named_lines(d.detail, cell)
            out.append(
                replace(
                    d,
                    cell=cell,
                    line=line,
                    end_line=end_line,
                    end_column=end_column,
                    fix=None,
                    message=message,
                    detail=detail,
                )
            )
        return out

    def _named_lines(self, text: str, cell: int) -> str:
        """`text` with each script line it names (`the backward on line 31`) named in
        its cell: `line 15`, or `line 15 of cell 2` when another cell holds it."""

        def in_cell(match: re.Match) -> str:
            if match.group(1):
                return match.group(0)
            where, line = self._where(int(match.group(2)))
            return f"line {line}" if where == cell else f"line {line} of cell {where}"

        return _NAMED_LINE.sub(in_cell, text) if text else text

    def _where(self, script_line: int) -> tuple[int, int]:
        if not self.lines:
            return 1, 1
        return self.lines[min(max(script_line, 1), len(self.lines)) - 1]

    def _line(self, cell: int, line: int) -> str:
        lines = self.cells.get(cell, "").splitlines()
        return lines[line - 1] if 1 <= line <= len(lines) else ""


def read_notebook(text: str) -> Notebook:
    """The script of a notebook's code cells (NotebookError when it is not a notebook)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise NotebookError(f"not valid JSON: {error}") from error
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        raise NotebookError("no list of cells")
    notebook = Notebook()
    if not _is_python(data.get("metadata")):
        return notebook
    script: list[str] = []
    for number, cell in enumerate(data["cells"], 1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        if isinstance(source, list) and all(isinstance(s, str) for s in source):
            source = "".join(source)
        if not isinstance(source, str):
            raise NotebookError(f"cell {number} has no source text")
        notebook.cells[number] = source
        lines = _python_lines(source.splitlines())
        error = _compile_error(lines)
        if error is not None:
            notebook.broken[number] = error
            continue
        for in_cell, line in enumerate(lines, 1):
            if line is not None:
                script.append(line)
                notebook.lines.append((number, in_cell))
    notebook.script = "".join(line + "\n" for line in script)
    return notebook


def _compile_error(lines: list[str | None]) -> tuple[int, int, str] | None:
    """Where and why a cell's Python does not compile on its own, as the kernel compiles
    it (None: it compiles, or it is too deep to tell here: the engine bounds that)."""
    text = "".join((line if line is not None else "") + "\n" for line in lines)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SyntaxWarnings are not errors
            compile(text, "<cell>", "exec", NOTEBOOK_FLAGS, dont_inherit=True)
    except SyntaxError as error:
        line = error.lineno or 1
        column = (error.offset or 1) if error.lineno else 1
        return line, column, error.msg
    except (RecursionError, MemoryError, ValueError):
        return None
    return None


def file_span(
    cells: dict[int, list[int]], cell: int, line: int, end_line: int
) -> tuple[int, int] | None:
    """The first and last .ipynb file lines (`cells`: `file_lines`) holding lines
    `line`..`end_line` of code cell `cell`; None when the cell has no such line."""
    lines = cells.get(cell, [])
    if not 1 <= line <= len(lines):
        return None
    return lines[line - 1], lines[min(end_line, len(lines)) - 1]


def file_lines(text: str) -> dict[int, list[int]]:
    """Where each line of each cell's source stands in the notebook's own JSON text: cell
    number -> the 1-based line of the .ipynb file on which each of its lines starts (a
    source written as one string puts them all on one line). Empty when `text` is not a
    notebook's JSON. What an annotation on the file itself (GitHub's) must point at."""
    breaks = [match.end() for match in re.finditer("\n", text)]
    found: dict[int, list[int]] = {}
    for number, parts in source_strings(text).items():
        joined, begins = "", []  # the source, and where each part begins in it
        for _, value in parts:
            begins.append(len(joined))
            joined += value
        lines, offset = [], 0
        for line in joined.splitlines(keepends=True):
            quote = parts[bisect.bisect_right(begins, offset) - 1][0]
            lines.append(bisect.bisect_right(breaks, quote) + 1)
            offset += len(line)
        found[number] = lines
    return found


def source_strings(text: str) -> dict[int, list[tuple[int, str]]]:
    """The JSON strings that make up each cell's source in the notebook's own text: cell
    number -> (offset of the string's opening quote, its value) of each non-empty one, in
    order (joined, they are the source). Empty when `text` is not a notebook's JSON."""
    found: dict[int, list[tuple[int, str]]] = {}

    def source(number: int, start: int) -> int:
        parts: list[tuple[int, str]] = []

        def part(_: int, at: int) -> int:
            value, end = _VALUE(text, at)
            if isinstance(value, str) and value:
                parts.append((at, value))
            return end

        end = _array(text, start, part) if text[start] == "[" else part(0, start)
        found[number] = parts
        return end

    def cell(index: int, start: int) -> int:
        if text[start] != "{":
            return _VALUE(text, start)[1]
        return _object(
            text, start, lambda key, at: (source if key == "source" else _skip)(index + 1, at)
        )

    def _skip(_: int, at: int) -> int:
        return _VALUE(text, at)[1]

    try:
        _object(
            text,
            _ws(text, 0),
            lambda key, at: _array(text, at, cell) if key == "cells" else _skip(0, at),
        )
    except (IndexError, ValueError, TypeError):  # not a notebook's JSON (not reported here)
        return {}
    return found


def file_position(
    text: str, strings: dict[int, list[tuple[int, str]]], cell: int, line: int, column: int
) -> tuple[int, int] | None:
    """The 1-based line and column of the notebook's own text (`strings`: its
    `source_strings`) where column `column` of line `line` of cell `cell` stands (a column
    past the line's end: its end); None when the cell has no such line."""
    parts = strings.get(cell, [])
    lines = "".join(value for _, value in parts).splitlines(keepends=True)
    if not 1 <= line <= len(lines):
        return None
    body = lines[line - 1].splitlines()[0]
    offset = sum(map(len, lines[: line - 1])) + min(max(column, 1) - 1, len(body))
    index, within = _locate(parts, offset)
    raw = _raw_offset(text, parts[index][0], within)
    line_start = text.rfind("\n", 0, raw) + 1
    return text.count("\n", 0, line_start) + 1, raw - line_start + 1


def replace_in_sources(
    text: str, strings: dict[int, list[tuple[int, str]]], edits: list[tuple[int, int, int, str]]
) -> str:
    """The notebook's text (`strings`: its `source_strings`) with each edit (cell, start,
    end, new text; offsets within the cell's source, not overlapping) made inside the JSON
    string that holds it; the rest of the file is kept byte for byte. An edit whose span
    runs over two of the cell's strings is not made."""
    raw_edits = []
    for cell, start, end, new in edits:
        parts = strings.get(cell, [])
        if not parts:
            continue
        first = _locate(parts, start)
        last = first if end == start else _locate(parts, end, end=True)
        if first[0] != last[0]:
            continue
        quote = parts[first[0]][0]
        span = _raw_offset(text, quote, first[1]), _raw_offset(text, quote, last[1])
        raw_edits.append((*span, json.dumps(new, ensure_ascii=False)[1:-1]))
    for start, end, new in sorted(raw_edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def _locate(parts: list[tuple[int, str]], offset: int, end: bool = False) -> tuple[int, int]:
    """(index of the string, offset within it) of the source's `offset`: in the string
    holding the character at `offset`, or with `end` (a span's end) the one holding the
    character before it; past the last string, the end of the last one."""
    begin = 0
    for index, (_, value) in enumerate(parts):
        stop = begin + len(value)
        if (begin < offset <= stop) if end else (begin <= offset < stop):
            return index, offset - begin
        begin = stop
    return len(parts) - 1, len(parts[-1][1])


def _raw_offset(text: str, quote: int, within: int) -> int:
    """Where character `within` of the JSON string whose opening quote is at `quote`
    stands in the text (escapes counted as the one character they decode to)."""
    at = quote + 1
    for _ in range(within):
        if text[at] != "\\":
            at += 1
        elif text[at + 1] != "u":
            at += 2
        elif _SURROGATE_PAIR.match(text, at):  # one character of the decoded value
            at += 12
        else:
            at += 6
    return at


_SURROGATE_PAIR = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}")
_VALUE = json.JSONDecoder().scan_once  # (value, end) of the JSON value at an offset
_SPACE = re.compile(r"[ \t\n\r]*")


def _ws(text: str, at: int) -> int:
    return _SPACE.match(text, at).end()


def _object(text: str, at: int, member) -> int:
    """Walk the JSON object at `at`: `member(key, value offset)` returns the value's end;
    the object's end is returned."""
    if text[at] != "{":
        return _VALUE(text, at)[1]
    at = _ws(text, at + 1)
    if text[at] == "}":
        return at + 1
    while True:
        key, at = json.decoder.scanstring(text, at + 1)
        at = _ws(text, _ws(text, at) + 1)  # past the colon
        at = _ws(text, member(key, at))
        if text[at] == "}":
            return at + 1
        at = _ws(text, at + 1)  # past the comma


def _array(text: str, at: int, item) -> int:
    """Walk the JSON array at `at`: `item(index, value offset)` returns the value's end."""
    if text[at] != "[":
        return _VALUE(text, at)[1]
    at = _ws(text, at + 1)
    if text[at] == "]":
        return at + 1
    index = 0
    while True:
        at = _ws(text, item(index, at))
        index += 1
        if text[at] == "]":
            return at + 1
        at = _ws(text, at + 1)


def _is_python(metadata) -> bool:
    """A notebook that says nothing about its language is taken as Python."""
    if not isinstance(metadata, dict):
        return True
    for key, language in (("language_info", "name"), ("kernelspec", "language")):
        info = metadata.get(key)
        if isinstance(info, dict) and isinstance(info.get(language), str):
            return info[language].lower() == "python"
    return True


def python_lines(source: str) -> list[str | None]:
    """Each line of a code cell's source as the notebook's script has it (None: not part
    of the script), numbered as the cell's lines are."""
    return _python_lines(source.splitlines())


def _python_lines(lines: list[str]) -> list[str | None]:
    """Each line of a cell as Python (None: not part of the script)."""
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is not None and lines[first].lstrip().startswith("%%"):
        name = lines[first].lstrip()[2:].split(maxsplit=1)
        if not name or name[0] not in PYTHON_CELL_MAGICS:
            return [None] * len(lines)
        lines = [*lines[:first], "", *lines[first + 1 :]]
    out: list[str | None] = []
    continued = None  # the replacement of a magic line that ends with a backslash
    state = _Scanner()
    for line in lines:
        if continued is not None:
            out.append(continued)
            continued = continued if line.rstrip().endswith("\\") else None
            continue
        magic = _MAGIC.match(line) if state.at_statement_start else None
        if state.at_statement_start and _FUTURE.match(line):
            out.append("pass")  # compiled atop its own cell by the kernel
            continue
        if magic or (state.at_statement_start and _HELP.match(line)):
            indent = magic.group("indent") if magic else line[: len(line) - len(line.lstrip())]
            target = magic.group("target") if magic else None
            python = f"{indent}{target} = ..." if target else f"{indent}pass"
            out.append(python)
            if line.rstrip().endswith("\\"):
                continued = f"{indent}pass"
            continue
        state.feed(line)
        out.append(line)
    return out


class _Scanner:
    """Just enough of Python's tokenizer to know whether a line starts a statement (IPython
    reads magics only there): open brackets, open strings and backslash continuations."""

    def __init__(self) -> None:
        self.depth = 0
        self.quote: str | None = None  # the open string's delimiter: ', ", ''' or """
        self.backslash = False

    @property
    def at_statement_start(self) -> bool:
        return self.depth == 0 and self.quote is None and not self.backslash

    def feed(self, line: str) -> None:
        i, n = 0, len(line)
        comment = False
        while i < n:
            char = line[i]
            if self.quote is not None:
                if char == "\\":
                    i += 2
                    continue
                if line.startswith(self.quote, i):
                    i += len(self.quote)
                    self.quote = None
                    continue
            elif char == "#":
                comment = True
                break
            elif char in "\"'":
                triple = line[i : i + 3]
                self.quote = triple if triple in ('"""', "'''") else char
                i += len(self.quote)
                continue
            elif char in "([{":
                self.depth += 1
            elif char in ")]}":
                self.depth = max(self.depth - 1, 0)
            i += 1
        self.backslash = not comment and self.quote is None and line.rstrip().endswith("\\")
        if self.quote in ("'", '"'):  # a one-line string cannot go on to the next line
            self.quote = None
