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
`__init__` is not the one `dataclasses` wrote keeps its own. Installing them costs ~13 ms
once per process (a compile per class: one compile of them all measured slower).
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from gradlint.analysis.walk import node_classes

_parsing: list[None] = []  # one entry per parse under way; read by every generated __init__
_parsing_lock = threading.Lock()


@contextmanager
def unvalidated() -> Iterator[None]:
    """Nodes built in this block (in any thread) skip `_validate()`."""
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


def _generated_init(cls: type):
    """An `__init__` equivalent to the one `dataclasses` wrote for `cls`, or None when
    `cls` does not have one or has a field this generator does not model."""
    init = cls.__dict__.get("__init__")
    if init is None or getattr(init, "__code__", None) is None:
        return None
    if init.__code__.co_filename != "<string>":  # written by hand, not by dataclasses
        return None
    namespace: dict = {"_parsing": _parsing, "_FACTORY": _FACTORY}
    params, body = [], []
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
            body.append(f"    if {name} is _FACTORY: {name} = _factory{position}()")
        else:
            params.append(name)
        body.append(f"    _set{position}(self, {name})")
    code = init.__code__
    if code.co_varnames[1 : code.co_argcount] != tuple(p.split("=")[0] for p in params):
        return None  # InitVar or other parameters that are not fields
    body.append("    if not _parsing: self.__post_init__()")
    source = f"def __init__(self, {', '.join(params)}):\n" + "\n".join(body) + "\n"
    exec(compile(source, f"<gradlint.node_init {cls.__name__}>", "exec"), namespace)
    function = namespace["__init__"]
    function.__qualname__ = f"{cls.__qualname__}.__init__"
    return function


def install() -> int:
    """Give each node class its cheaper `__init__`; how many classes got one."""
    installed = 0
    for cls in node_classes():
        if "__slots__" not in cls.__dict__ or not dataclasses.is_dataclass(cls):
            continue  # the parser builds only slotted dataclasses
        function = _generated_init(cls)
        if function is not None:
            cls.__init__ = function
            installed += 1
    return installed
