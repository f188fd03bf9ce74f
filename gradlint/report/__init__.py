"""Output formats: `render(diagnostics, fmt, sources)` turns findings into the text a run prints."""

from __future__ import annotations

from collections.abc import Callable

from gradlint.diagnostic import Diagnostic
from gradlint.report import flake8, full, github, json_array, sarif
from gradlint.report.stats import render_statistics

Formatter = Callable[[list[Diagnostic], dict[str, str]], str]

_FORMATTERS: dict[str, Formatter] = {
    "flake8": flake8.render,
    "full": full.render,
    "json": json_array.render,
    "sarif": sarif.render,
    "github": github.render,
}

FORMATS: tuple[str, ...] = tuple(_FORMATTERS)
DEFAULT_FORMAT = "flake8"

__all__ = ["DEFAULT_FORMAT", "FORMATS", "render", "render_statistics"]


def render(
    diagnostics: list[Diagnostic], fmt: str, sources: dict[str, str], *, unsafe_fixes: bool = False
) -> str:
    """The whole output of a run in format `fmt`; `sources` maps each path with findings
    to its text (only `full` reads it, and marks with `[*]` the findings `--fix` repairs,
    `unsafe_fixes` counting unsafe fixes too)."""
    try:
        formatter = _FORMATTERS[fmt]
    except KeyError:
        raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}") from None
    if formatter is full.render:
        return full.render(diagnostics, sources, unsafe_fixes)
    return formatter(diagnostics, sources)
