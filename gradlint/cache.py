"""The result cache: a file already linted with the same gradlint, settings and content
costs a hash and a read.

One JSON entry per file under `<cache-dir>/v2/<2 hex>/<key>`, where the key hashes:
gradlint's version and a fingerprint of its code and rule catalogue (an edited checkout
never serves stale results), the file's effective settings, its path (findings carry it,
`per-file-ignores` match it), its bytes, and `index_key(path, source)`: the paths and
bytes of the project files it imports (project.py), whose definitions its analysis
reads, and of those naming its functions (callers.py), whose calls say in which grad
mode the functions run. Entries are written atomically (a temporary file renamed over
the entry), so concurrent runs never read a half-written one. An entry is served only
when it names the request (the file's path, the hash of its bytes and of the project
files its findings depend on, the hash of the settings and gradlint's code) and every
field of every finding has its declared type: an entry copied under another file's key,
or one with `"line": "abc"`, is a miss. JSON, not pickle: a cache directory checked into
a repository must not be able to run code. (Whoever can write the directory can still
forge a well-formed entry for a request: it holds no secret.)

The directory holds a `CACHEDIR.TAG` (backup tools skip it) and a `.gitignore` of `*`.
"""

from __future__ import annotations

import dataclasses
import json
import os
from enum import Enum
from functools import cache
from pathlib import Path

from gradlint import __version__, callers, project
from gradlint.config import Config
from gradlint.diagnostic import Applicability, Diagnostic, Edit, Fix, Severity, Witness

try:  # CPython's own BLAKE2: importing hashlib loads OpenSSL, 2.5 ms of a 60 ms warm run
    from _blake2 import blake2b
except ImportError:
    from hashlib import blake2b


def hashed(data: bytes = b"") -> blake2b:
    """A 256-bit BLAKE2b hash of `data` (four times SHA-256's speed without OpenSSL)."""
    return blake2b(data, digest_size=32)


SCHEMA = "v2"
NO_CACHE_ENV = "GRADLINT_NO_CACHE"
CACHEDIR_TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by gradlint.\n"
    "# For information about cache directory tags see https://bford.info/cachedir/\n"
)
# What a field's annotation may name, and how a decoded value is checked against it.
_KINDS = {
    "int": int,
    "str": str,
    "dict": dict,
    "None": type(None),
    **{cls.__name__: cls for cls in (Diagnostic, Fix, Edit, Witness, Severity, Applicability)},
}


def index_key(path: str, source: bytes) -> bytes:
    """Key material from other files that `path`'s findings depend on: the project files
    it imports, transitively (project.index_key), and those naming its functions, whose
    calls say in which grad mode they run (callers.key)."""
    return project.index_key(path, source) + b"\0callers\0" + callers.key(path, source)


@cache
def code_fingerprint() -> str:
    """gradlint's version, and the size and mtime of every file of its package and rule
    catalogue: editing a checker or a rule doc invalidates every entry."""
    from gradlint.catalogue import catalogue_dir

    digest = hashed(__version__.encode())
    package = Path(__file__).parent
    for root in (package, catalogue_dir()):
        found = []
        for directory, subdirectories, names in os.walk(root):
            subdirectories[:] = [d for d in subdirectories if d != "__pycache__"]
            relative = os.path.relpath(directory, root)
            found += [
                (os.path.normpath(os.path.join(relative, name)), os.path.join(directory, name))
                for name in names
                if name.endswith((".py", ".json", ".md"))
            ]
        for name, path in sorted(found):
            stat = os.stat(path)
            digest.update(f"{name}:{stat.st_size}:{stat.st_mtime_ns};".encode())
    return digest.hexdigest()


def enabled() -> bool:
    return not os.environ.get(NO_CACHE_ENV)


@dataclasses.dataclass(frozen=True)
class EntryKey:
    """What names one entry: its file name (`name`), and the request it must match."""

    name: str
    path: str
    source_hash: str
    index_hash: str  # of index_key: the project files the file imports


class ResultCache:
    """The cache of one run's settings in `directory`."""

    def __init__(self, directory: Path, config: Config) -> None:
        self.directory = directory / SCHEMA
        settings = repr(dataclasses.replace(config, cache_dir=None))
        self._run_key = hashed(f"{code_fingerprint()}\0{settings}".encode()).digest()
        self._prepared = False

    def key(self, path: str, source: bytes) -> EntryKey:
        source_hash = hashed(source).digest()
        index = index_key(path, source)
        digest = hashed(self._run_key)
        for part in (os.fsencode(path), source_hash, index):
            digest.update(len(part).to_bytes(8, "little"))
            digest.update(part)
        return EntryKey(digest.hexdigest(), path, source_hash.hex(), hashed(index).hexdigest())

    def _entry(self, key: EntryKey) -> Path:
        return self.directory / key.name[:2] / key.name

    def _request(self, key: EntryKey) -> dict:
        """What an entry records of the request it answers (`get` compares it)."""
        return {
            "path": key.path,
            "source": key.source_hash,
            "imports": key.index_hash,
            "settings": self._run_key.hex(),
        }

    def get(self, key: EntryKey) -> list[Diagnostic] | None:
        """The findings stored under `key`, or None: absent, unreadable, corrupt, made for
        another request, or a field of the wrong type."""
        try:
            entry = json.loads(self._entry(key).read_bytes())
            if not isinstance(entry, dict) or entry.get("request") != self._request(key):
                return None
            found = entry["diagnostics"]
            if not isinstance(found, list):
                return None
            diagnostics = [_decode_as(Diagnostic, item) for item in found]
        except (OSError, ValueError, TypeError, KeyError, RecursionError):
            return None
        return diagnostics if all(d.path == key.path for d in diagnostics) else None

    def put(self, key: EntryKey, diagnostics: list[Diagnostic]) -> None:
        """Store atomically; a cache that cannot be written is silently skipped."""
        import tempfile  # 5 ms to import: not in a run that only reads the cache

        entry = self._entry(key)
        try:
            self._prepare()
            entry.parent.mkdir(exist_ok=True)
            data = json.dumps(
                {"request": self._request(key), "diagnostics": [_encode(d) for d in diagnostics]}
            ).encode()
            handle, temporary = tempfile.mkstemp(dir=entry.parent, prefix=".tmp-")
            try:
                with os.fdopen(handle, "wb") as file:
                    file.write(data)
                os.replace(temporary, entry)
            except BaseException:
                os.unlink(temporary)
                raise
        except (OSError, TypeError, ValueError):
            pass

    def _prepare(self) -> None:
        if self._prepared:
            return
        root = self.directory.parent
        self.directory.mkdir(parents=True, exist_ok=True)
        for name, text in (("CACHEDIR.TAG", CACHEDIR_TAG), (".gitignore", "*\n")):
            marker = root / name
            if not marker.exists():
                marker.write_text(text)
        self._prepared = True


def _encode(value):
    if dataclasses.is_dataclass(value):
        fields = {f.name: _encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return {"__type__": type(value).__name__, **fields}
    if isinstance(value, Enum):
        return {"__enum__": type(value).__name__, "value": value.value}
    if isinstance(value, list | tuple):
        return [_encode(item) for item in value]
    if isinstance(value, dict):
        return {key: _encode(item) for key, item in value.items()}
    if value is None or isinstance(value, str | int | float | bool):
        return value
    raise TypeError(f"cannot cache a {type(value).__name__}")


class _Invalid(ValueError):
    """An entry's value does not have the type its field declares."""


def _decode_as(kind: type, value):
    """The dataclass `kind` from its encoding, every field present and of the type its
    annotation names (an int is not a bool); _Invalid otherwise."""
    if not isinstance(value, dict) or value.get("__type__") != kind.__name__:
        raise _Invalid(kind.__name__)
    types = _field_types(kind)
    if value.keys() - {"__type__"} != types.keys():
        raise _Invalid(kind.__name__)
    return kind(**{name: _decode_field(types[name], value[name]) for name in types})


def _decode_field(alternatives: tuple, value):
    for kind in alternatives:
        if isinstance(kind, tuple):  # ("tuple", item kind): a tuple encoded as a list
            if isinstance(value, list):
                return tuple(_decode_as(kind[1], item) for item in value)
        elif dataclasses.is_dataclass(kind):
            if isinstance(value, dict) and value.get("__type__") == kind.__name__:
                return _decode_as(kind, value)
        elif issubclass(kind, Enum):
            if isinstance(value, dict) and value.get("__enum__") == kind.__name__:
                return kind(value["value"])
        elif isinstance(value, kind) and not isinstance(value, bool):
            if kind is dict and not all(isinstance(key, str) for key in value):
                continue
            return value
    raise _Invalid(str(alternatives))


@cache
def _field_types(kind: type) -> dict[str, tuple]:
    """Each field of the dataclass `kind` and the types its annotation (a string: `int`,
    `Fix | None`, `tuple[Edit, ...]`) allows."""
    types = {}
    for field in dataclasses.fields(kind):
        alternatives = []
        for name in str(field.type).split(" | "):
            if name.startswith("tuple[") and name.endswith(", ...]"):
                alternatives.append(("tuple", _KINDS[name[len("tuple[") : -len(", ...]")]]))
            else:
                alternatives.append(_KINDS[name])
        types[field.name] = tuple(alternatives)
    return types
