"""The one optimisation that reaches into libcst's internals, with one switch, active only
on the libcst and CPython releases it was verified on.

libcst builds every node of a parse through its frozen dataclass's `__init__` (fields set
through `object.__setattr__`, then `_validate()`, which is for trees built by hand: the
native parser builds only what its grammar allows). Each slotted node class gets an
`__init__` with the same signature and defaults that sets the fields through their slot
descriptors and validates unless one of gradlint's parses is under way (`unvalidated`).
Code outside a parse (fixes, other plugins) gets validated nodes.

What it buys on three uses (pre-commit on 5 changed files, a CI run of a 100k-line
project, an editor's re-lint of one file), measured by `benchmarks/speedups_bench.py`:
6 %, 11 % and 13 % of their CPU time (docs/performance.md). Four others paid under 10 % of
every use and went: a cache of the code `dataclasses` compiles at import, the node
classes' frozen `__setattr__` removed in processes that only lint, and `type`'s own
isinstance checks and `object`'s hash on the node classes.

`GRADLINT_NO_SPEEDUPS=1` turns it off. It is on only with the libcst releases and CPython
versions in `VERIFIED_LIBCST` / `VERIFIED_PYTHON`; tests/test_speedups.py fails when the
installed ones are not listed there, so a new release is verified before it is trusted.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

VERIFIED_LIBCST = ((1, 9),)  # libcst releases (major, minor) whose node classes it rewrites
VERIFIED_PYTHON = ((3, 11),)  # CPython versions (dataclasses' __init__, slot descriptors)
SWITCHED_OFF = os.environ.get("GRADLINT_NO_SPEEDUPS", "").strip().lower() not in ("", "0")


def enabled() -> bool:
    """Whether the node constructors are installed in this process."""
    if SWITCHED_OFF or sys.implementation.name != "cpython":
        return False
    if sys.version_info[:2] not in VERIFIED_PYTHON:
        return False
    from libcst import _version

    return tuple(_version.version_tuple[:2]) in VERIFIED_LIBCST


# -- constructors ----------------------------------------------------------------

# one entry per parse under way; read by every generated __init__
_parsing: list[None] = []
_parsing_lock = threading.Lock()


@contextmanager
def unvalidated() -> Iterator[None]:
    """Nodes built in this block (in any thread) skip `_validate()` (with the constructors
    installed; libcst's own validate as always)."""
    with _parsing_lock:
        _parsing.append(None)
    try:
        yield
    finally:
        with _parsing_lock:
            _parsing.pop()


class _Factory:
    """The default of a field built by a factory, as `dataclasses` shows it."""

    def __repr__(self) -> str:
        return "<factory>"


_FACTORY = _Factory()


def _constructor_source(cls: type) -> tuple[str, dict] | None:
    """The source of an `__init__` equivalent to the one `dataclasses` wrote for `cls`,
    and the names it reads; None when `cls` does not have one or has a field this
    generator does not model."""
    init = cls.__dict__.get("__init__")
    if init is None or getattr(init, "__code__", None) is None:
        return None
    if init.__code__.co_filename != "<string>":  # written by hand, not by dataclasses
        return None
    namespace: dict = {"_parsing": _parsing, "_FACTORY": _FACTORY}
    params, defaults, sets = [], [], []
    for position, field in enumerate(dataclasses.fields(cls)):
        if not field.init or field.kw_only:
            return None
        name = field.name
        slot = next((k.__dict__[name] for k in cls.__mro__ if name in k.__dict__), None)
        if type(slot).__name__ != "member_descriptor":
            return None
        namespace[f"_set{position}"] = slot.__set__
        if field.default is not dataclasses.MISSING:
            namespace[f"_default{position}"] = field.default
            params.append(f"{name}=_default{position}")
        elif field.default_factory is not dataclasses.MISSING:
            namespace[f"_factory{position}"] = field.default_factory
            params.append(f"{name}=_FACTORY")
            defaults.append(f"    if {name} is _FACTORY: {name} = _factory{position}()")
        else:
            params.append(name)
        sets.append(f"    _set{position}(self, {name})")
    code = init.__code__
    if code.co_varnames[1 : code.co_argcount] != tuple(p.split("=")[0] for p in params):
        return None  # InitVar or other parameters that are not fields
    body = [*defaults, *sets]
    body.append("    if not _parsing: self.__post_init__()")
    return f"def __init__(self, {', '.join(params)}):\n" + "\n".join(body) + "\n", namespace


def _install_constructors(classes: list[type]) -> None:
    """Give each slotted node class its cheaper `__init__`."""
    for cls in classes:
        if "__slots__" not in cls.__dict__ or not dataclasses.is_dataclass(cls):
            continue  # the parser builds only slotted dataclasses
        found = _constructor_source(cls)
        if found is None:
            continue
        source, namespace = found
        exec(compile(source, f"<gradlint.speedups {cls.__name__}>", "exec"), namespace)
        function = namespace["__init__"]
        function.__qualname__ = f"{cls.__qualname__}.__init__"
        cls.__init__ = function


# -- entry point --------------------------------------------------------------------------


def install(classes: list[type]) -> None:
    """Once the engine is loaded (`classes`: libcst's node classes)."""
    if enabled():
        _install_constructors(classes)
