"""Settings of each file: which rules, which files, which project-specific names.

As in ruff, each file uses the nearest configuration above it: a `gradlint.toml` (its
top level holds the settings), else a `pyproject.toml` with a `[tool.gradlint]` table
(one without that table is passed over). `--config FILE` names one file for every path
instead. Each command-line flag then replaces the setting of the same name.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath

from gradlint.patterns import glob_matches

# Directory names never walked into unless `exclude` replaces this list (hidden
# directories and virtualenvs are always skipped, see discovery.py).
DEFAULT_EXCLUDE = ("venv", "__pycache__", "site-packages", "build", "dist", "node_modules")
PROBE_MODES = ("witness", "definitions", "exec")
CODE_PROBES = ("definitions", "exec")  # the modes that run the linted project's code
# Deepest nesting (libcst tree levels) a file may have before it gets GL001 instead of a
# parse: torch's own sources stay under 25; libcst needs ~1.5 s at 1,000 levels.
DEFAULT_MAX_DEPTH = 1000
DEFAULT_CACHE_DIR = ".gradlint_cache"  # relative to the configuration's directory


class ConfigError(Exception):
    """A setting gradlint cannot honour; the CLI prints it and exits 2."""


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
    standalone = directory / STANDALONE
    if standalone.is_file():
        return standalone
    pyproject = directory / "pyproject.toml"
    if pyproject.is_file() and "gradlint" in _read_toml(pyproject).get("tool", {}):
        return pyproject
    return None


class Resolver:
    """The Config of every path of a run: `--config FILE` for all, else each path's
    nearest configuration (`find_config`); `overrides` (the flags) replace settings in
    each. Globs of a configuration are relative to its directory (the current directory
    without one)."""

    def __init__(self, overrides: dict, known_codes: set[str], config_file: Path | None = None):
        self._overrides = overrides
        self._known = known_codes
        self._config_file = config_file
        self._by_file: dict[Path | None, Config] = {}
        self._nearest: dict[Path, Path | None] = {}  # directory -> its configuration file
        if config_file is not None:
            self.load(config_file)  # errors surface before any file is linted

    def load(self, config_file: Path | None) -> Config:
        config = self._by_file.get(config_file)
        if config is None:
            settings = read_settings(config_file) if config_file else {}
            root = config_file.absolute().parent if config_file else Path.cwd()
            config = build_config(settings, self._overrides, root, self._known)
            self._by_file[config_file] = config
        return config

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
            found = _config_in(candidate)
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
        raise ConfigError(f"cannot read {path}: {error.strerror}") from error
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path} is not valid TOML: {error}") from error


def read_settings(path: Path) -> dict:
    """The gradlint table of a config file: `[tool.gradlint]`, or the whole file when it
    is not a pyproject.toml (a standalone `gradlint.toml`)."""
    data = _read_toml(path)
    if "tool" in data or path.name == "pyproject.toml":
        return data.get("tool", {}).get("gradlint", {})
    return data


def build_config(settings: dict, overrides: dict, root: Path, known_codes: set[str]) -> Config:
    """A validated Config from file settings, replaced key by key by `overrides`.

    Both dicts use the kebab-case keys of `[tool.gradlint]`; `known_codes` are the codes
    of the rule catalogue, against which every code and prefix is checked.
    """
    unknown = sorted(set(settings) - set(_KEYS))
    if unknown:
        raise ConfigError(
            f"unknown setting(s) {', '.join(unknown)} in [tool.gradlint]; "
            f"known settings: {', '.join(_KEYS)}"
        )
    merged = {**settings, **{k: v for k, v in overrides.items() if v is not None}}
    values: dict = {"root": root}
    for key in _LIST_KEYS:
        if key in merged:
            strings = _strings(key, merged[key])
            upper = key in _CODE_KEYS  # rule codes are case-insensitive
            values[key.replace("-", "_")] = tuple(s.upper() for s in strings) if upper else strings
    if "per-file-ignores" in merged:
        values["per_file_ignores"] = _per_file_ignores(merged["per-file-ignores"])
    if "extend-per-file-ignores" in merged:
        extra = _per_file_ignores(merged["extend-per-file-ignores"])
        combined = dict(values.get("per_file_ignores", {}))
        for pattern, codes in extra.items():
            combined[pattern] = combined.get(pattern, ()) + codes
        values["per_file_ignores"] = combined
    if "force-exclude" in merged:
        force = merged["force-exclude"]
        if not isinstance(force, bool):
            raise ConfigError(f"force-exclude must be true or false, got {force!r}")
        values["force_exclude"] = force
    if "no-grad-contexts" in merged:
        values["no_grad_contexts"] = _strings("no-grad-contexts", merged["no-grad-contexts"])
    if "probe" in merged:
        values["probe"] = _probe_mode(merged["probe"])
    if "probe-timeout" in merged:
        values["probe_timeout"] = _timeout(merged["probe-timeout"])
    if "probe-modules" in merged:
        values["probe_modules"] = _probe_modules(merged["probe-modules"])
    if "max-depth" in merged:
        values["max_depth"] = _positive_int("max-depth", merged["max-depth"])
    cache_dir = merged.get("cache-dir", DEFAULT_CACHE_DIR)
    if not isinstance(cache_dir, str | Path):
        raise ConfigError(f"cache-dir must be a path, got {cache_dir!r}")
    values["cache_dir"] = None if merged.get("no-cache") else root / cache_dir
    config = replace(Config(), **values)
    _check_codes(config, known_codes)
    return config


def _strings(key: str, value) -> tuple[str, ...]:
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{key} must be a list of strings, got {value!r}")
    return tuple(v.strip() for v in value if v.strip())


def _per_file_ignores(value) -> dict[str, tuple[str, ...]]:
    if not isinstance(value, dict):
        raise ConfigError(f"per-file-ignores must be a table of glob = [codes], got {value!r}")
    return {
        str(pattern): tuple(c.upper() for c in _strings(f"per-file-ignores[{pattern!r}]", codes))
        for pattern, codes in value.items()
    }


def parse_per_file_ignores(text: str) -> dict[str, tuple[str, ...]]:
    """flake8's command-line form: `"tests/*:GL101,GL102 scripts/*.py:GL5"`."""
    result: dict[str, tuple[str, ...]] = {}
    for entry in text.split():
        pattern, colon, codes = entry.rpartition(":")
        if not colon or not pattern or not codes:
            raise ConfigError(f"--per-file-ignores entry {entry!r} is not GLOB:CODE[,CODE]")
        result[pattern] = result.get(pattern, ()) + _strings("--per-file-ignores", codes)
    return {pattern: tuple(c.upper() for c in codes) for pattern, codes in result.items()}


def _probe_mode(value) -> str | None:
    if value is True:
        return "definitions"
    if value is False or value == "off":
        return None
    if value in PROBE_MODES:
        return value
    raise ConfigError(
        f'probe must be true, false, "witness", "definitions" or "exec", got {value!r}'
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
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise ConfigError(f"probe-timeout must be a positive number of seconds, got {value!r}")
    return float(value)


def _positive_int(key: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"{key} must be a positive integer, got {value!r}")
    return value


def _check_codes(config: Config, known_codes: set[str]) -> None:
    written = {
        "select": config.select,
        "ignore": config.ignore,
        "extend-select": config.extend_select,
        **{f"per-file-ignores[{p!r}]": codes for p, codes in config.per_file_ignores.items()},
    }
    problems = [
        f"{key}: {code}"
        for key, codes in written.items()
        for code in codes
        if not any(known.startswith(code) for known in known_codes)
    ]
    if problems:
        raise ConfigError(
            f"unknown rule code(s) or prefix(es): {'; '.join(problems)} "
            f"(see `gradlint rules` for the known codes)"
        )
