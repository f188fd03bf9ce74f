"""The code `dataclasses` writes for a class, compiled once rather than in every process.

`dataclasses` writes each class's `__init__`, `__repr__`, `__eq__`, ... as source text
and compiles it when the class is defined: ~0.5 ms a class, 70 ms of every gradlint
process for libcst's node classes and gradlint's own (libcst's import: 0.17 s of CPU,
0.10 s with this). While gradlint's modules and libcst are imported (`install`, from
`gradlint/__init__.py`, until the engine is loaded: `finish`), the `dataclasses` module
runs that text through an `exec` that takes the code already compiled from the very
same text (the same code object `compile` returns) from a cache file beside gradlint's
bytecode. A text not in it is compiled as before, and `finish` writes the texts this
process used, atomically, where and when Python writes bytecode. A missing, truncated or
foreign cache file only costs the compiling. Afterwards `dataclasses` uses the builtin
`exec` again: other code of the process is left as it was.

`dataclasses` itself is imported with `inspect` deferred (`_imported_dataclasses`): it
uses inspect only for the signature of a class without a docstring, and importing it
(ast, dis, tokenize, ...) costs 7 ms, an eighth of a run that reads every result from the
result cache. The rest of the process imports the real `inspect` as usual.
"""

from __future__ import annotations

import builtins
import contextlib
import marshal
import os
import sys
import types
from pathlib import Path

CACHE = Path(__file__).parent / "__pycache__" / f"dataclass_code.{sys.implementation.cache_tag}"

# source text -> its code, marshalled: unmarshalled only when used (a run that reads
# every result from the result cache defines a few classes, not libcst's)
_known: dict[str, bytes] = {}
_used: dict[str, bytes] = {}  # what this process compiled or took, by text
_missed: list[str] = []


def compiled(source: str, filename: str = "<string>") -> types.CodeType:
    """`compile(source, filename, "exec", dont_inherit=True)`, from the cache when it has
    that text (node_init's constructors come through here too, under their own names)."""
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


def install() -> None:
    """Compile what `dataclasses` writes through the cache, from now until `finish`."""
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


def finish() -> None:
    """`dataclasses` back to the builtin `exec`; the cache rewritten when it lacked a text
    this process compiled."""
    dataclasses = sys.modules["dataclasses"]
    if vars(dataclasses).get("exec") is _exec:
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
