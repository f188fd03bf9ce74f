"""gitignore-style patterns, shared by `exclude` (discovery.py) and `per-file-ignores`
(config.py)."""

from __future__ import annotations

import re
from functools import cache

TYPE_CHECKING = False  # not `typing`'s: a run that only reads the result cache skips its import
if TYPE_CHECKING:
    import pathspec


@cache
def pattern_spec(patterns: tuple[str, ...]) -> pathspec.GitIgnoreSpec | PlainNames:
    if all(_PLAIN_NAME.fullmatch(p) for p in patterns):
        return PlainNames(patterns)
    return gitignore_spec(patterns)


# A pattern that is a file or directory name and nothing else: no wildcard, negation,
# escape, comment or slash but a trailing one (the default `exclude` list is all such).
_PLAIN_NAME = re.compile(r"[\w.+@=,~-]+/?")


class PlainNames:
    """gitignore's match for plain names, without importing pathspec (a warm run's
    start-up): a name matches any path component equal to it, a name ending in `/` only
    components that are directories (a path ends in `/` when it is one)."""

    def __init__(self, patterns: tuple[str, ...]) -> None:
        self.anywhere = frozenset(p for p in patterns if not p.endswith("/"))
        self.directories = frozenset(p[:-1] for p in patterns if p.endswith("/"))

    def match_file(self, path: str) -> bool:
        parts = path.split("/")
        *parents, last = parts
        if any(part in self.anywhere or part in self.directories for part in parents):
            return True
        return last in self.anywhere


def gitignore_spec(lines) -> pathspec.GitIgnoreSpec:
    # Imported on first use: a run on explicit files (pre-commit) never needs it.
    import pathspec

    return pathspec.GitIgnoreSpec.from_lines(lines)


def glob_matches(pattern: str, relative_path: str) -> bool:
    """gitignore semantics: a pattern without `/` matches a name at any depth, one with
    `/` is anchored at the project root; a directory pattern covers everything inside."""
    return pattern_spec((pattern,)).match_file(relative_path)
