"""The result cache: a file already linted with the same gradlint, settings and content
costs a hash and a read.

One JSON entry per file under `<cache-dir>/v1/<2 hex>/<key>`, where the key hashes:
gradlint's version and a fingerprint of its code and rule catalogue (an edited checkout
never serves stale results), the file's effective settings, its path (findings carry it,
`per-file-ignores` match it), its bytes, and `index_key(path)`, the hook for facts that
come from other files (empty while every rule looks at one file). Entries are written
atomically (a temporary file renamed over the entry), so concurrent runs never read a
half-written one; an entry that does not decode is a miss. JSON, not pickle: a cache
directory checked into a repository must not be able to run code.

The directory holds a `CACHEDIR.TAG` (backup tools skip it) and a `.gitignore` of `*`.
"""

from __future__ import annotations

import dataclasses
import json
import os
from enum import Enum
from functools import cache
from pathlib import Path

from gradlint import __version__
from gradlint.config import Config
from gradlint.diagnostic import Applicability, Diagnostic, Edit, Fix, Severity, Witness

try:  # CPython's own BLAKE2: importing hashlib loads OpenSSL, 2.5 ms of a 60 ms warm run
    from _blake2 import blake2b
except ImportError:
    from hashlib import blake2b


def hashed(data: bytes = b"") -> blake2b:
    """A 256-bit BLAKE2b hash of `data` (four times SHA-256's speed without OpenSSL)."""
    return blake2b(data, digest_size=32)


SCHEMA = "v1"
NO_CACHE_ENV = "GRADLINT_NO_CACHE"
CACHEDIR_TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by gradlint.\n"
    "# For information about cache directory tags see https://bford.info/cachedir/\n"
)
_TYPES = {cls.__name__: cls for cls in (Diagnostic, Fix, Edit, Witness)}
_ENUMS = {cls.__name__: cls for cls in (Severity, Applicability)}


def index_key(path: str) -> bytes:
    """Key material from other files that `path`'s findings depend on (a summary of the
    modules it imports, once rules look across files); today no rule does."""
    return b""


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


class ResultCache:
    """The cache of one run's settings in `directory`."""

    def __init__(self, directory: Path, config: Config) -> None:
        self.directory = directory / SCHEMA
        settings = repr(dataclasses.replace(config, cache_dir=None))
        self._run_key = hashed(f"{code_fingerprint()}\0{settings}".encode()).digest()
        self._prepared = False

    def key(self, path: str, source: bytes) -> str:
        digest = hashed(self._run_key)
        for part in (os.fsencode(path), hashed(source).digest(), index_key(path)):
            digest.update(len(part).to_bytes(8, "little"))
            digest.update(part)
        return digest.hexdigest()

    def _entry(self, key: str) -> Path:
        return self.directory / key[:2] / key

    def get(self, key: str) -> list[Diagnostic] | None:
        """The findings stored under `key`, or None (absent, unreadable or corrupt)."""
        try:
            found = [_decode(item) for item in json.loads(self._entry(key).read_bytes())]
        except (OSError, ValueError, TypeError, KeyError, AttributeError, RecursionError):
            return None
        return found if all(isinstance(d, Diagnostic) for d in found) else None

    def put(self, key: str, diagnostics: list[Diagnostic]) -> None:
        """Store atomically; a cache that cannot be written is silently skipped."""
        import tempfile  # 5 ms to import: not in a run that only reads the cache

        entry = self._entry(key)
        try:
            self._prepare()
            entry.parent.mkdir(exist_ok=True)
            data = json.dumps([_encode(d) for d in diagnostics]).encode()
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


def _decode(value):
    if isinstance(value, list):
        return tuple(_decode(item) for item in value)
    if not isinstance(value, dict):
        return value
    if "__enum__" in value:
        return _ENUMS[value["__enum__"]](value["value"])
    fields = {key: _decode(item) for key, item in value.items() if key != "__type__"}
    if "__type__" in value:
        return _TYPES[value["__type__"]](**fields)
    return fields
