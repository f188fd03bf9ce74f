"""The optimisations that reach into CPython's and libcst's internals, with one switch,
active only on the CPython and libcst releases they were verified on.

- The dataclass code cache: `dataclasses` writes each class's `__init__`, `__repr__`,
  `__eq__`, ... as source text and compiles it when the class is defined (~0.1 ms a
  method, 0.1 s of every process for libcst's node classes and gradlint's own: 40 % of
  the start-up). While gradlint's modules and libcst are imported (`before_imports`, from
  `gradlint/__init__.py`, until the engine is loaded: `install`), `dataclasses` runs that
  text through an `exec` that takes the code compiled from the very same text from a
  cache file beside gradlint's bytecode (a text not in it is compiled as before; a
  missing, truncated or foreign file only costs compiling; the texts used are written
  back atomically, where and when Python writes bytecode). `dataclasses` itself is
  imported with `inspect` deferred (it needs it only for the signature of a class without
  a docstring). Afterwards the builtin `exec` is back.
- Node constructors: libcst builds every node of a parse through its frozen dataclass's
  `__init__` (fields set through `object.__setattr__`, then `_validate()`, which is for
  trees built by hand: the native parser builds only what its grammar allows). Each
  slotted node class gets an `__init__` with the same signature and defaults that sets the
  fields through their slot descriptors and validates unless one of gradlint's parses is
  under way (`unvalidated`). Code outside a parse (fixes, other plugins) gets validated
  nodes.
- Thawed node classes: a process that only lints (the CLI's pool workers, its forked
  child: `thaw`) removes the node classes' frozen `__setattr__` / `__delattr__` for good,
  and a parse stores each field as a plain attribute. Once per process, not per parse
  (changing a class's methods invalidates what the interpreter specialised on its type).
- Checks from C: libcst's node classes are ABCs (none with a registered virtual
  subclass), so each `isinstance` on a node (a million in 36 timm files) cost a
  Python-level `ABCMeta.__instancecheck__` call, and `CSTNode.__hash__` is a Python
  function returning `id(self)` (nodes are equal only by identity). The node classes get
  `type`'s own checks (a `register` gives a class ABCMeta's back first) and `object`'s
  hash: the same answers from C.
- Record constructors: the dataflow's values and events are frozen dataclasses, whose
  `__init__` stores each field through `object.__setattr__` (a Tensor, 23 fields: 15 µs,
  a few thousand per file). Each gets an `__init__` with the same signature and defaults
  that stores the instance's `__dict__` whole, in field order (5 µs).

What they buy is measured by `benchmarks/bench.py` (ratios to libcst's parse, start-up
included) and `benchmarks/speedups_bench.py` (pre-commit, CI, editor): docs/performance.md.

`GRADLINT_NO_SPEEDUPS=1` turns them off. They are on only with the CPython versions and
libcst releases in `VERIFIED_PYTHON` / `VERIFIED_LIBCST`; tests/test_speedups.py fails
when the installed ones are not listed there, so a new release is verified before it is
trusted.
"""

from __future__ import annotations

import builtins
import contextlib
import marshal
import os
import sys
import threading
import types
from collections.abc import Iterator
from contextlib import contextmanager

VERIFIED_LIBCST = ((1, 9),)  # libcst releases (major, minor) whose node classes it rewrites
VERIFIED_PYTHON = ((3, 11),)  # CPython versions (dataclasses' exec and __init__, slots)
SWITCHED_OFF = os.environ.get("GRADLINT_NO_SPEEDUPS", "").strip().lower() not in ("", "0")


def python_verified() -> bool:
    """Whether the optimisations may run on this Python (the dataclass code cache needs
    nothing more)."""
    if SWITCHED_OFF or sys.implementation.name != "cpython":
        return False
    return sys.version_info[:2] in VERIFIED_PYTHON


def enabled() -> bool:
    """Whether the node constructors are installed in this process (and may be thawed)."""
    if not python_verified():
        return False
    from libcst import _version

    return tuple(_version.version_tuple[:2]) in VERIFIED_LIBCST


# -- the dataclass code cache -------------------------------------------------------------

CACHE = os.path.join(
    os.path.dirname(__file__), "__pycache__", f"dataclass_code.{sys.implementation.cache_tag}"
)

# source text -> its code, marshalled: unmarshalled only when used; read from CACHE on the
# first class defined (a run that reads every result from the result cache defines a few
# classes, not libcst's)
_known: dict[str, bytes] = {}
_read: list[None] = []  # one entry once CACHE was read
_used: dict[str, bytes] = {}  # what this process compiled or took, by text
_missed: list[str] = []


def compiled(source: str, filename: str = "<string>") -> types.CodeType:
    """`compile(source, filename, "exec", dont_inherit=True)`, from the cache when it has
    that text (the node constructors come through here too, under their own names)."""
    if not _read:
        _read.append(None)
        try:
            with open(CACHE, "rb") as file:
                loaded = marshal.loads(file.read())
        except Exception:  # missing, unreadable, truncated or of another Python
            loaded = None
        if isinstance(loaded, dict):
            _known.update(loaded)
    key = source if filename == "<string>" else f"{filename}\n{source}"
    found = _used.get(key) or _known.get(key)
    code = None
    if found is not None:
        with contextlib.suppress(Exception):  # a foreign entry: compiled anew
            code = marshal.loads(found)
    if not isinstance(code, types.CodeType):
        code = compile(source, filename, "exec", dont_inherit=True)
        found = marshal.dumps(code)
        _missed.append(key)
    _used[key] = found
    return code


def _exec(source, globals=None, locals=None, /) -> None:
    """`exec` for `dataclasses` (which compiles with no flags of its own module)."""
    if not isinstance(source, str):
        return builtins.exec(source, globals, locals)
    return builtins.exec(compiled(source), globals, locals)


class _Deferred(types.ModuleType):
    """What `dataclasses` holds as `inspect` until it uses it: the real module then."""

    def __getattr__(self, name: str):
        if sys.modules.get(self.__name__) is self:
            del sys.modules[self.__name__]
        return getattr(__import__(self.__name__), name)


def _imported_dataclasses() -> types.ModuleType:
    """`dataclasses`, imported with `inspect` deferred when neither is imported yet."""
    if "dataclasses" in sys.modules or "inspect" in sys.modules:
        import dataclasses

        return dataclasses
    stand_in = sys.modules["inspect"] = _Deferred("inspect")
    try:
        import dataclasses
    finally:
        if sys.modules.get("inspect") is stand_in:
            del sys.modules["inspect"]
    return dataclasses


def open_code_cache() -> None:
    """Compile what `dataclasses` writes through the cache, from now until
    `close_code_cache`."""
    dataclasses = _imported_dataclasses()
    if "exec" not in vars(dataclasses):  # else installed already (or its own `exec`)
        dataclasses.exec = _exec


def close_code_cache() -> None:
    """`dataclasses` back to the builtin `exec`; the cache rewritten when it lacked a text
    this process compiled."""
    dataclasses = sys.modules.get("dataclasses")
    if dataclasses is not None and vars(dataclasses).get("exec") is _exec:
        del dataclasses.exec
    if _missed:
        _store(CACHE, _used)
    _missed.clear()
    _known.clear()
    _used.clear()


def _store(path: str, value) -> None:
    """`value` marshalled into the cache file `path` beside gradlint's bytecode, atomically,
    when Python writes bytecode; nothing when it cannot be written."""
    if sys.dont_write_bytecode:
        return
    with contextlib.suppress(OSError, ValueError):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        partial = f"{path}.{os.getpid()}"
        with open(partial, "wb") as file:
            file.write(marshal.dumps(value))
        os.replace(partial, path)


# -- constructors and thaw ----------------------------------------------------------------

# one entry per parse under way, and in `_storing` too once thawed; read by every
# generated __init__
_parsing: list[None] = []
_storing: list[None] = []
_parsing_lock = threading.Lock()
_thawed: list[None] = []
# (class, name): the frozen `__setattr__` / `__delattr__` `dataclasses` wrote
_frozen: list[tuple[type, str]] = []


@contextmanager
def unvalidated() -> Iterator[None]:
    """Nodes built in this block (in any thread) skip `_validate()` (with the constructors
    installed; libcst's own validate as always)."""
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
    parses store fields as plain attributes (with the constructors installed)."""
    with _parsing_lock:
        if _frozen and not _thawed:
            for cls, name in _frozen:
                delattr(cls, name)
            _thawed.append(None)
            _storing.extend(_parsing)


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


def _install_constructors(classes: list[type]) -> None:
    """Give each slotted node class its cheaper `__init__` (compiled once, then from the
    dataclass code cache); note its frozen methods for `thaw`."""
    import dataclasses

    for cls in classes:
        for name in ("__setattr__", "__delattr__"):
            method = cls.__dict__.get(name)
            if getattr(getattr(method, "__code__", None), "co_filename", None) == "<string>":
                _frozen.append((cls, name))  # written by dataclasses
        if "__slots__" not in cls.__dict__ or not dataclasses.is_dataclass(cls):
            continue  # the parser builds only slotted dataclasses
        found = _constructor_source(cls)
        if found is None:
            continue
        source, namespace = found
        exec(compiled(source, f"<gradlint.speedups {cls.__name__}>"), namespace)
        function = namespace["__init__"]
        function.__qualname__ = f"{cls.__qualname__}.__init__"
        cls.__init__ = function


def _record_constructor_source(cls: type) -> tuple[str, dict] | None:
    """The source of an `__init__` equivalent to the one `dataclasses` wrote for the frozen
    dataclass `cls` that stores its `__dict__` whole, and the names it reads; None for a
    class with slots, a `__post_init__`, or a field this generator does not model."""
    import dataclasses

    init = cls.__dict__.get("__init__")
    if getattr(getattr(init, "__code__", None), "co_filename", None) != "<string>":
        return None  # inherited, or written by hand
    if "__slots__" in cls.__dict__ or hasattr(cls, "__post_init__"):
        return None
    namespace: dict = {"_FACTORY": _FACTORY, "_set": object.__setattr__}
    params, defaults, items = [], [], []
    for position, field in enumerate(dataclasses.fields(cls)):
        name = field.name
        if not field.init or field.kw_only or name.startswith("_"):  # (the function's names)
            return None
        if field.default is not dataclasses.MISSING:
            namespace[f"_default{position}"] = field.default
            params.append(f"{name}=_default{position}")
        elif field.default_factory is not dataclasses.MISSING:
            namespace[f"_factory{position}"] = field.default_factory
            params.append(f"{name}=_FACTORY")
            defaults.append(f"    if {name} is _FACTORY: {name} = _factory{position}()")
        else:
            params.append(name)
        items.append(f"{name!r}: {name}")
    code = init.__code__
    if code.co_varnames[1 : code.co_argcount] != tuple(p.split("=")[0] for p in params):
        return None  # InitVar or other parameters that are not fields
    body = [*defaults, f"    _set(self, '__dict__', {{{', '.join(items)}}})"]
    return f"def __init__(self, {', '.join(params)}):\n" + "\n".join(body) + "\n", namespace


def _install_record_constructors(classes: list[type]) -> None:
    """Give each frozen dataclass among `classes` its cheaper `__init__`."""
    for cls in classes:
        params = getattr(cls, "__dataclass_params__", None)
        if params is None or not params.frozen:
            continue
        found = _record_constructor_source(cls)
        if found is None:
            continue
        source, namespace = found
        exec(compiled(source, f"<gradlint.speedups {cls.__qualname__}>"), namespace)
        function = namespace["__init__"]
        function.__qualname__ = f"{cls.__qualname__}.__init__"
        cls.__init__ = function


# -- checks from C -----------------------------------------------------------------------


def _plain_checks_class() -> type:
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


# -- entry points -------------------------------------------------------------------------


def before_imports() -> None:
    """At gradlint's import, before libcst's: the dataclass code cache opens."""
    if python_verified():
        open_code_cache()


def install(classes: list[type], records: list[type]) -> None:
    """Once the engine is loaded (`classes`: libcst's node classes, before any node is
    built or hashed; `records`: the analysis's classes, its frozen dataclasses among
    them): checks and constructors installed, the dataclass code cache closed."""
    if enabled():
        _plain_type_checks(classes)
        _identity_hashes(classes)
        _install_constructors(classes)
        _install_record_constructors(records)
    close_code_cache()
