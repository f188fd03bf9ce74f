"""The optimisations that reach into libcst's and CPython's internals: one module, one
switch, active only on the versions they were verified on.

- `dataclass_code`: `dataclasses` writes each class's `__init__`, `__repr__`, `__eq__`, ...
  as source text and compiles it when the class is defined (~0.5 ms a class, libcst's node
  classes and gradlint's own). While gradlint's modules and libcst are imported
  (`before_imports`, from `gradlint/__init__.py`, until the engine is loaded:
  `after_imports`), `dataclasses` runs that text through an `exec` that takes the code
  compiled from the very same text from a cache file beside gradlint's bytecode (a text not
  in it is compiled as before; a missing, truncated or foreign file only costs compiling;
  the texts used are written back atomically, where and when Python writes bytecode).
  `dataclasses` itself is imported with `inspect` deferred (it needs it only for the
  signature of a class without a docstring). Afterwards the builtin `exec` is back.
- `constructors`: libcst builds every node of a parse through its frozen dataclass's
  `__init__` (fields set through `object.__setattr__`, then `_validate()`, which is for
  trees built by hand: the native parser builds only what its grammar allows). Each slotted
  node class gets an `__init__` with the same signature and defaults that sets the fields
  through their slot descriptors and validates unless one of gradlint's parses is under way
  (`unvalidated`). Code outside a parse (fixes, other plugins) gets validated nodes.
- `thaw` (with `constructors`): a process that only lints (the CLI's pool workers, its
  forked child) removes the node classes' frozen `__setattr__` / `__delattr__` for good,
  and a parse stores each field as a plain attribute. Once per process, not per parse
  (changing a class's methods invalidates what the interpreter specialised on its type).
- `type_checks`: libcst's node classes are ABCs (none with a registered virtual subclass),
  so each `isinstance` on a node cost a Python-level `ABCMeta.__instancecheck__` call;
  they get `type`'s own checks (a `register` gives a class ABCMeta's back first).
- `hashes`: `CSTNode.__hash__` is a Python function returning `id(self)` (nodes are equal
  only by identity); the node classes get `object`'s C hash, the same equality.

What each buys on three uses (pre-commit on 5 changed files, a CI run of a 100k-line
project, an editor's re-lint of one file) is measured by `benchmarks/speedups_bench.py`
and given in docs/performance.md; each kept pays at least 10 % of one use's time.

The switch: `GRADLINT_NO_SPEEDUPS=1` turns every one off (a comma-separated list of the
names above turns off those). They are on only with the libcst releases and CPython
versions in `VERIFIED_LIBCST` / `VERIFIED_PYTHON`; tests/test_speedups.py fails when the
installed ones are not listed there, so a new release is verified before it is trusted.
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
from pathlib import Path

NAMES = ("dataclass_code", "constructors", "thaw", "type_checks", "hashes")
VERIFIED_LIBCST = ((1, 9),)  # libcst releases (major, minor) whose internals these rely on
VERIFIED_PYTHON = ((3, 11),)  # CPython versions (dataclasses' exec, abc's _get_dump)


def _switched_off(value: str) -> frozenset[str]:
    value = value.strip().lower()
    if value in ("", "0", "false", "no"):
        return frozenset()
    if value in ("1", "true", "yes", "all"):
        return frozenset(NAMES)
    return frozenset(part.strip() for part in value.split(","))


OFF = _switched_off(os.environ.get("GRADLINT_NO_SPEEDUPS", ""))
PYTHON_VERIFIED = sys.version_info[:2] in VERIFIED_PYTHON and sys.implementation.name == "cpython"


def enabled(name: str) -> bool:
    """Whether optimisation `name` runs in this process (libcst-dependent ones: once
    libcst is imported)."""
    if name in OFF or not PYTHON_VERIFIED:
        return False
    if name == "dataclass_code":
        return True
    from libcst import _version

    return tuple(_version.version_tuple[:2]) in VERIFIED_LIBCST


# -- dataclass_code -----------------------------------------------------------------------

CACHE = Path(__file__).parent / "__pycache__" / f"dataclass_code.{sys.implementation.cache_tag}"

# source text -> its code, marshalled: unmarshalled only when used (a run that reads
# every result from the result cache defines a few classes, not libcst's)
_known: dict[str, bytes] = {}
_used: dict[str, bytes] = {}  # what this process compiled or took, by text
_missed: list[str] = []


def compiled(source: str, filename: str = "<string>") -> types.CodeType:
    """`compile(source, filename, "exec", dont_inherit=True)`, from the cache when it has
    that text (the node constructors come through here too, under their own names)."""
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


def install_code_cache() -> None:
    """Compile what `dataclasses` writes through the cache, from now until
    `close_code_cache`."""
    dataclasses = _imported_dataclasses()
    if "exec" in vars(dataclasses):
        return  # installed already (or the module has an `exec` of its own)
    try:
        loaded = marshal.loads(CACHE.read_bytes())
    except Exception:  # missing, unreadable, truncated or of another Python
        loaded = None
    if isinstance(loaded, dict):
        _known.update(loaded)
    dataclasses.exec = _exec


def close_code_cache() -> None:
    """`dataclasses` back to the builtin `exec`; the cache rewritten when it lacked a text
    this process compiled."""
    dataclasses = sys.modules.get("dataclasses")
    if dataclasses is not None and vars(dataclasses).get("exec") is _exec:
        del dataclasses.exec
    if _missed:
        store(CACHE, _used)
    _missed.clear()
    _known.clear()


def store(path: Path, value) -> None:
    """`value` marshalled into the cache file `path` beside gradlint's bytecode, atomically,
    when Python writes bytecode; nothing when it cannot be written."""
    if sys.dont_write_bytecode:
        return
    with contextlib.suppress(OSError, ValueError):
        path.parent.mkdir(exist_ok=True)
        partial = path.with_name(f"{path.name}.{os.getpid()}")
        partial.write_bytes(marshal.dumps(value))
        os.replace(partial, path)


# -- constructors and thaw ----------------------------------------------------------------

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
    parses store fields as plain attributes."""
    if not _frozen or not enabled("thaw"):
        return
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


def _install_constructors(classes: list[type]) -> int:
    """Give each node class its cheaper `__init__`; how many classes got one."""
    import dataclasses

    generated = []
    for cls in classes:
        for name in ("__setattr__", "__delattr__"):
            method = cls.__dict__.get(name)
            if getattr(getattr(method, "__code__", None), "co_filename", None) == "<string>":
                _frozen.append((cls, name, method))  # written by dataclasses
        if "__slots__" not in cls.__dict__ or not dataclasses.is_dataclass(cls):
            continue  # the parser builds only slotted dataclasses
        found = _constructor_source(cls)
        if found is not None:
            generated.append((cls, *found))
    for cls, source, namespace in generated:  # compiled once, then from the code cache
        exec(compiled(source, f"<gradlint.speedups {cls.__name__}>"), namespace)
        function = namespace["__init__"]
        function.__qualname__ = f"{cls.__qualname__}.__init__"
        cls.__init__ = function
    return len(generated)


# -- type checks and hashes ---------------------------------------------------------------


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


# -- entry points -------------------------------------------------------------------------


def before_imports() -> None:
    """At gradlint's import, before libcst's: the dataclass code cache opens."""
    if enabled("dataclass_code"):
        install_code_cache()


def after_imports(classes: list[type]) -> None:
    """Once the engine is loaded (`classes`: libcst's node classes, before any node is
    hashed): type checks, hashes and constructors installed, the code cache closed."""
    if enabled("type_checks"):
        _plain_type_checks(classes)
    if enabled("hashes"):
        _identity_hashes(classes)
    if enabled("constructors"):  # thaw needs them: their stores skip the frozen methods
        _install_constructors(classes)
    close_code_cache()
