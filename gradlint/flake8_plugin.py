"""flake8 entry point (`GL`): the CLI's per-file pipeline on the lines flake8 already read.

Editors that talk to flake8 (VS Code, vim ALE, Emacs flymake) thereby show gradlint's
findings, stdin included. The project's `[tool.gradlint]` settings and gradlint's
`# noqa` / `# gradlint: noqa` comments apply exactly as on the command line; flake8's
own `--select`, `--extend-ignore` and `# noqa` then filter further.
"""

from __future__ import annotations

import ast
import io
import sys
import tokenize
from collections.abc import Iterator
from functools import cache
from pathlib import Path

from gradlint import __version__
from gradlint.catalogue import load_catalogue
from gradlint.config import Config, build_config, find_pyproject, read_settings
from gradlint.runner import lint_file


@cache
def project_config(directory: Path) -> Config:
    """The settings the CLI would use for a file in `directory` (raises ConfigError)."""
    pyproject = find_pyproject(directory)
    settings = read_settings(pyproject) if pyproject else {}
    root = pyproject.absolute().parent if pyproject else Path.cwd()
    return build_config(settings, {}, root, set(load_catalogue()))


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
        config = project_config(Path(self.filename).absolute().parent)
        result = lint_file(self.filename, config, source_bytes(self.lines))
        for error in result.internal_errors:
            print(error, file=sys.stderr)
        for d in result.diagnostics:
            yield d.line, d.column - 1, f"{d.code} {d.message}", type(self)
