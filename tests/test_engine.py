import ast
import subprocess
import sys
import textwrap
from contextlib import contextmanager

import libcst as cst
import pytest
from conftest import codes, lint

from gradlint.analysis.context import ClassKind, literal_value
from gradlint.config import Config
from gradlint.engine import (
    LONG_FSTRING,
    _long_fstrings_blanked,
    imports_torch,
    lint_source,
    parse,
)
from gradlint.filecontext import FileContext


def _index(source):
    module = parse("m.py", textwrap.dedent(source))
    return FileContext("m.py", module, Config()).index


def test_class_kinds_through_aliases_and_local_subclassing():
    index = _index(
        """
        import torch
        from torch import nn as tnn
        from torch.autograd import Function as Fn
        import torch.optim as optim

        class A(tnn.Module): ...
        class B(A): ...
        class C(torch.nn.Linear): ...
        class D(Fn): ...
        class E(optim.Optimizer): ...
        class F(SomethingElse): ...
        class G: ...
        """
    )
    kinds = {name: info.kind for name, info in index.by_name.items()}
    assert kinds == {
        "A": ClassKind.MODULE,
        "B": ClassKind.MODULE,
        "C": ClassKind.MODULE,
        "D": ClassKind.AUTOGRAD_FUNCTION,
        "E": ClassKind.OPTIMIZER,
        "F": ClassKind.UNKNOWN,
        "G": ClassKind.PLAIN,
    }


def test_file_without_torch_is_not_parsed():
    assert lint_source("x.py", b"def f(:\n").diagnostics == []


@pytest.mark.parametrize(
    "source",
    [
        b"import torch\n",
        b"  import torch.nn as nn\n",
        b"from torch import nn\n",
        b"import os, torch\n",
        b"import numpy as np, torchvision\n",
        b"x = 1; import torch\n",
        b"\xef\xbb\xbfimport torch\n",
        b"\x0cimport torch\n",
        b"if ok:\n    from torch.nn import functional as F\n",
        b"try: import torch\nexcept ImportError: pass\n",
        b"import os, \\\n    torch\n",
        b"from \\\n    torch import nn\n",
        b"import os\rimport torch\r",
    ],
)
def test_prefilter_passes_files_importing_torch(source):
    assert imports_torch(source)


@pytest.mark.parametrize(
    "source",
    [
        b"# import torch\n",
        b"x = 'torch'\n",
        b"from transformers.utils import is_torch_available\n",
        b"import os  # torch\n",
        b"from .torch_utils import pad\n",
        b"import os\ntorch = None\n",
        b"import mytorch\n",
    ],
)
def test_prefilter_skips_files_only_mentioning_torch(source):
    assert not imports_torch(source)
    assert lint_source("x.py", source + b"def f(:\n").diagnostics == []


def test_syntax_error_is_gl001_with_line():
    (finding,) = lint("import torch\nx = 1\ndef f(:\n    pass\n")
    assert (finding.code, finding.line) == ("GL001", 3)


def test_bad_inputs_never_crash():
    for source in (
        b"import torch\n\0\n",
        b"import torch\nx = '\xe9'\n",
        b"\xef\xbb\xbfimport torch\r\nx = 1\r\n",
        b"import torch\n" + b"x = " + b"(" * 3000 + b")" * 3000 + b"\n",
        b"",
        b"# -*- coding: bogus -*-\nimport torch\n",
    ):
        result = lint_source("x.py", source)
        assert not result.internal_errors
        assert all(d.code == "GL001" for d in result.diagnostics)


_LONG_TEXT = "word {x} " * (LONG_FSTRING // 8)


def test_long_fstrings_are_blanked_for_cpythons_check_only():
    """Python 3.11 checks an f-string in quadratic time: CPython's check gets a copy with
    long f-strings blanked, same length and lines; libcst still parses the f-string."""
    source = f'import torch\nx = torch.ones(3)\ns = f"{_LONG_TEXT}"\nt = rf"""{_LONG_TEXT}\n"""\n'
    blanked = _long_fstrings_blanked(source.encode())
    assert len(blanked) == len(source) and blanked.count(b"\n") == source.count("\n")
    assert b"{x}" not in blanked and b's = f"' in blanked and b't = rf"""' in blanked
    assert lint_source("x.py", source).diagnostics == []


def test_long_fstrings_kept_when_unsure():
    deep = 'x = f"' + "{" + "(" * 30 + "1" + ")" * 30 + "}" + "a" * LONG_FSTRING + '"\n'
    unterminated = 'x = f"' + "a" * LONG_FSTRING + "\n"
    in_a_string = "x = \"f'" + "a" * LONG_FSTRING + '"\n'
    for source in (deep, unterminated, in_a_string):
        assert _long_fstrings_blanked(source.encode()) == source.encode()


def test_errors_in_and_around_long_fstrings_are_still_gl001():
    broken_inside = f'import torch\ns = f"{_LONG_TEXT}{{a b}}"\n'
    (finding,) = lint(broken_inside)
    assert (finding.code, finding.line) == ("GL001", 2)
    assert "Python accepts" not in finding.message  # CPython's own verdict on the whole file
    rejected_by_cpython = f'import torch\ns = f"{_LONG_TEXT}"\nf() = 1\n'
    (finding,) = lint(rejected_by_cpython)
    assert (finding.code, finding.line) == ("GL001", 3)


def test_select_and_ignore():
    source = """
        import torch.nn as nn
        class M(nn.Module):
            def backward(self, grad_output):
                return grad_output
        """
    assert codes(source) == ["GL303"]
    assert codes(source, Config(ignore=("GL3",))) == []
    assert codes(source, Config(ignore=("GL3",), select=("GL303",))) == ["GL303"]


def test_static_mode_never_imports_torch_nor_runs_the_file(tmp_path):
    marker = tmp_path / "marker"
    target = tmp_path / "model.py"
    target.write_text(f"import torch\nopen({str(marker)!r}, 'w').write('ran')\n")
    probe = (
        "import sys\nfrom gradlint.cli import main\n"
        f"main([{str(target)!r}])\n"
        "assert 'torch' not in sys.modules, 'torch was imported'\n"
    )
    subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True)
    assert not marker.exists()


def test_syntax_newer_than_the_interpreter_is_still_linted():
    source = """
        import torch.nn as nn

        type Shape = tuple[int, ...]

        class M(nn.Module):
            def backward(self, grad_output):
                return grad_output
        """
    assert codes(source) == ["GL303"]


def test_literal_values_read_without_compiling_match_python():
    spellings = ["0", "00", "42", "0x1F", "1_000", "1.5", "2e-3", "3j", '"cpu"', "'x'", '""']
    spellings += ['"""doc\nstring"""', "'''a'''", '"a\\nb"', 'b"x"', 'r"\\d"', '"""a\r\nb"""']
    for text in spellings:
        value = literal_value(cst.parse_expression(text))
        assert (value, type(value)) == (ast.literal_eval(text), type(ast.literal_eval(text)))


def test_bytes_that_are_not_utf8_in_comments_are_read_as_python_reads_them():
    """CPython 3.11 accepts them in comments (a mutant the long fuzz run found: a flipped
    byte in `# mypy: ...`); libcst's decoder does not, so they are read as U+FFFD."""
    source = b"#\x80mypy: allow-untyped-defs\nimport torch\n# \xff\n"
    source += b"x = torch.zeros(3, requires_grad=True)\nx.add_(1)\n"
    assert [d.code for d in lint_source("x.py", source).diagnostics] == ["GL101"]
    assert [d.code for d in lint_source("x.py", b'import torch\nx = "\x80"\n').diagnostics] == [
        "GL001"
    ]


RICH_SOURCE = '''\
import torch, torch.nn as nn
from . import x as y
@decorate(1, *a, k=2, **kw)
class M(nn.Module, metaclass=Meta):
    """Doc."""
    total: int = 0
    def __init__(self, /, a, *args, b: "int" = 1, **kwargs) -> None:
        super().__init__(); self.w = nn.Parameter(torch.zeros(3)); global G; G = a
    async def f(self, x):
        async with ctx() as (p, q), other():
            async for i in aiter():
                await g(i)
        nonlocal_free = lambda z, *, k=0: z[1:2, ::3, ...] @ x ** -k
        return [i async for i in h() if i] or {k: v for k, v in d.items()} and {*s}
    def g(self, x):
        if (n := len(x)) > 1 and not x is None or x in (1,) != 2: x += 1; x[0] |= 2
        elif x: del x[0]
        else: pass
        try: raise ValueError("m") from None
        except* (TypeError, KeyError) as group: ...
        finally: assert x, f"{x!r:>{n}} {x=}"
        while True: break
        else: return
        match x:
            case [1, *rest] | [2, *rest] if rest: yield from rest
            case {"k": _, **others}: yield others
            case Point(x=0, y=b"\\x00") as p: yield p
            case _: return -x if x else ~x
        with open("f") as fh: print(*fh, sep="", end=r"\\n")
'''


def _printed(script: str) -> subprocess.CompletedProcess:
    """`script` run in a fresh Python on RICH_SOURCE as its stdin."""
    command = [sys.executable, "-c", script]
    return subprocess.run(command, input=RICH_SOURCE, capture_output=True, text=True)


LIBCSTS_OWN = "import libcst, sys; print(repr(libcst.parse_module(sys.stdin.read())))"


def test_nodes_built_during_a_parse_equal_libcsts_own():
    """gradlint's node constructors (speedups) build the trees libcst's own build."""
    module = parse("m.py", RICH_SOURCE)
    assert isinstance(module, cst.Module) and module.code == RICH_SOURCE
    assert repr(module) + "\n" == _printed(LIBCSTS_OWN).stdout


def test_nodes_built_in_a_thawed_process_equal_libcsts_own():
    """A process that only lints (speedups.thaw) stores fields as plain attributes."""
    thawed = _printed(
        "import sys, libcst\n"
        "from gradlint import engine, speedups\n"
        "speedups.thaw()\n"
        "module = engine.parse('m.py', sys.stdin.read())\n"
        "try:\n"
        "    libcst.Name('1x')\n"
        "except libcst.CSTValidationError:\n"  # nodes built outside a parse: validated
        "    print(repr(module))\n"
    )
    assert thawed.returncode == 0, thawed.stderr
    assert thawed.stdout == _printed(LIBCSTS_OWN).stdout != ""


@pytest.fixture
def code_cache(tmp_path, monkeypatch):
    """The dataclass code cache with an empty file of its own in tmp_path, written as
    bytecode is."""
    from gradlint import speedups

    for name in ("_known", "_used"):
        monkeypatch.setattr(speedups, name, {})
    monkeypatch.setattr(speedups, "_read", [])
    monkeypatch.setattr(speedups, "CACHE", str(tmp_path / "dataclass_code.cache"))
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    return speedups


@contextmanager
def _compiling_refused():
    """`compile` raises while inside: what runs must come from the cache."""
    import builtins

    def refused(*args, **kwargs):
        raise AssertionError("compiled again")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(builtins, "compile", refused)
        yield


def _reopened(code_cache, monkeypatch) -> None:
    """The state of a new process: the cache file not read yet, nothing used."""
    monkeypatch.setattr(code_cache, "_read", [])
    monkeypatch.setattr(code_cache, "_used", {})


def test_constructors_are_compiled_once_under_their_own_names(code_cache, monkeypatch):
    """The node constructors go through the dataclass code cache, keyed by name and text."""
    source = "def __init__(self, value):\n    self.value = value\n"
    first = code_cache.compiled(source, "<gradlint.speedups Name>")
    assert first.co_filename == "<gradlint.speedups Name>"
    assert code_cache.compiled(source).co_filename == "<string>"  # another entry
    code_cache.close_code_cache()
    _reopened(code_cache, monkeypatch)
    with _compiling_refused():
        code_cache.open_code_cache()
        assert code_cache.compiled(source, "<gradlint.speedups Name>") == first
        code_cache.close_code_cache()


def _define_point():
    import dataclasses

    @dataclasses.dataclass(frozen=True)
    class Point:
        x: int
        y: int = 2

    assert Point(1) == Point(1, 2) != Point(2) and repr(Point(1)).endswith("Point(x=1, y=2)")
    with pytest.raises(dataclasses.FrozenInstanceError):
        Point(1).x = 3  # type: ignore[misc]
    return Point


def test_dataclass_code_is_compiled_once_and_a_broken_cache_is_ignored(code_cache, monkeypatch):
    import dataclasses
    import os

    assert "exec" not in vars(dataclasses)  # the engine is loaded: the builtin one
    code_cache.open_code_cache()
    first = _define_point()
    code_cache.close_code_cache()
    assert "exec" not in vars(dataclasses) and os.path.isfile(code_cache.CACHE)
    assert first.__init__.__code__.co_filename == "<string>"  # as dataclasses names it
    _reopened(code_cache, monkeypatch)
    with _compiling_refused():
        code_cache.open_code_cache()
        again = _define_point()
        code_cache.close_code_cache()
    assert again.__init__.__code__ == first.__init__.__code__
    with open(code_cache.CACHE, "rb") as file:
        head = file.read()[:40]
    with open(code_cache.CACHE, "wb") as file:
        file.write(head)  # truncated
    _reopened(code_cache, monkeypatch)
    code_cache.open_code_cache()
    _define_point()
    code_cache.close_code_cache()
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    os.unlink(code_cache.CACHE)
    _reopened(code_cache, monkeypatch)
    code_cache.open_code_cache()
    _define_point()
    code_cache.close_code_cache()
    assert not os.path.exists(code_cache.CACHE)


def test_dataclasses_keeps_the_builtin_exec_once_the_engine_is_loaded():
    loaded = _printed("import dataclasses, gradlint.engine; print('exec' in vars(dataclasses))")
    assert loaded.stdout == "False\n", loaded.stderr


def test_nodes_built_outside_a_parse_are_validated_and_keep_their_signature():
    import dataclasses
    import inspect

    from gradlint import speedups

    with pytest.raises(cst.CSTValidationError):
        cst.Name("1x")
    with speedups.unvalidated():
        assert cst.Name("1x").value == "1x"
    with pytest.raises(cst.CSTValidationError):
        cst.Name("1x")
    with pytest.raises(dataclasses.FrozenInstanceError):
        cst.Name("x").value = "y"  # not thawed: frozen
    assert cst.Name("x", lpar=[cst.LeftParen()], rpar=[cst.RightParen()]).lpar
    dot = cst.Attribute(cst.Name("a"), cst.Name("b")).dot  # a field built by a factory
    assert dot.whitespace_before.deep_equals(cst.SimpleWhitespace(""))
    for cls in (cst.FunctionDef, cst.Call, cst.Attribute, cst.Name, cst.Subscript):
        fields = [f for f in dataclasses.fields(cls) if f.init]
        params = list(inspect.signature(cls).parameters.values())
        assert [p.name for p in params] == [f.name for f in fields]
        for param, field in zip(params, fields, strict=True):
            if field.default is not dataclasses.MISSING:
                assert param.default is field.default
            elif field.default_factory is not dataclasses.MISSING:
                assert repr(param.default) == "<factory>"
            else:
                assert param.default is inspect.Parameter.empty


def _torch_model_code(size: int) -> bytes:
    """The installed torch's nn/modules sources (found without importing torch) in one
    file of at least `size` bytes, `from __future__` imports dropped."""
    import importlib.util
    from pathlib import Path

    spec = importlib.util.find_spec("torch")
    modules = Path(next(iter(spec.submodule_search_locations))) / "nn" / "modules"
    parts, total = [], 0
    for path in sorted(modules.glob("*.py")):
        text = path.read_text().replace("from __future__ import annotations\n", "")
        parts.append(text.rstrip("\n") + "\n")
        total += len(parts[-1])
        if total >= size:
            break
    return "".join(parts).encode()


@pytest.fixture(scope="module")
def big_file():
    from gradlint.engine import CHUNKED_PARSE_BYTES

    return _torch_model_code(2 * CHUNKED_PARSE_BYTES)


def test_a_big_file_is_parsed_in_chunks_into_libcsts_own_tree(big_file):
    """Its chunks joined are the tree libcst builds of the whole file (deep_equals), so
    its code and every position are the same."""
    from gradlint.engine import _parse_in_chunks
    from gradlint.guard import deep_call

    chunked = deep_call(lambda: _parse_in_chunks(big_file))
    assert isinstance(chunked, cst.Module)
    whole = deep_call(lambda: cst.parse_module(big_file))
    assert deep_call(lambda: whole.deep_equals(chunked))
    assert chunked.code.encode() == big_file


def test_a_cut_inside_a_string_falls_back_to_the_whole_parse(big_file):
    """A line that looks like a top-level `def` inside a long docstring: the chunk before
    it ends inside the string, libcst rejects it, the file is parsed whole."""
    from gradlint.engine import CHUNK_BYTES, _parse_in_chunks

    filler = "".join(
        f"def looks_like_code_{i}(x):\n    return x\n" for i in range(CHUNK_BYTES // 20)
    )
    source = ('import torch\n\nDOC = """\n' + filler + '"""\n').encode() + big_file
    assert _parse_in_chunks(source) is None
    module = parse("m.py", source)
    assert isinstance(module, cst.Module) and module.code.encode() == source
