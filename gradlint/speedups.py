"""The optimisations that reach into libcst's internals: one module, one switch, active
only on the libcst and CPython releases they were verified on.

- `constructors`: libcst builds every node of a parse through its frozen dataclass's
  `__init__` (fields set through `object.__setattr__`, then `_validate()`, which is for
  trees built by hand: the native parser builds only what its grammar allows). Each slotted
  node class gets an `__init__` with the same signature and defaults that sets the fields
  through their slot descriptors and validates unless one of gradlint's parses is under way
  (`unvalidated`). Code outside a parse (fixes, other plugins) gets validated nodes.
- `c_slots`: libcst's node classes are ABCs (none with a registered virtual subclass), so
  each `isinstance` on a node cost a Python-level `ABCMeta.__instancecheck__` call, and
  `CSTNode.__hash__` is a Python function returning `id(self)` (nodes are equal only by
  identity). The node classes get `type`'s own checks (a `register` gives a class
  ABCMeta's back first) and `object`'s hash: the same answers from C.

What each buys on three uses (pre-commit on 5 changed files, a CI run of a 100k-line
project, an editor's re-lint of one file) is measured by `benchmarks/speedups_bench.py`
(docs/performance.md has the figures); each kept pays at least 10 % of one use's time.
Two that paid less went: a cache of the code `dataclasses` compiles at import, and the
node classes' frozen `__setattr__` removed in processes that only lint.

The switch: `GRADLINT_NO_SPEEDUPS=1` turns both off (`constructors` or `c_slots` names
one). They are on only with the libcst releases and CPython versions in
`VERIFIED_LIBCST` / `VERIFIED_PYTHON`; tests/test_speedups.py fails when the installed
ones are not listed there, so a new release is verified before it is trusted.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

NAMES = ("constructors", "c_slots")
VERIFIED_LIBCST = ((1, 9),)  # libcst releases (major, minor) whose internals these rely on
VERIFIED_PYTHON = ((3, 11),)  # CPython versions (abc's C implementation, slot descriptors)


def _switched_off(value: str) -> frozenset[str]:
    value = value.strip().lower()
    if value in ("", "0", "false", "no"):
        return frozenset()
    if value in ("1", "true", "yes", "all"):
        return frozenset(NAMES)
    return frozenset(part.strip() for part in value.split(","))


OFF = _switched_off(os.environ.get("GRADLINT_NO_SPEEDUPS", ""))


def enabled(name: str) -> bool:
    """Whether optimisation `name` runs in this process."""
    if name in OFF or sys.implementation.name != "cpython":
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
    import dataclasses

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


def _install_constructors(classes: list[type]) -> int:
    """Give each node class its cheaper `__init__`; how many classes got one."""
    import dataclasses

    generated = []
    for cls in classes:
        if "__slots__" not in cls.__dict__ or not dataclasses.is_dataclass(cls):
            continue  # the parser builds only slotted dataclasses
        found = _constructor_source(cls)
        if found is not None:
            generated.append((cls, *found))
    for cls, source, namespace in generated:
        exec(compile(source, f"<gradlint.speedups {cls.__name__}>", "exec"), namespace)
        function = namespace["__init__"]
        function.__qualname__ = f"{cls.__qualname__}.__init__"
        cls.__init__ = function
    return len(generated)


# -- c_slots ---------------------------------------------------------------


def _plain_checks_class():
    import abc

    class PlainChecks(abc.ABCMeta):
        """ABCMeta with the plain `type` checks: equal to ABCMeta's answers while no
        virtual subclass is registered; `register` gives a class ABCMeta's checks back."""

        __instancecheck__ = type.__instancecheck__
        __subclasscheck__ = type.__subclasscheck__

        def register(cls, subclass: type) -> type:
            cls.__class__ = abc.ABCMeta
            return abc.ABCMeta.register(cls, subclass)

    return PlainChecks


def _plain_type_checks(classes: list[type]) -> None:
    import abc

    registry = getattr(abc, "_get_dump", None)  # CPython's C implementation of abc
    if registry is None:
        return
    plain = _plain_checks_class()
    for kind in classes:
        if type(kind) is abc.ABCMeta and not registry(kind)[0]:  # no virtual subclass
            kind.__class__ = plain


def _identity_hashes(classes: list[type]) -> None:
    import libcst as cst

    python_hash = cst.CSTNode.__hash__
    for kind in classes:
        if kind.__dict__.get("__hash__") is python_hash:
            kind.__hash__ = object.__hash__


# -- entry point --------------------------------------------------------------------------


def install(classes: list[type]) -> None:
    """Once the engine is loaded (`classes`: libcst's node classes, before any node is
    hashed)."""
    if enabled("c_slots"):
        _plain_type_checks(classes)
        _identity_hashes(classes)
    if enabled("constructors"):
        _install_constructors(classes)
