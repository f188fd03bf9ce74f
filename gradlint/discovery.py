"""Which files a run lints: command-line paths -> Python files and notebooks.

Directories are walked for `*.py` and `*.ipynb` in sorted order. Skipped while walking:
hidden entries (`.git`, `.venv`, `.ipynb_checkpoints`, ...), virtualenvs (any directory
holding `pyvenv.cfg`), entries matched by a `.gitignore` (nested ones too, and those of
parent directories up to the repository root), and entries matched by `exclude`
(default: `DEFAULT_EXCLUDE`) or `extend-exclude` of the directory's own configuration.
Paths named on the command line are linted (a named directory is walked even when a
.gitignore or an exclude covers it) unless `force-exclude` is set and `exclude` covers
the path or one of its parents; `-` stands for stdin. A named path that does not exist
is `missing` (a usage error).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from gradlint.config import Config, Resolver, relative_to_root
from gradlint.patterns import gitignore_spec, pattern_spec

TYPE_CHECKING = False  # not `typing`'s: a run that only reads the result cache skips its import
if TYPE_CHECKING:
    import pathspec

STDIN = "-"
SUFFIXES = (".py", ".ipynb")


@dataclass
class Discovered:
    """What the paths given expand to: files to lint and the paths that could not be."""

    files: list[str] = field(default_factory=list)
    unreadable: list[tuple[str, str]] = field(default_factory=list)  # (path, reason)
    missing: list[str] = field(default_factory=list)  # named on the command line, absent


class Excluder:
    """`exclude` + `extend-exclude` of a config, checked one path component at a time."""

    def __init__(self, config: Config) -> None:
        patterns = [*config.exclude, *config.extend_exclude]
        self.root = config.root
        self.by_name = pattern_spec(tuple(p for p in patterns if "/" not in p.rstrip("/")))
        self.anchored = pattern_spec(tuple(p for p in patterns if "/" in p.rstrip("/")))

    def excludes(self, path: str, is_dir: bool, anchored: bool = True) -> bool:
        suffix = "/" if is_dir else ""
        if self.by_name.match_file(os.path.basename(path) + suffix):
            return True
        return anchored and self.anchored.match_file(relative_to_root(path, self.root) + suffix)

    def excludes_path(self, path: str) -> bool:
        """`force-exclude`: the path or one of its parents (below the configuration's
        directory when it lies there) is excluded."""
        absolute = Path(path).absolute()
        try:
            parts = absolute.relative_to(self.root.absolute()).parts
        except ValueError:
            parts = tuple(p for p in Path(path).parts if p not in (".", "..", "/"))
        is_dir = absolute.is_dir()
        for i, name in enumerate(parts):
            suffix = "/" if i < len(parts) - 1 or is_dir else ""
            if self.by_name.match_file(name + suffix) or self.anchored.match_file(
                "/".join(parts[: i + 1]) + suffix
            ):
                return True
        return False


class _GitIgnores:
    """The `.gitignore` files in force at one directory, outermost first."""

    def __init__(self, specs: tuple[tuple[str, pathspec.GitIgnoreSpec], ...] = ()) -> None:
        self.specs = specs

    def entering(self, directory: str) -> _GitIgnores:
        spec = _read_gitignore(os.path.join(directory, ".gitignore"))
        return _GitIgnores((*self.specs, (directory, spec))) if spec else self

    def ignores(self, path: str, is_dir: bool) -> bool:
        ignored = False
        for base, spec in self.specs:
            relative = os.path.relpath(path, base).replace(os.sep, "/") + ("/" if is_dir else "")
            verdict = spec.check_file(relative).include
            if verdict is not None:
                ignored = verdict
        return ignored


def _read_gitignore(path: str) -> pathspec.GitIgnoreSpec | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as file:
            return gitignore_spec(file)
    except OSError:
        return None


def _ancestor_gitignores(root: str) -> _GitIgnores:
    """The `.gitignore` files above `root` up to its repository root (none outside a repo)."""
    directory = Path(root).absolute()
    chain = []
    for parent in directory.parents:
        chain.append(str(parent))
        if (parent / ".git").exists():
            ignores = _GitIgnores()
            for ancestor in reversed(chain):
                ignores = ignores.entering(ancestor)
            return ignores
    return _GitIgnores()


class _Excluders:
    """The Excluder of each path's configuration, one per Config."""

    def __init__(self, configs: Config | Resolver) -> None:
        self._configs = configs
        self._made: dict[int, Excluder] = {}

    def config(self, path: str) -> Config:
        configs = self._configs
        return configs.for_path(path) if isinstance(configs, Resolver) else configs

    def __call__(self, path: str) -> Excluder:
        config = self.config(path)
        excluder = self._made.get(id(config))
        if excluder is None:
            excluder = self._made[id(config)] = Excluder(config)
        return excluder


def discover(paths: list[str], configs: Config | Resolver) -> Discovered:
    """The files to lint, in command-line order, each directory's files sorted.

    `configs`: one Config for every path, or a Resolver giving each path its own."""
    found = Discovered()
    seen: set[str] = set()
    excluders = _Excluders(configs)
    for raw in paths or ["."]:
        if raw == STDIN:
            found.files.append(raw)
        elif not os.path.lexists(raw):
            found.missing.append(raw)
        elif excluders.config(raw).force_exclude and excluders(raw).excludes_path(raw):
            continue
        elif os.path.isdir(raw):
            _walk(raw, excluders, found)
        else:
            found.files.append(raw)
    found.files = [f for f in found.files if not (f in seen or seen.add(f))]
    return found


def _walk(root: str, excluders: _Excluders, found: Discovered) -> None:
    # An explicitly named directory is walked even when an anchored exclude covers it.
    top = excluders(root)
    top_anchored = not top.excludes(root, True)
    above = _ancestor_gitignores(root)
    if above.ignores(root, True):  # named although ignored: only its own .gitignore files count
        above = _GitIgnores()
    pending = [(root, above.entering(root))]
    while pending:
        directory, ignores = pending.pop()
        excluder = excluders(directory)  # the directory's own configuration
        anchored = top_anchored or excluder is not top
        try:
            with os.scandir(directory) as scan:
                entries = sorted(scan, key=lambda entry: entry.name)
        except OSError as error:
            found.unreadable.append((os.path.normpath(directory), error.strerror or str(error)))
            continue
        subdirectories = []
        for entry in entries:
            if entry.name.startswith("."):
                continue
            is_dir = entry.is_dir(follow_symlinks=False)
            if not is_dir and not entry.name.endswith(SUFFIXES):
                continue
            if excluder.excludes(entry.path, is_dir, anchored) or ignores.ignores(
                entry.path, is_dir
            ):
                continue
            if not is_dir:
                found.files.append(os.path.normpath(entry.path))
            elif not os.path.exists(os.path.join(entry.path, "pyvenv.cfg")):
                subdirectories.append(entry.path)
        # Depth first, in sorted order: push the last subdirectory first.
        pending.extend((d, ignores.entering(d)) for d in reversed(subdirectories))
