"""gitignore-style patterns, shared by `exclude` (discovery.py) and `per-file-ignores`
(config.py)."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pathspec


@cache
def pattern_spec(patterns: tuple[str, ...]) -> pathspec.GitIgnoreSpec:
    return gitignore_spec(patterns)


def gitignore_spec(lines) -> pathspec.GitIgnoreSpec:
    # Imported on first use: a run on explicit files (pre-commit) never needs it.
    import pathspec

    return pathspec.GitIgnoreSpec.from_lines(lines)


def glob_matches(pattern: str, relative_path: str) -> bool:
    """gitignore semantics: a pattern without `/` matches a name at any depth, one with
    `/` is anchored at the project root; a directory pattern covers everything inside."""
    return pattern_spec((pattern,)).match_file(relative_path)
