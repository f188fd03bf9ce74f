"""Settings of each file: which rules, which files, which project-specific names.

As in ruff, each file uses the nearest configuration above it: a `gradlint.toml` (its
top level holds the settings), else a `pyproject.toml` with a `[tool.gradlint]` table
(one without that table is passed over). `--config FILE` names one file for every path
instead. Each command-line flag then replaces the setting of the same name.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath

from gradlint.patterns import glob_matches, pattern_spec
from gradlint.project import OUTSIDE_PROJECT

# Directory names never walked into unless `exclude` replaces this list (hidden
# directories and virtualenvs are always skipped, see discovery.py).
DEFAULT_EXCLUDE = OUTSIDE_PROJECT
PROBE_MODES = ("witness", "definitions", "exec")
CODE_PROBES = ("definitions", "exec")  # the modes that run the linted project's code
# Deepest nesting (libcst tree levels) a file may have before it gets GL001 instead of a
# parse: torch's own sources stay under 25; libcst needs ~1.5 s at 1,000 levels.
DEFAULT_MAX_DEPTH = 1000
DEFAULT_CACHE_DIR = ".gradlint_cache"  # relative to the configuration's directory


# The largest max-depth: libcst's parse of 10,000 nested levels already takes minutes.
MAX_DEPTH_LIMIT = 10_000
# A configuration file's probe-timeout above this is lowered to it: the linted project's
# own file must not make a run hang (`--probe-timeout` on the command line may go higher).
CONFIG_PROBE_TIMEOUT_CAP = 60.0


class ConfigError(Exception):
    """Settings gradlint cannot honour: every problem found, and the file they are in
    (None: the command line). The CLI prints one line per problem."""

    def __init__(self, *problems: str, file: Path | None = None) -> None:
        super().__init__(*problems)
        self.problems = problems
        self.file = file

    def shown_file(self) -> str | None:
        """The file, relative to the current directory when it lies under it."""
        return None if self.file is None else relative_to_root(str(self.file), Path.cwd())

    def lines(self) -> list[str]:
        """`file: problem` for each problem."""
        where = f"{self.shown_file()}: " if self.file is not None else ""
        return [where + problem for problem in self.problems]

    def __str__(self) -> str:
        return "; ".join(self.lines())


@dataclass
class Config:
    """The effective settings of a run (or of one file, with its per-file ignores)."""

    select: tuple[str, ...] = ("GL",)
    ignore: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    per_file_ignores: dict[str, tuple[str, ...]] = field(default_factory=dict)
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    extend_exclude: tuple[str, ...] = ()
    no_grad_contexts: tuple[str, ...] = ()
    probe: str | None = None  # None (static only), "witness", "definitions" or "exec"
    probe_timeout: float = 10.0
    # class name -> {"args": [...], "kwargs": {...}, "inputs": [[...], ...]} for the probe
    probe_modules: dict[str, dict] = field(default_factory=dict)
    force_exclude: bool = False  # `exclude` applies to paths named on the command line too
    max_depth: int = DEFAULT_MAX_DEPTH
    cache_dir: Path | None = None  # None: no result cache (build_config sets the default)
    root: Path = field(default_factory=Path.cwd)  # globs are relative to this directory

    def is_selected(self, code: str) -> bool:
        """ruff's rule: the longest matching prefix between select and ignore wins."""
        chosen = max(
            (len(p) for p in (*self.select, *self.extend_select) if code.startswith(p)), default=-1
        )
        ignored = max((len(p) for p in self.ignore if code.startswith(p)), default=-1)
        return chosen > ignored

    def ignored_in(self, path: str) -> tuple[str, ...]:
        """Code prefixes that `per-file-ignores` removes from `path`, whatever `select` says."""
        if not self.per_file_ignores:
            return ()
        relative = relative_to_root(path, self.root)
        return tuple(
            code
            for pattern, codes in self.per_file_ignores.items()
            if glob_matches(pattern, relative)
            for code in codes
        )


def relative_to_root(path: str, root: Path) -> str:
    """`path` as a POSIX path relative to `root` when it lies under it, else as given."""
    absolute = Path(path).absolute()
    try:
        return PurePosixPath(absolute.relative_to(root.absolute())).as_posix()
    except ValueError:
        return PurePosixPath(Path(path)).as_posix()


# -- reading settings -------------------------------------------------------------

_LIST_KEYS = ("select", "ignore", "extend-select", "exclude", "extend-exclude")
_KEYS = (
    *_LIST_KEYS,
    "per-file-ignores",
    "extend-per-file-ignores",
    "force-exclude",
    "no-grad-contexts",
    "probe",
    "probe-timeout",
    "probe-modules",
    "max-depth",
    "cache-dir",
)
_CODE_KEYS = ("select", "ignore", "extend-select")
STANDALONE = "gradlint.toml"


def find_config(start: Path) -> Path | None:
    """The configuration of `start` (a file or directory): from its directory upward, the
    first `gradlint.toml`, or `pyproject.toml` with a `[tool.gradlint]` table."""
    directory = start.absolute()
    if not directory.is_dir():
        directory = directory.parent
    for candidate in (directory, *directory.parents):
        found = _config_in(candidate)
        if found is not None:
            return found
    return None


def _config_in(directory: Path) -> Path | None:
    """The directory's configuration file; ConfigError when its pyproject.toml cannot be
    read far enough to tell whether it has a `[tool.gradlint]` table."""
    standalone = directory / STANDALONE
    if standalone.is_file():
        return standalone
    pyproject = directory / "pyproject.toml"
    if pyproject.is_file() and "gradlint" in _tool_table(pyproject, _read_toml(pyproject)):
        return pyproject
    return None


def _tool_table(path: Path, data: dict) -> dict:
    tool = data.get("tool", {})
    if not isinstance(tool, dict):
        raise ConfigError(f"tool must be a table, got {_shown(tool)}", file=path)
    return tool


class Resolver:
    """The Config of every path of a run: `--config FILE` for all, else each path's
    nearest configuration (`find_config`); `overrides` (the flags) replace settings in
    each. Globs of a configuration are relative to its directory (the current directory
    without one).

    The flags are checked at once (ConfigError). A configuration file with bad values
    raises its ConfigError (every problem of the file, the file named) from each
    `for_path` under it; with `keep_going` it gives a stand-in Config instead (defaults:
    its directories are still walked for files under valid configurations) and its
    error is kept in `errors`, for the run to report at the end: `broken` tells such a
    Config's files, which are not linted."""

    def __init__(
        self,
        overrides: dict,
        known_codes: set[str],
        config_file: Path | None = None,
        keep_going: bool = False,
    ):
        self._overrides = overrides
        self._known = known_codes
        self._config_file = config_file
        self._keep_going = keep_going
        self._by_file: dict[Path | None, Config] = {}
        self._nearest: dict[Path, Path | None] = {}  # directory -> its configuration file
        self.errors: dict[Path, ConfigError] = {}  # file -> its problems (keep_going)
        self._broken: dict[int, ConfigError] = {}  # id of a stand-in Config -> the error
        build_config({}, overrides, Path.cwd(), known_codes)  # the flags alone
        if config_file is not None:
            self.load(config_file)  # errors surface before any file is linted

    def load(self, config_file: Path | None) -> Config:
        config = self._by_file.get(config_file)
        if config is None:
            root = config_file.absolute().parent if config_file else Path.cwd()
            try:
                settings = read_settings(config_file) if config_file else {}
                config = build_config(settings, self._overrides, root, self._known)
            except ConfigError as error:
                config = self._stand_in(config_file, root, error)
            self._by_file[config_file] = config
        error = self._broken.get(id(config))
        if error is not None and not self._keep_going:
            raise error
        return config

    def _stand_in(self, config_file: Path | None, root: Path, error: ConfigError) -> Config:
        if error.file is None:
            error.file = config_file
        config = Config(root=root)
        self._broken[id(config)] = error
        if config_file is not None:
            self.errors[config_file] = error
        return config

    def broken(self, config: Config) -> ConfigError | None:
        """The error of the configuration file `config` stands in for, if any."""
        return self._broken.get(id(config))

    def for_path(self, path: str | Path) -> Config:
        """The Config of a file or directory."""
        if self._config_file is not None:
            return self.load(self._config_file)
        directory = Path(path).absolute()
        if not directory.is_dir():
            directory = directory.parent
        visited = []
        found = None
        for candidate in (directory, *directory.parents):
            if candidate in self._nearest:
                found = self._nearest[candidate]
                break
            visited.append(candidate)
            try:
                found = _config_in(candidate)
            except ConfigError:  # a pyproject.toml that does not read: reported as its own
                found = candidate / "pyproject.toml"
            if found is not None:
                break
        self._nearest.update(dict.fromkeys(visited, found))
        return self.load(found)


def _read_toml(path: Path) -> dict:
    if sys.version_info >= (3, 11):  # imported here: most runs read no config file
        import tomllib
    else:  # pragma: no cover - exercised only on Python 3.10
        import tomli as tomllib
    try:
        with path.open("rb") as file:
            return tomllib.load(file)
    except OSError as error:
        raise ConfigError(f"cannot read: {error.strerror}", file=path) from error
    except UnicodeDecodeError as error:
        raise ConfigError(f"not UTF-8 (TOML must be): {error.reason}", file=path) from error
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"not valid TOML: {error}", file=path) from error


def read_settings(path: Path) -> dict:
    """The gradlint table of a config file: `[tool.gradlint]`, or the whole file when it
    is not a pyproject.toml (a standalone `gradlint.toml`)."""
    data = _read_toml(path)
    if "tool" in data or path.name == "pyproject.toml":
        settings = _tool_table(path, data).get("gradlint", {})
        if not isinstance(settings, dict):
            raise ConfigError(f"tool.gradlint must be a table, got {_shown(settings)}", file=path)
        return settings
    return data


def build_config(settings: dict, overrides: dict, root: Path, known_codes: set[str]) -> Config:
    """A validated Config from file settings, replaced key by key by `overrides`.

    Both dicts use the kebab-case keys of `[tool.gradlint]`; `known_codes` are the codes
    of the rule catalogue, against which every code and prefix is checked. ConfigError
    lists every problem found, not only the first. A probe-timeout from `settings` (a
    configuration file) is capped at CONFIG_PROBE_TIMEOUT_CAP; one from `overrides` is not.
    """
    problems: list[str] = []
    unknown = sorted(set(settings) - set(_KEYS))
    if unknown:
        problems.append(
            f"unknown setting(s) {', '.join(unknown)} in [tool.gradlint]; "
            f"known settings: {', '.join(_KEYS)}"
        )
    merged = {**settings, **{k: v for k, v in overrides.items() if v is not None}}
    values: dict = {"root": root}

    def check(key: str, read: Callable) -> None:
        """values[key's field] = read(merged[key]) when the key is set; its problem noted."""
        if key in merged:
            try:
                values[key.replace("-", "_")] = read(merged[key])
            except ConfigError as error:
                problems.extend(error.problems)

    for key in _LIST_KEYS:
        upper = key in _CODE_KEYS  # rule codes are case-insensitive
        check(key, functools.partial(_strings, key, upper=upper, globs="exclude" in key))
    check("per-file-ignores", _per_file_ignores)
    check("extend-per-file-ignores", _per_file_ignores)
    if "extend_per_file_ignores" in values:
        combined = dict(values.get("per_file_ignores", {}))
        for pattern, codes in values.pop("extend_per_file_ignores").items():
            combined[pattern] = combined.get(pattern, ()) + codes
        values["per_file_ignores"] = combined
    check("force-exclude", _force_exclude)
    check("no-grad-contexts", functools.partial(_strings, "no-grad-contexts"))
    check("probe", _probe_mode)
    check("probe-timeout", _timeout)
    if "probe_timeout" in values and overrides.get("probe-timeout") is None:
        values["probe_timeout"] = min(values["probe_timeout"], CONFIG_PROBE_TIMEOUT_CAP)
    check("probe-modules", _probe_modules)
    check("max-depth", _max_depth)
    cache_dir = merged.get("cache-dir", DEFAULT_CACHE_DIR)
    if not isinstance(cache_dir, str | Path):
        problems.append(f"cache-dir must be a path, got {_shown(cache_dir)}")
    else:
        values["cache_dir"] = None if merged.get("no-cache") else root / cache_dir
    config = replace(Config(), **values)
    problems += _code_problems(config, known_codes)
    if not (config.select or config.extend_select) and not problems:
        problems.append("select and extend-select name no rule: nothing would be checked")
    if problems:
        raise ConfigError(*problems)
    return config


def _shown(value) -> str:
    """A value's repr, cut to a readable length."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _strings(key: str, value, upper: bool = False, globs: bool = False) -> tuple[str, ...]:
    """A list of strings (or one comma-separated string), stripped, empty ones dropped;
    rule codes upper-cased, glob patterns checked."""
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{key} must be a list of strings, got {_shown(value)}")
    strings = tuple(v.strip().upper() if upper else v.strip() for v in value if v.strip())
    if globs:
        bad = [f"{key}: {problem}" for pattern in strings if (problem := _bad_glob(pattern))]
        if bad:
            raise ConfigError(*bad)
    return strings


def _bad_glob(pattern: str) -> str | None:
    """Why `pattern` is not a gitignore-style pattern gradlint can match, or None."""
    try:
        pattern_spec((pattern,))
    except Exception as error:  # noqa: BLE001 - pathspec raises re.error, ValueError, ...
        return f"bad glob {pattern!r} ({error})"
    return None


def _per_file_ignores(value) -> dict[str, tuple[str, ...]]:
    if not isinstance(value, dict):
        raise ConfigError(
            f"per-file-ignores must be a table of glob = [codes], got {_shown(value)}"
        )
    problems = [f"per-file-ignores: {bad}" for pattern in value if (bad := _bad_glob(pattern))]
    ignored = {}
    for pattern, codes in value.items():
        try:
            ignored[str(pattern)] = _strings(f"per-file-ignores[{pattern!r}]", codes, upper=True)
        except ConfigError as error:
            problems += error.problems
    if problems:
        raise ConfigError(*problems)
    return ignored


def parse_per_file_ignores(text: str) -> dict[str, tuple[str, ...]]:
    """flake8's command-line form: `"tests/*:GL101,GL102 scripts/*.py:GL5"`."""
    result: dict[str, tuple[str, ...]] = {}
    for entry in text.split():
        pattern, colon, codes = entry.rpartition(":")
        if not colon or not pattern or not codes:
            raise ConfigError(f"--per-file-ignores entry {entry!r} is not GLOB:CODE[,CODE]")
        result[pattern] = result.get(pattern, ()) + _strings("--per-file-ignores", codes)
    return {pattern: tuple(c.upper() for c in codes) for pattern, codes in result.items()}


def _force_exclude(value) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"force-exclude must be true or false, got {_shown(value)}")
    return value


def _probe_mode(value) -> str | None:
    if value is True:
        return "definitions"
    if value is False or value == "off":
        return None
    if value in PROBE_MODES:
        return value
    raise ConfigError(
        f'probe must be true, false, "witness", "definitions" or "exec", got {_shown(value)}'
    )


def _probe_modules(value) -> dict[str, dict]:
    """`[probe-modules.Net]` tables: `args` (a list), `kwargs` (a table) and `inputs` (a
    list of argument lists, each a list of expressions such as "torch.randn(8, 10)")."""
    if not isinstance(value, dict):
        raise ConfigError("probe-modules must be a table of class names")
    kinds = {"args": list, "kwargs": dict, "inputs": list}
    for name, entry in value.items():
        if not isinstance(entry, dict) or set(entry) - set(kinds):
            raise ConfigError(f"probe-modules.{name} may only set args, kwargs and inputs")
        for key, kind in kinds.items():
            if key in entry and not isinstance(entry[key], kind):
                raise ConfigError(f"probe-modules.{name}.{key} must be a {kind.__name__}")
        for inputs in entry.get("inputs", []):
            if not (isinstance(inputs, list) and all(isinstance(i, str) for i in inputs)):
                raise ConfigError(
                    f"probe-modules.{name}.inputs must be lists of expressions (strings)"
                )
    return value


def _timeout(value) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not 0 < value < float("inf")  # nan too
    ):
        raise ConfigError(
            f"probe-timeout must be a positive, finite number of seconds, got {_shown(value)}"
        )
    return float(value)


def _max_depth(value) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_DEPTH_LIMIT:
        raise ConfigError(
            f"max-depth must be an integer from 1 to {MAX_DEPTH_LIMIT}, got {_shown(value)}"
        )
    return value


def _code_problems(config: Config, known_codes: set[str]) -> list[str]:
    written = {
        "select": config.select,
        "ignore": config.ignore,
        "extend-select": config.extend_select,
        **{f"per-file-ignores[{p!r}]": codes for p, codes in config.per_file_ignores.items()},
    }
    unknown = [
        f"{key}: {code}"
        for key, codes in written.items()
        for code in codes
        if not any(known.startswith(code) for known in known_codes)
    ]
    if not unknown:
        return []
    return [
        f"unknown rule code(s) or prefix(es): {'; '.join(unknown)} "
        f"(see `gradlint rules` for the known codes)"
    ]
