"""The finding a rule reports, and what travels with it."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

SHORT_MESSAGE = 120  # characters of a finding's headline, the line editors show
_KEPT = 6  # characters of a shortened name kept either side of its `…`


def headline(template: str, **names: str) -> str:
    """`template` with `{name}` fields filled, within SHORT_MESSAGE characters: the
    longest name (code the user wrote: `self.encoder.layers[0].attention.weight`) is
    shortened in its middle (`self.encoder…ntion.weight`) until the sentence fits."""
    values = dict(names)
    while len(text := template.format(**values)) > SHORT_MESSAGE:
        longest = max(values, key=lambda key: len(values[key]))
        value = values[longest]
        quote = "`" if len(value) > 2 and value[0] == value[-1] == "`" else ""
        inner = value[len(quote) : len(value) - len(quote)]
        keep = max(len(inner) - (len(text) - SHORT_MESSAGE) - 1, 2 * _KEPT)
        if keep >= len(inner) - 1:
            return text  # nothing left to shorten: the template itself is too long
        head = (keep + 1) // 2
        values[longest] = f"{quote}{inner[:head]}…{inner[len(inner) - keep // 2 :]}{quote}"
    return text


class Severity(str, Enum):
    ERROR = "error"  # torch raises at run time
    WARNING = "warning"  # the bug is silent


class Applicability(str, Enum):
    SAFE = "safe"  # keeps the program's meaning: applied by `--fix`
    UNSAFE = "unsafe"  # may change behaviour (aliasing, state_dict keys): `--unsafe-fixes`


@dataclass(frozen=True)
class Edit:
    """Replace the span [start, end) (1-based line and column, in characters) by `content`."""

    line: int
    column: int
    end_line: int
    end_column: int
    content: str


@dataclass(frozen=True)
class Fix:
    """Edits that repair one finding, applied together or not at all."""

    edits: tuple[Edit, ...]
    applicability: Applicability = Applicability.SAFE
    description: str = ""

    @property
    def is_safe(self) -> bool:
        return self.applicability is Applicability.SAFE


@dataclass(frozen=True)
class Witness:
    """A self-contained torch program that reproduces a finding without the user's code.

    `expect` is the stable prefix of the exception message torch raises; a silent bug's
    program raises `AssertionError(<expect>)` itself once it observed the failure.
    """

    program: str
    expect: str


@dataclass
class Diagnostic:
    """One finding. `message` is the one-line headline editors show (what is wrong, at
    most `SHORT_MESSAGE` characters); `detail` is the rest: why, what torch does, the fix.
    `cell` is the 1-based code cell of a notebook; `line` then counts within that cell."""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    code: str
    message: str
    name: str = ""
    severity: Severity = Severity.ERROR
    fix: Fix | None = None
    witness: Witness | None = None
    probe: dict | None = field(default=None, compare=False)
    detail: str = ""
    cell: int | None = None

    def sort_key(self) -> tuple:
        return (self.path, self.cell or 0, self.line, self.column, self.code, self.message)

    @property
    def location(self) -> str:
        """`path:line:col`, or `path:cell N:line:col` inside a notebook (as ruff prints it)."""
        cell = f"cell {self.cell}:" if self.cell is not None else ""
        return f"{self.path}:{cell}{self.line}:{self.column}"
