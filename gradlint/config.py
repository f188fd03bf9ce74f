"""Settings of a run: which rules, which files, which project-specific names.

Settings come from `[tool.gradlint]` in the nearest `pyproject.toml` that has that
table (searched upward from the first linted path), or from `--config FILE`; each
command-line flag then replaces the setting of the same name.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised only on Python 3.10
    import tomli as tomllib

# Directory names never walked into unless `exclude` replaces this list (hidden
# directories and virtualenvs are always skipped, see discovery.py).
DEFAULT_EXCLUDE = ("venv", "__pycache__", "site-packages", "build", "dist", "node_modules")
PROBE_MODES = ("witness", "exec")


class ConfigError(Exception):
    """A setting gradlint cannot honour; the CLI prints it and exits 2."""


@dataclass
class Config:
    select: tuple[str, ...] = ("GL",)
    ignore: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    per_file_ignores: dict[str, tuple[str, ...]] = field(default_factory=dict)
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    extend_exclude: tuple[str, ...] = ()
    no_grad_contexts: tuple[str, ...] = ()
    probe: str | None = None  # None (static only), "witness" or "exec"
    probe_timeout: float = 10.0
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
        from gradlint.discovery import glob_matches

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
_KEYS = (*_LIST_KEYS, "per-file-ignores", "no-grad-contexts", "probe", "probe-timeout")
_CODE_KEYS = ("select", "ignore", "extend-select")


def find_pyproject(start: Path) -> Path | None:
    """The nearest `pyproject.toml` with a `[tool.gradlint]` table, from `start` upward."""
    directory = start.absolute()
    if not directory.is_dir():
        directory = directory.parent
    for candidate in (directory, *directory.parents):
        pyproject = candidate / "pyproject.toml"
        if pyproject.is_file() and "gradlint" in _read_toml(pyproject).get("tool", {}):
            return pyproject
    return None


def _read_toml(path: Path) -> dict:
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
    if "no-grad-contexts" in merged:
        values["no_grad_contexts"] = _strings("no-grad-contexts", merged["no-grad-contexts"])
    if "probe" in merged:
        values["probe"] = _probe_mode(merged["probe"])
    if "probe-timeout" in merged:
        values["probe_timeout"] = _timeout(merged["probe-timeout"])
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
    if value is True or value == "witness":
        return "witness"
    if value is False:
        return None
    if value in PROBE_MODES:
        return value
    raise ConfigError(f'probe must be true, false or "exec", got {value!r}')


def _timeout(value) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise ConfigError(f"probe-timeout must be a positive number of seconds, got {value!r}")
    return float(value)


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
