"""Inputs that once crashed, hung or silenced gradlint: each gives findings, GL001 or a
one-line internal error (exit 2), and the other files of the run are still reported."""

from __future__ import annotations

import codecs
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gradlint import flake8_plugin
from gradlint.cli import main
from gradlint.config import Config
from gradlint.depth import deeper_than, nesting_depth
from gradlint.engine import lint_source
from gradlint.flake8_plugin import GradlintPlugin
from gradlint.guard import MESSAGE_LIMIT
from gradlint.runner import ContainedWorker

BACKWARD_CLASS = """\
class Scale(nn.Module):
    def forward(self, x):
        return 2 * x

    def backward(self, grad_output):
        return 2 * grad_output
"""


def indented(text: str, prefix: str) -> str:
    return "".join(prefix + line if line.strip() else line for line in text.splitlines(True))


def codes(source: str | bytes, config: Config | None = None) -> list[str]:
    result = lint_source("case.py", source, config)
    assert not result.internal_errors
    return [d.code for d in result.diagnostics]


def gradlint(*args: str, cwd: Path, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "gradlint", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        check=False,
        timeout=300,
    )


# -- classes in every block ----------------------------------------------------------


@pytest.mark.parametrize(
    "block",
    [
        "match command:\n    case 1:\n    ",
        "try:\n    pass\nexcept* ValueError:\n",
        "while True:\n    pass\nelse:\n",
        "with open(path) as f:\n",
        "if a:\n    pass\n" + "elif b:\n    pass\n" * 3 + "else:\n",
    ],
    ids=["match-case", "except-star", "while-else", "with", "else-after-elifs"],
)
def test_a_class_in_any_block_is_indexed(block):
    *head, indent = block.split("\n")
    source = "import torch.nn as nn\n" + "\n".join(head) + "\n"
    source += indented(BACKWARD_CLASS, "    " + indent)
    assert codes(source) == ["GL303"]


def test_a_thousand_elifs_are_linted_without_recursion_error():
    chain = "".join(f"elif x == {i}:\n    pass\n" for i in range(1000))
    source = f"import torch.nn as nn\nif x:\n    pass\n{chain}\n{BACKWARD_CLASS}"
    assert codes(source) == ["GL303"]


# -- parser limits -------------------------------------------------------------------


def test_depth_counts_libcst_levels():
    import ast

    assert nesting_depth(ast.parse("x = a + b + c + d"))[0] == 6
    # elif links and `and` operands weigh an eighth of a level (libcst parses them fast)
    elifs = "if a:\n    pass\n" + "elif b:\n    pass\n" * 80
    assert nesting_depth(ast.parse(elifs))[0] < 15
    assert nesting_depth(ast.parse("x = " + " and ".join(["a"] * 800)))[0] == 103


_SHAPES = [
    b"x = " + b"+".join([b"a"] * 600) + b"\n",
    b"x = a" + b"[0]" * 300 + b"\n",
    b"if a:\n    x = 1\n" + b"elif b:\n    x = 2\n" * 500,
    b"@" + b"a." * 700 + b"b\ndef f():\n    pass\n",  # a decorator precedes its def
    b"try:\n    pass\nexcept " + b"a." * 900 + b"E:\n    pass\n",
    b"match x:\n    case " + b"[" * 50 + b"1" + b"]" * 50 + b":\n        pass\n",
    b"x = f'" + b"{a}" * 1000 + b"'\n",
    b"\xef\xbb\xbfx = " + b"-" * 800 + b"1\n",
    b"s = '\xc3\xa9'\nx = " + b"not " * 400 + b"y\n",
    b"class A:\n    def f(self):\n        return " + b"(" * 150 + b"1" + b")" * 150 + b"\n",
]


@pytest.mark.parametrize("source", _SHAPES)
def test_depth_bound_skips_only_statements_too_short_to_be_deep(source):
    """`deeper_than` walks only what may exceed the limit; its answer is nesting_depth's."""
    import ast

    tree = ast.parse(source)
    exact = nesting_depth(tree)
    for limit in (3, 10, 25, 60, 200, 1000):
        found = deeper_than(tree, source, limit)
        assert found == exact if exact[0] > limit else found in (None, exact)


def _nested(kind: str, n: int) -> str:
    """A program nested about `n` deep by one construct (wrapped where it must be)."""
    inner = {
        "sum": lambda: "x = " + "+".join(["a"] * n),
        "subscripts": lambda: "x = a" + "[0]" * n,
        "attributes": lambda: "x = a" + ".b" * n,
        "calls": lambda: "x = f" + "()" * n,
        "unary": lambda: "x = " + "-" * n + "1",
        "not": lambda: "x = " + "not " * n + "a",
        "lambdas": lambda: "f = " + "lambda: " * n + "1",
        "defaults": lambda: "f = " + "lambda a=" * min(n, 190) + "1" + ": 1" * min(n, 190),
        "conditionals": lambda: "x = " + "a if b else " * n + "c",
        "and": lambda: "x = " + " and ".join(["a"] * n),
        "or-of-ands": lambda: "x = " + " or ".join(["(a and b and c)"] * n),
        "keywords": lambda: "x = " + "f(k=" * min(n, 190) + "1" + ")" * min(n, 190),
        "comprehensions": lambda: "x = " + "[" * min(n, 190) + "a" + " for a in b]" * min(n, 190),
        "annotation": lambda: "def f(a: " + "+".join(["b"] * n) + ") -> c:\n    pass",
        "walrus": lambda: "x = " + "(a := " * min(n, 190) + "1" + ")" * min(n, 190),
        "fstring": lambda: "x = f'{" + "+".join(["a"] * n) + "}'",
        "strings": lambda: "x = " + " ".join(["'a'"] * n),
        "elif": lambda: "if a:\n    pass\n" + "elif b:\n    pass\n" * n,
        "blocks": lambda: (
            "".join(" " * depth + "if a:\n" for depth in range(min(n, 90)))
            + " " * min(n, 90)
            + "x = a"
            + ".b" * n
        ),
        "pattern": lambda: (
            "match x:\n    case " + "[" * min(n, 190) + "1" + "]" * min(n, 190) + ":\n        pass"
        ),
        "class-pattern": lambda: (
            "match x:\n    case " + "C(" * min(n, 190) + "1" + ")" * min(n, 190) + ":\n        pass"
        ),
        "handlers": lambda: "try:\n    pass\nexcept " + "a." * n + "E:\n    pass",
        "with": lambda: "with " + "+".join(["a"] * n) + " as b:\n    pass",
        "yield": lambda: "def g():\n    x = " + "(yield " * min(n, 190) + "1" + ")" * min(n, 190),
        "await": lambda: (
            "async def g():\n    x = " + "await (" * min(n, 190) + "a" + ")" * min(n, 190)
        ),
        "decorator": lambda: "@" + "a." * n + "b\ndef f():\n    pass",
        "class-keyword": lambda: "class A(m=" + "+".join(["a"] * n) + "):\n    pass",
    }[kind]()
    return inner + "\n"


@pytest.mark.parametrize("kind", [
    "sum", "subscripts", "attributes", "calls", "unary", "not", "lambdas", "defaults",
    "conditionals", "and", "or-of-ands", "keywords", "comprehensions", "annotation",
    "walrus", "fstring", "strings", "elif", "blocks", "pattern", "class-pattern",
    "handlers", "with", "yield", "await", "decorator", "class-keyword",
])  # fmt: skip
def test_the_compilation_bounds_the_depth_of_every_construct(kind):
    """Whenever compiles_within says a file is no deeper than the limit, CPython's tree
    agrees, for every construct that nests, at sizes around each limit."""
    import ast

    from gradlint.depth import compiles_within

    bounded = 0
    for n in (10, 30, 60, 100, 150, 190, 250, 400, 700, 1200, 2500):
        source = _nested(kind, n)
        try:
            depth = nesting_depth(ast.parse(source))[0]
        except (SyntaxError, MemoryError, RecursionError):
            continue  # beyond CPython's own limits
        for limit in (20, 50, 100, 200, 400, 1000, 3000):
            if compiles_within(source.encode(), "case.py", limit)[1]:
                bounded += 1
                assert depth <= limit, (n, limit)
    assert bounded  # the fast check was taken for the shallow ones


def test_files_of_ordinary_depth_are_bounded_by_the_compilation():
    """On CPython 3.10 and 3.11 the compilation proves ordinary files shallow (no tree)."""
    from gradlint.depth import compiles_within

    if sys.version_info[:2] not in ((3, 10), (3, 11)):
        pytest.skip("newer CPython builds its symbol table against the C stack")
    source = Path(__file__).read_bytes()
    assert compiles_within(source, "case.py", 1000) == (True, True)
    assert compiles_within(_nested("sum", 1100).encode(), "case.py", 1000) == (False, False)


@pytest.mark.parametrize(
    "statement",
    ["def f(a, a):\n    pass\n", "nonlocal x\n", "def f():\n    x = 1\n    global x\n"],
)
def test_what_the_symbol_table_rejects_is_gl001(statement):
    """`compile` rejects these after parsing (ast.parse accepts them): GL001 all the same."""
    result = lint_source("case.py", "import torch\n" + statement)
    [found] = result.diagnostics
    assert found.code == "GL001" and found.line >= 2


# Statements CPython's parser accepts and its compiler rejects (compile raises).
COMPILE_STAGE = [
    "return 1\n",
    "class A:\n    return 1\n",
    "break\n",
    "if x:\n    continue\n",
    "yield 1\n",
    "async def f():\n    yield 1\n    return 2\n",
    "for x in y:\n    try:\n        pass\n    except* ValueError:\n        break\n",
    "match x:\n    case _:\n        pass\n    case 1:\n        pass\n",
    "match x:\n    case y:\n        pass\n    case 1:\n        pass\n",
    "def f():\n    await g()\n",
    "def f():\n    return [i async for i in y]\n",
    "*a = b\n",
]


@pytest.mark.parametrize("statement", COMPILE_STAGE)
def test_what_the_compiler_rejects_is_gl001_with_its_message(statement, tmp_path, capsys):
    """A user's run: GL001 at CPython's line and column with CPython's message."""
    source = "import torch\n" + statement
    with pytest.raises(SyntaxError) as expected:
        compile(source, "m.py", "exec", dont_inherit=True)
    error = expected.value
    path = tmp_path / "m.py"
    path.write_text(source)
    assert main([str(path), "--no-cache"]) == 1
    out = capsys.readouterr().out
    assert out == f"{path}:{error.lineno}:{error.offset}: GL001 Cannot parse: {error.msg}\n"


@pytest.mark.parametrize(
    "body",
    [
        "if a:\n    pass\n" + "".join(f"elif a{i}:\n    pass\n" for i in range(10_000)),
        "x = " + "lambda: " * 3000 + "1\n",
    ],
    ids=["10,000 elifs", "3,000 nested lambdas"],
)
def test_a_file_too_deep_for_cpythons_parser_is_gl001_saying_why(body):
    """CPython 3.11's parser raises a bare MemoryError on them: GL001 says what it means."""
    [found] = lint_source("case.py", "import torch\n" + body).diagnostics
    assert found.code == "GL001" and "too deeply nested for CPython's parser" in found.message


def test_a_deep_file_is_compiled_to_the_end_when_within_max_depth():
    """A file deeper than the compilation's own bound is measured on CPython's tree, then
    compiled at the deep thread's limit: its compile-stage error is still found."""
    from gradlint.depth import compiles_within

    source = "import torch\n" + _nested("sum", 1100) + "return 1\n"
    assert compiles_within(source.encode(), "case.py", 1200) == (False, False)
    [found] = lint_source("case.py", source, Config(max_depth=1200)).diagnostics
    assert (found.code, found.line, found.message) == (
        "GL001",
        3,
        "Cannot parse: 'return' outside function",
    )


def test_a_notebook_may_await_at_top_level_as_ipython_does():
    source = "import torch\nx = await f()\nasync for a in b:\n    pass\n"
    assert lint_source("nb.ipynb", source).diagnostics == []
    [found] = lint_source("nb.ipynb", source + "return 1\n").diagnostics
    assert found.message == "Cannot parse: 'return' outside function"


def test_a_chain_deeper_than_max_depth_is_gl001_saying_why():
    source = "import torch\nx = " + " + ".join(["a"] * 300) + "\n"
    result = lint_source("case.py", source, Config(max_depth=200))
    [found] = result.diagnostics
    assert (found.code, found.line) == ("GL001", 2)
    assert "max-depth" in found.message + found.detail
    assert codes(source) == []  # within the default limit it is parsed and linted


def test_an_int_literal_python_rejects_is_gl001():
    source = f"import torch\nx = torch.ones({'1' * 5000}).view(3)\n"
    result = lint_source("case.py", source)
    [found] = result.diagnostics
    assert found.code == "GL001" and "4300" in found.message + found.detail


def test_a_size_only_known_at_run_time_in_new_zeros_leaves_the_shape_unknown():
    source = (
        "import torch.nn as nn\n\n\nclass Head(nn.Module):\n    def forward(self, labels):\n"
        "        targets = labels.new_zeros(self.n, labels.size(0))\n"
        "        return targets.view(-1)\n"
    )
    result = lint_source("case.py", source)
    assert not result.internal_errors
    assert result.diagnostics == []


def test_a_continuation_before_the_end_of_the_file_is_valid():
    source = b"import torch\n\t\\\r\n"
    compile(source, "case.py", "exec")  # CPython accepts it; libcst's tokenizer did not
    assert codes(source) == []
    assert codes(b"import torch.nn as nn\n" + BACKWARD_CLASS.encode() + b"\\\r\n") == ["GL303"]


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"])
def test_utf16_and_utf32_files_are_read_by_their_bom(encoding):
    bom = {
        "utf-16-le": codecs.BOM_UTF16_LE,
        "utf-16-be": codecs.BOM_UTF16_BE,
        "utf-32-le": codecs.BOM_UTF32_LE,
        "utf-32-be": codecs.BOM_UTF32_BE,
    }[encoding]
    source = bom + ("import torch.nn as nn\n" + BACKWARD_CLASS).encode(encoding)
    assert codes(source) == ["GL303"]


# -- internal errors -----------------------------------------------------------------


@pytest.fixture
def broken_checker(monkeypatch):
    """Every Call node raises (a RecursionError or a bug whose text is huge)."""
    from gradlint.checks import load_checkers

    checker = next(c for c in load_checkers() if hasattr(c, "visit_Call"))
    errors = []

    def visit_call(self, node):
        raise errors[0]

    monkeypatch.setattr(checker, "visit_Call", visit_call)
    return errors


def test_recursion_error_in_the_analysis_is_gl001(broken_checker):
    broken_checker.append(RecursionError("maximum recursion depth exceeded"))
    result = lint_source("case.py", "import torch\ntorch.ones(2)\n")
    assert [d.code for d in result.diagnostics] == ["GL001"] and not result.internal_errors


def test_an_internal_error_is_one_bounded_line(broken_checker, monkeypatch):
    broken_checker.append(ValueError("node " * 50_000))
    monkeypatch.delenv("GRADLINT_DEBUG", raising=False)
    [message] = lint_source("case.py", "import torch\ntorch.ones(2)\n").internal_errors
    assert "\n" not in message and len(message) < MESSAGE_LIMIT + 100
    assert message.startswith("case.py: internal error: ValueError: node node")
    monkeypatch.setenv("GRADLINT_DEBUG", "1")
    [message] = lint_source("case.py", "import torch\ntorch.ones(2)\n").internal_errors
    assert "Traceback" in message


def test_an_uncaught_exception_exits_2_not_1(monkeypatch, capsys, tmp_path):
    def explode(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr("gradlint.runner.run", explode)
    (tmp_path / "m.py").write_text("import torch\n")
    assert main([str(tmp_path / "m.py")]) == 2
    assert "internal error: RuntimeError: boom" in capsys.readouterr().err


def test_the_flake8_plugin_reports_an_internal_error_as_gl902(broken_checker, capsys, monkeypatch):
    broken_checker.append(KeyError("x"))
    # the plugin lints in a forked child: a new one, forked after the checker broke
    monkeypatch.setattr(flake8_plugin, "_WORKER", ContainedWorker())
    lines = ["import torch\n", "torch.ones(2)\n"]
    found = [text for _, _, text, _ in GradlintPlugin(None, "m.py", lines).run()]
    assert found == ["GL902 gradlint internal error: KeyError: 'x'"]
    assert "m.py: internal error" in capsys.readouterr().err


# -- whole runs: native crashes, file names, other files still reported ---------------


@pytest.fixture(scope="module")
def crash_project(tmp_path_factory) -> Path:
    """A file whose `and` chain segfaulted libcst's parser, next to a file with a finding
    and one whose name is not valid UTF-8."""
    root = tmp_path_factory.mktemp("crash")
    (root / "chain.py").write_text("import torch\nx = " + " and ".join(["a"] * 10_000) + "\n")
    (root / "deep.py").write_text("import torch\nx = " + "-" * 3000 + "a\n")
    (root / "bad.py").write_text("import torch.nn as nn\n\n" + BACKWARD_CLASS)
    with open(os.path.join(os.fsencode(root), b"caf\xe9.py"), "w") as file:
        file.write("import torch.nn as nn\n\n" + BACKWARD_CLASS)
    return root


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_file_that_crashed_the_parser_does_not_stop_the_run(crash_project, jobs):
    done = gradlint("-j", jobs, "--format", "json", ".", cwd=crash_project)
    assert done.returncode == 1, done.stderr
    found = {(d["path"], d["code"]) for d in json.loads(done.stdout)}
    assert found == {
        ("bad.py", "GL303"),
        ("caf\udce9.py", "GL303"),
        ("chain.py", "GL001"),
        ("deep.py", "GL001"),
    }


def test_one_crashing_file_alone_and_on_stdin(crash_project):
    alone = gradlint("chain.py", cwd=crash_project)
    assert alone.returncode == 1 and b"chain.py:2:1: GL001" in alone.stdout
    stdin = (crash_project / "chain.py").read_bytes()
    piped = gradlint("-", "--stdin-filename", "c.py", cwd=crash_project, stdin=stdin)
    assert piped.returncode == 1 and b"c.py:2:1: GL001" in piped.stdout


@pytest.mark.parametrize("fmt", ["flake8", "full", "json", "sarif", "github"])
def test_a_non_utf8_file_name_in_every_format_and_output_file(crash_project, fmt, tmp_path):
    target = os.path.join(os.fsencode(crash_project), b"caf\xe9.py")
    done = subprocess.run(
        [sys.executable, "-m", "gradlint", "--format", fmt, os.fsdecode(target)],
        capture_output=True,
        check=False,
    )
    assert done.returncode == 1 and b"GL303" in done.stdout, done.stderr
    if fmt == "sarif":
        assert b"caf%E9.py" in done.stdout
    out = tmp_path / "report"
    done = gradlint("--format", fmt, "-o", str(out), os.fsdecode(target), cwd=crash_project)
    assert done.returncode == 1 and b"GL303" in out.read_bytes()


@pytest.mark.parametrize("fmt", ["flake8", "full", "json", "sarif", "github"])
def test_an_output_stream_that_cannot_encode_the_report(crash_project, fmt):
    """PYTHONIOENCODING=ascii and a non-ASCII name in a finding (and a file name that is
    not UTF-8): the report is written, what ASCII lacks as backslash escapes."""
    (crash_project / "theta.py").write_text(
        "import torch\n\n\u03b8 = torch.zeros(3, requires_grad=True)\n\u03b8 += 1\n"
    )
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "gradlint",
            "--no-cache",
            "--format",
            fmt,
            "theta.py",
            "caf\udce9.py",
        ],
        capture_output=True,
        check=False,
        cwd=crash_project,
        env={**os.environ, "PYTHONIOENCODING": "ascii"},
    )
    assert (done.returncode, done.stderr) == (1, b"")
    assert b"GL101" in done.stdout and b"GL303" in done.stdout
    if fmt in ("flake8", "full", "github"):
        assert b"`\\u03b8`" in done.stdout and b"caf\xe9.py" in done.stdout


def test_without_room_for_a_big_stack_files_are_still_linted(monkeypatch):
    import threading

    def no_thread(self):
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(threading.Thread, "start", no_thread)
    assert codes("import torch.nn as nn\n" + BACKWARD_CLASS) == ["GL303"]
