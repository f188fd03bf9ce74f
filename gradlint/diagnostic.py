"""The finding a rule reports, and what travels with it."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


class Severity(str, Enum):
    ERROR = "error"  # torch raises at run time
    WARNING = "warning"  # the bug is silent


@dataclass(frozen=True)
class Fix:
    """A textual replacement of the span [start, end) (1-based line/column) by `replacement`."""

    line: int
    column: int
    end_line: int
    end_column: int
    replacement: str
    description: str = ""


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

    def sort_key(self) -> tuple:
        return (self.path, self.line, self.column, self.code, self.message)
