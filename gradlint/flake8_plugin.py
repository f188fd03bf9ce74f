"""flake8 entry point (`GL`): the CLI's per-file pipeline on the lines flake8 already read.

Editors that talk to flake8 (VS Code, vim ALE, Emacs flymake) thereby show gradlint's
findings, stdin included. Each file's own configuration (the nearest `gradlint.toml` or
`pyproject.toml` with `[tool.gradlint]`, as on the command line) applies, its `exclude`
included (flake8 applies its own excludes to named files too), and gradlint's `# noqa` /
`# gradlint: noqa` comments; flake8's own `--select`, `--extend-ignore` and `# noqa` then
filter further.
"""

from __future__ import annotations

import argparse
import ast
import io
import sys
import tokenize
from collections.abc import Iterator
from functools import cache
from pathlib import Path

from gradlint import __version__
from gradlint.catalogue import load_catalogue
from gradlint.config import ConfigError, Resolver
from gradlint.discovery import Excluder
from gradlint.notebook import file_position, source_strings
from gradlint.runner import ContainedWorker


@cache
def _resolver() -> Resolver:
    return Resolver({}, set(load_catalogue()))


@cache
def _excluder(directory: Path) -> Excluder:
    return Excluder(_resolver().for_path(directory))


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


# The files of this flake8 process are linted in one forked child: a native crash in the
# parser costs that file (GL001), not flake8's run.
_WORKER = ContainedWorker()

# What the plugin reports when gradlint itself failed on a file (a bug, or a bad
# [tool.gradlint] table): never a silent pass.
INTERNAL_CODE = "GL902"

SYNTAX_ERROR_CODE = "GL001"
FLAKE8_CANNOT_PARSE = ("E999", "E902")  # flake8's own codes: a syntax error, an unreadable file


class GradlintPlugin:
    name = "gradlint"
    version = __version__

    @classmethod
    def parse_options(cls, options: argparse.Namespace) -> None:
        """flake8 runs no plugin on a file it cannot parse (or read): it reports E999 (E902)
        itself. When the selection names GL001 (`--select GL`), those two are selected too,
        so such a file is never passed as clean, as the command reports it (GL001)."""
        selected = [*(options.select or ()), *(options.extend_select or ())]
        if any(SYNTAX_ERROR_CODE.startswith(code) for code in selected):
            options.extend_select = [*(options.extend_select or ()), *FLAKE8_CANNOT_PARSE]

    def __init__(self, tree: ast.AST, filename: str, lines: list[str]) -> None:
        # flake8 classifies a plugin by its parameters: `tree` makes this an AST plugin,
        # run once per file; the libcst engine parses `lines` itself.
        self.filename = filename
        self.lines = lines

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        directory = Path(self.filename).absolute().parent
        try:
            config = _resolver().for_path(directory)
            excluded = _excluder(directory).excludes_path(self.filename)
        except ConfigError as error:
            yield 1, 0, f"{INTERNAL_CODE} gradlint cannot run: {error}", type(self)
            return
        if excluded:
            return
        result = _WORKER.lint(self.filename, config, source_bytes(self.lines))
        for error in result.internal_errors:
            print(error, file=sys.stderr)
            # a finding, not just stderr: flake8 would otherwise pass the file as clean
            headline = error.splitlines()[0].removeprefix(f"{self.filename}: ")
            yield 1, 0, f"{INTERNAL_CODE} gradlint {headline}", type(self)
        if any(d.cell is not None for d in result.diagnostics):
            yield from self._in_notebook(result.diagnostics)
            return
        for d in result.diagnostics:
            yield d.line, d.column - 1, f"{d.code} {d.message}", type(self)

    def _in_notebook(self, diagnostics: list) -> Iterator[tuple[int, int, str, type]]:
        """A notebook's findings where flake8 reads the file, its JSON: on the line and
        column of the .ipynb text holding the cell's code (as the command's `github`
        format places them), the cell's own position after the message, as the command
        prints it (`cell 3:6:5`)."""
        text = "".join(self.lines)
        strings = source_strings(text)
        for d in diagnostics:
            if d.cell is None:
                yield d.line, d.column - 1, f"{d.code} {d.message}", type(self)
                continue
            line, column = file_position(text, strings, d.cell, d.line, d.column) or (1, 1)
            where = f"cell {d.cell}:{d.line}:{d.column}"
            yield line, column - 1, f"{d.code} {d.message} ({where})", type(self)
