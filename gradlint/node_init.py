"""libcst's node constructors, made cheaper while gradlint parses a file.

libcst builds every node of a parse by calling its frozen dataclass's `__init__`, which
sets each field through `object.__setattr__` and then validates the node
(`CSTNode.__post_init__` -> `_validate()`). Validation is for trees built by hand: the
native parser only builds what its grammar allows (libcst's own note in
`CSTNode.__post_init__`). Each slotted node class here gets an `__init__` with the same
signature and defaults that sets the fields through their slot descriptors (a third of
the cost of `object.__setattr__`) and validates unless one of gradlint's parses is under
way (`unvalidated`): a tenth of libcst's parse time, the same nodes. Other code in the
process (fixes, other flake8 plugins) builds validated nodes as before. A class whose
`__init__` is not the one `dataclasses` wrote keeps its own. Installing them costs ~16 ms
of compiling once, then their code comes from dataclass_code's cache beside gradlint's
bytecode (node_init installs them before dataclass_code's `finish`).

A process that only lints (a worker of the CLI's pool, its forked child) `thaw`s the
node classes: their frozen `__setattr__` / `__delattr__` go, and a parse stores each
field as a plain attribute store, a sixth of the parse faster again. Not per parse:
changing a class's methods invalidates what the interpreter specialised on its type, a
cost that ate the gain, and Python 3.12+ stops caching a type changed a thousand times.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from gradlint import dataclass_code
from gradlint.analysis.walk import node_classes

# one entry per parse under way, and in `_storing` too once thawed; read by every
# generated __init__
_parsing: list[None] = []
_storing: list[None] = []
_parsing_lock = threading.Lock()
_thawed: list[None] = []
# (class, name, method): the frozen `__setattr__` / `__delattr__` `dataclasses` wrote
_frozen: list[tuple[type, str, object]] = []


@contextmanager
def unvalidated() -> Iterator[None]:
    """Nodes built in this block (in any thread) skip `_validate()`."""
    with _parsing_lock:
        _parsing.append(None)
        _storing.extend(_thawed)
    try:
        yield
    finally:
        with _parsing_lock:
            _parsing.pop()
            del _storing[len(_parsing) :]


def thaw() -> None:
    """In a process that only lints: node classes lose their frozen methods for good, and
    parses store fields as plain attributes."""
    with _parsing_lock:
        if not _thawed:
            for cls, name, _ in _frozen:
                delattr(cls, name)
            _thawed.append(None)
            _storing.extend(_parsing)


class _Factory:
    """The default of a field built by a factory, as `dataclasses` shows it."""

    def __repr__(self) -> str:
        return "<factory>"


_FACTORY = _Factory()


def _generated_source(cls: type) -> tuple[str, dict] | None:
    """The source of an `__init__` equivalent to the one `dataclasses` wrote for `cls`,
    and the names it reads; None when `cls` does not have one or has a field this
    generator does not model."""
    init = cls.__dict__.get("__init__")
    if init is None or getattr(init, "__code__", None) is None:
        return None
    if init.__code__.co_filename != "<string>":  # written by hand, not by dataclasses
        return None
    namespace: dict = {"_parsing": _parsing, "_storing": _storing, "_FACTORY": _FACTORY}
    params, defaults, stores, sets = [], [], [], []
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
        stores.append(f"        self.{name} = {name}")
        sets.append(f"    _set{position}(self, {name})")
    code = init.__code__
    if code.co_varnames[1 : code.co_argcount] != tuple(p.split("=")[0] for p in params):
        return None  # InitVar or other parameters that are not fields
    body = [*defaults, "    if _storing:", *stores, "        return", *sets]
    body.append("    if not _parsing: self.__post_init__()")
    return f"def __init__(self, {', '.join(params)}):\n" + "\n".join(body) + "\n", namespace


def install() -> int:
    """Give each node class its cheaper `__init__`; how many classes got one."""
    generated = []
    for cls in node_classes():
        for name in ("__setattr__", "__delattr__"):
            method = cls.__dict__.get(name)
            if getattr(getattr(method, "__code__", None), "co_filename", None) == "<string>":
                _frozen.append((cls, name, method))  # written by dataclasses
        if "__slots__" not in cls.__dict__ or not dataclasses.is_dataclass(cls):
            continue  # the parser builds only slotted dataclasses
        found = _generated_source(cls)
        if found is not None:
            generated.append((cls, *found))
    for cls, source, namespace in generated:  # compiled once, then from dataclass_code's cache
        exec(dataclass_code.compiled(source, f"<gradlint.node_init {cls.__name__}>"), namespace)
        function = namespace["__init__"]
        function.__qualname__ = f"{cls.__qualname__}.__init__"
        cls.__init__ = function
    return len(generated)
