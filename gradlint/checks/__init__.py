"""Rule families. Each module here defines `Checker` subclasses; importing the package
registers them all, so a new family needs no edit outside its own module."""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache
from typing import TYPE_CHECKING, ClassVar

import libcst as cst

from gradlint.diagnostic import Fix, Severity, Witness

if TYPE_CHECKING:
    from gradlint.filecontext import FileContext

CHECKERS: list[type[Checker]] = []


class Checker:
    """A visitor for one rule family.

    The engine walks each file once and calls `visit_<Node>` / `leave_<Node>` on every
    checker, with `self.scope` (grad mode, enclosing class and method) already entered
    for the node. Return values are ignored: every checker sees every node.
    """

    codes: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if cls.codes:
            CHECKERS.append(cls)

    def __init__(self, file: FileContext) -> None:
        self.file = file
        self.scope = file.scope
        self.imports = file.imports

    def resolve(self, expr: cst.BaseExpression) -> str | None:
        return self.imports.resolve(expr)

    def report(
        self,
        node: cst.CSTNode,
        code: str,
        message: str,
        *,
        severity: Severity | None = None,
        fix: Fix | None = None,
        witness: Witness | None = None,
        detail: str = "",
    ) -> None:
        """`message`: what is wrong, one line (<= 120 characters); `detail`: why, what
        torch does and the fix. Without `detail` a long message is cut in two (findings.py)."""
        assert code in self.codes, f"{type(self).__name__} does not declare {code}"
        self.file.report(
            node, code, message, severity=severity, fix=fix, witness=witness, detail=detail
        )


def load_checkers() -> list[type[Checker]]:
    """Import every module of this package once; returns the registered checkers."""
    _import_families()
    return CHECKERS


@cache
def _import_families() -> None:
    # Not `if not CHECKERS`: a test importing one family first would hide all the others.
    for info in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{info.name}")


def registered_codes() -> set[str]:
    return {code for checker in load_checkers() for code in checker.codes}
