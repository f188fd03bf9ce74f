"""`# noqa` comments: which findings the author has silenced.

- `# noqa` silences every finding on its line; `# noqa: GL101,GL102` (any spacing, any
  case, commas or spaces between codes, prefixes such as `GL1` allowed) only those.
- A finding inside a statement that spans several lines is also silenced by a noqa on
  the statement's first or last line.
- `# gradlint: noqa` (optionally `: CODES`) in the first 10 lines silences the file.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Iterable
from dataclasses import dataclass

from gradlint.diagnostic import Diagnostic

_CODES = r"(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*)"
NOQA = re.compile(rf"#\s*noqa(?::\s*{_CODES})?", re.IGNORECASE)
_FILE_NOQA = re.compile(rf"#\s*gradlint:\s*noqa(?::\s*{_CODES})?", re.IGNORECASE)
FILE_NOQA_LINES = 10
ALL = None  # a blanket noqa: every code


@dataclass(frozen=True)
class _Comment:
    line: int
    text: str


def _codes(match: re.Match) -> frozenset[str] | None:
    codes = match.group("codes")
    return frozenset(re.split(r"[\s,]+", codes.upper())) if codes else ALL


def _silences(codes: frozenset[str] | None, code: str) -> bool:
    return codes is ALL or any(code.startswith(c) for c in codes)


def _scan(source: bytes) -> tuple[list[_Comment], dict[int, tuple[int, int]]]:
    """The comments of a file and, for each line, the span of the statement holding it."""
    comments: list[_Comment] = []
    statements: dict[int, tuple[int, int]] = {}
    start = None
    try:
        for token in tokenize.tokenize(io.BytesIO(source).readline):
            kind = token.type
            if kind == tokenize.COMMENT:
                comments.append(_Comment(token.start[0], token.string))
            elif kind == tokenize.NEWLINE:
                first = start if start is not None else token.start[0]
                for line in range(first, token.end[0] + 1):
                    statements[line] = (first, token.end[0])
                start = None
            elif kind not in _LAYOUT and start is None:
                start = token.start[0]
    except (tokenize.TokenError, SyntaxError, UnicodeDecodeError, LookupError):
        # Not tokenizable (a GL001 file): every `#` on a line counts as a comment.
        text = source.decode("utf-8", "replace")
        comments = [
            _Comment(number, line[line.index("#") :])
            for number, line in enumerate(text.splitlines(), 1)
            if "#" in line
        ]
    return comments, statements


_LAYOUT = frozenset(
    {
        tokenize.ENCODING,
        tokenize.NL,
        tokenize.COMMENT,
        tokenize.INDENT,
        tokenize.DEDENT,
        tokenize.ENDMARKER,
    }
)


def apply_noqa(diagnostics: list[Diagnostic], source: bytes) -> list[Diagnostic]:
    """The findings no noqa comment silences, in their original order."""
    if not diagnostics or b"noqa" not in source.lower():
        return diagnostics
    comments, statements = _scan(source)
    file_codes = _file_level(comments)
    by_line: dict[int, list[frozenset[str] | None]] = {}
    for comment in comments:
        for match in NOQA.finditer(comment.text):
            by_line.setdefault(comment.line, []).append(_codes(match))
    return [
        d
        for d in diagnostics
        if not (file_codes and any(_silences(c, d.code) for c in file_codes))
        and not any(
            _silences(codes, d.code)
            for line in _noqa_lines(d.line, statements)
            for codes in by_line.get(line, ())
        )
    ]


def _file_level(comments: Iterable[_Comment]) -> list[frozenset[str] | None]:
    return [
        _codes(match)
        for comment in comments
        if comment.line <= FILE_NOQA_LINES
        for match in _FILE_NOQA.finditer(comment.text)
    ]


def _noqa_lines(line: int, statements: dict[int, tuple[int, int]]) -> set[int]:
    first, last = statements.get(line, (line, line))
    return {line, first, last}


def statement_spans(source: bytes) -> dict[int, tuple[int, int]]:
    """For each line of a statement, the statement's first and last line."""
    return _scan(source)[1]


def add_noqa(source: bytes, diagnostics: list[Diagnostic]) -> tuple[bytes, int]:
    """`source` with a `# noqa: CODES` comment for every finding (`--add-noqa`), and how
    many lines got one. The comment goes at the end of the finding's statement (a
    multi-line statement's last line, which never ends inside a string); an existing
    `# noqa: ...` on that line gets the missing codes, a blanket `# noqa` is left as is."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
        text = source.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError):
        return source, 0  # not text gradlint could lint: leave it alone
    comments, statements = _scan(source)
    by_line = {comment.line: comment.text for comment in comments}
    wanted: dict[int, set[str]] = {}
    for d in diagnostics:
        line = statements.get(d.line, (d.line, d.line))[1]
        wanted.setdefault(line, set()).add(d.code)
    lines = text.splitlines(keepends=True)
    changed = 0
    for number, codes in sorted(wanted.items()):
        if not 1 <= number <= len(lines):
            continue
        line = lines[number - 1]
        body = line.rstrip("\r\n")
        ending = line[len(body) :]
        comment = by_line.get(number, "")
        existing = NOQA.search(comment)
        if existing is not None:
            present = _codes(existing)
            if present is ALL or all(_silences(present, c) for c in codes):
                continue
            start = body.rfind(comment) + existing.start()
            end = start + len(existing.group(0))
            body = f"{body[:start]}# noqa: {', '.join(sorted(present | codes))}{body[end:]}"
        else:
            body = f"{body}  # noqa: {', '.join(sorted(codes))}"
        lines[number - 1] = body + ending
        changed += 1
    return "".join(lines).encode(encoding), changed
