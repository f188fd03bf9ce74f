"""flake8 entry point (`GL`): runs gradlint's engine on the lines flake8 already read.

flake8 itself selects codes and applies `# noqa`, so editors that talk to flake8 (VS
Code, vim ALE, Emacs flymake) show gradlint's findings, stdin included.
"""

from __future__ import annotations

import ast
import io
import sys
import tokenize
from collections.abc import Iterator

from gradlint import __version__
from gradlint.config import Config
from gradlint.engine import lint_source


def source_bytes(lines: list[str]) -> bytes:
    """The text flake8 decoded, encoded back as its coding cookie declares (PEP 263), so
    the engine decodes it exactly as Python would."""
    text = "".join(lines)
    head = "".join(lines[:2]).encode("utf-8", "surrogatepass")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(head).readline)
        return text.encode(encoding)
    except (SyntaxError, LookupError, UnicodeError):
        return text.encode("utf-8", "surrogatepass")


class GradlintPlugin:
    name = "gradlint"
    version = __version__

    def __init__(self, tree: ast.AST, filename: str, lines: list[str]) -> None:
        # flake8 classifies a plugin by its parameters: `tree` makes this an AST plugin,
        # run once per file; the libcst engine parses `lines` itself.
        self.filename = filename
        self.lines = lines

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        result = lint_source(self.filename, source_bytes(self.lines), Config())
        for error in result.internal_errors:
            print(error, file=sys.stderr)
        for d in result.diagnostics:
            yield d.line, d.column - 1, f"{d.code} {d.message}", type(self)
