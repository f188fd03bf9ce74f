"""Fuzzing: generated and mutated programs never crash gradlint.

Three sources of input: hypothesmith's programs (from Python's grammar and from libcst's
node types), torch-flavoured programs of our own (modules, forwards with in-place edits
and views, backward calls, nested functions, lambdas, match, async, decorators, walrus),
and mutants of real files (the installed torch package's sources: truncation, deleted or
duplicated lines, flipped bytes). The properties, for every input:

- no internal error (a crash of gradlint itself), whatever the input;
- GL001 exactly when CPython rejects the file (both parsers must agree on valid code),
  unless the file is nested deeper than `max-depth`;
- the run ends, in bounded time (hypothesis' deadline is off: CI machines are shared, so
  the per-file bound is checked once, loosely, on the whole suite's wall time instead).

By default each test runs a small fixed set of examples (derandomized, so CI is
repeatable and under a minute); `pytest -m slow tests/test_fuzz.py` runs the long,
randomized fuzz.
"""

from __future__ import annotations

import ast
import importlib.util
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gradlint.config import Config
from gradlint.depth import nesting_depth
from gradlint.engine import imports_torch, lint_source
from gradlint.flake8_plugin import GradlintPlugin
from gradlint.guard import from_bom
from gradlint.runner import lint_file

QUICK = settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)
LONG = settings(
    max_examples=1500, deadline=None, database=None, suppress_health_check=list(HealthCheck)
)
CONFIG = Config()


def cpython_accepts(source: bytes) -> bool:
    """`compile` accepts it (its parser, its symbol table: a duplicate argument, a walrus
    in a comprehension's iterable; its compiler: `return` outside a function, `break`
    outside a loop, `case _:` before other cases), and it is within max-depth."""
    source = from_bom(source)  # gradlint reads UTF-16/32 files, CPython does not
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # invalid escape sequences and the like
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return False
        try:
            compile(source, "fuzz.py", "exec", dont_inherit=True)
        except SyntaxError:
            return False
        except RecursionError:  # deeper than this thread's limit: the engine's is higher
            pass
    return nesting_depth(tree)[0] <= CONFIG.max_depth


def check(source: str | bytes, path: str = "fuzz.py") -> None:
    """The fuzz properties for one input, through the engine and the per-file pipeline."""
    raw = source.encode("utf-8", "surrogatepass") if isinstance(source, str) else source
    if not imports_torch(raw):  # the prefilter would skip it: make the engine parse it
        raw = b"import torch\n" + raw
    result = lint_source(path, raw, CONFIG)
    assert not result.internal_errors, result.internal_errors[0]
    syntax_errors = [d for d in result.diagnostics if d.code == "GL001"]
    for error in syntax_errors:  # every GL001 says why
        assert error.message.split(": ", 1)[1].strip(), error.message
    if cpython_accepts(raw):
        assert not syntax_errors, (raw[:2000], syntax_errors[0].message, syntax_errors[0].detail)
    else:
        assert syntax_errors, raw[:2000]
    file_result = lint_file(path, CONFIG, raw)
    assert not file_result.internal_errors, file_result.internal_errors[0]


# -- hypothesmith ------------------------------------------------------------------------

hypothesmith = pytest.importorskip("hypothesmith")


@QUICK
@given(hypothesmith.from_grammar())
def test_grammar_programs(source):
    check(source)


@settings(QUICK, max_examples=8)
@given(hypothesmith.from_node())
def test_libcst_node_programs(source):
    check(source)


@pytest.mark.slow
@LONG
@given(hypothesmith.from_grammar())
def test_grammar_programs_long(source):
    check(source)


@pytest.mark.slow
@settings(LONG, max_examples=300)
@given(hypothesmith.from_node())
def test_libcst_node_programs_long(source):
    check(source)


# -- torch-flavoured programs ------------------------------------------------------------

NAMES = st.sampled_from(["x", "y", "w", "out", "loss", "p", "self.weight", "h"])
LEAVES = st.sampled_from(
    [
        "x",
        "y",
        "self.weight",
        "p.grad",
        "torch.randn(3, 4, requires_grad=True)",
        "torch.zeros(2, 3)",
        "nn.Parameter(torch.ones(3))",
        "1",
        "0.5",
        "None",
    ]
)
UNARY = [
    "{}.view(-1)",
    "{}.t()",
    "{}[0]",
    "{}[:, 1:]",
    "{}.detach()",
    "{}.sum()",
    "{}.transpose(0, 1)",
    "{}.reshape(2, -1)",
    "torch.relu({})",
    "F.softmax({}, dim=-1)",
    "{}.expand(4, 3)",
    "(lambda t: t * 2)({})",
    "(z := {})",
    "[v * 2 for v in {}]",
    "self.linear({})",
    "{}.exp_()",
]
BINARY = ["{} + {}", "{} * {}", "{} @ {}", "{} if {} else None", "torch.cat([{}, {}])"]


def _expressions():
    def extend(inner):
        unary = st.tuples(st.sampled_from(UNARY), inner).map(lambda t: t[0].format(t[1]))
        binary = st.tuples(st.sampled_from(BINARY), inner, inner).map(
            lambda t: t[0].format(t[1], t[2])
        )
        return unary | binary

    return st.recursive(LEAVES, extend, max_leaves=6)


EXPRESSIONS = _expressions()


def _simple_statements():
    def line(template):
        return st.tuples(NAMES, EXPRESSIONS).map(lambda t: [template.format(n=t[0], e=t[1])])

    templates = [
        "{n} = {e}",
        "{n}.add_(1)",
        "{n} += {e}",
        "{n}[0] = {e}",
        "{n}[{n} > 0] = 0",
        "{e}.backward()",
        "{n}.mul_({e})",
        "{n}.requires_grad_()",
        "{n}.grad.zero_()",
        "torch.autograd.grad({e}, [{n}])",
        "return {e}",
        "yield {e}",
        "await {e}",
        "del {n}",
        "print({e})",
    ]
    fixed = st.sampled_from(
        [
            ["pass"],
            ["opt.step()"],
            ["opt.zero_grad()"],
            ["loss.backward(retain_graph=True)"],
            ["break"],
            ["continue"],
        ]
    )
    return st.one_of(fixed, *(line(t) for t in templates))


HEADERS = [
    "if {e}:",
    "for {n} in model.parameters():",
    "for _ in range(3):",
    "while {e}:",
    "with torch.no_grad():",
    "with torch.enable_grad():",
    "with torch.set_grad_enabled(False):",
    "def step(model, opt, x, y):",
    "async def agen(x):",
    "def nested(x, *args, k=1, **kw):",
    "@torch.no_grad()\ndef infer(model, x):",
    "@staticmethod\ndef helper(ctx, grad_output):",
    "class Net(nn.Module):",
    "class Fn(torch.autograd.Function):",
    "class Opt(torch.optim.Optimizer):",
    "def forward(self, x):",
    "def backward(self, grad_output):",
]


def _indent(lines: list[str]) -> list[str]:
    return ["    " + line for line in lines]


def _compound(header: str, body: list[str], extra: list[str]) -> list[str]:
    if header == "try":
        return ["try:", *_indent(body), "except* ValueError:", *_indent(extra)]
    if header == "match":
        return ["match x:", "    case [a, *rest]:", *_indent(_indent(body))] + [
            "    case _:",
            *_indent(_indent(extra)),
        ]
    if header == "match-capture":  # an irrefutable case first: compile rejects it
        return ["match x:", "    case y:", *_indent(_indent(body))] + [
            "    case 1:",
            *_indent(_indent(extra)),
        ]
    if header == "else":
        return ["if x:", *_indent(body), "elif y:", *_indent(extra), "else:", "    pass"]
    return [*header.split("\n")[:-1], header.split("\n")[-1], *_indent(body)]


def _programs():
    def extend(inner):
        body = st.lists(inner, min_size=1, max_size=3).map(lambda blocks: sum(blocks, []))
        header = st.tuples(
            st.sampled_from([*HEADERS, "try", "match", "match-capture", "else"]), NAMES, EXPRESSIONS
        )
        return st.tuples(header, body, body).map(
            lambda t: _compound(t[0][0].format(n=t[0][1], e=t[0][2]), t[1], t[2])
        )

    statements = st.recursive(_simple_statements(), extend, max_leaves=12)
    return st.lists(statements, min_size=1, max_size=5).map(
        lambda blocks: (
            "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
            + "\n".join(sum(blocks, []))
            + "\n"
        )
    )


TORCH_PROGRAMS = _programs()


@settings(QUICK, max_examples=150)
@given(TORCH_PROGRAMS)
def test_torch_flavoured_programs(source):
    check(source)


@pytest.mark.slow
@settings(LONG, max_examples=5000)
@given(TORCH_PROGRAMS)
def test_torch_flavoured_programs_long(source):
    check(source)


def test_the_generator_reaches_the_rules():
    """The torch programs are not all trivially clean: they exercise the checkers."""
    found: set[str] = set()

    @settings(QUICK, max_examples=150)
    @given(TORCH_PROGRAMS)
    def collect(source):
        found.update(d.code for d in lint_source("fuzz.py", source, CONFIG).diagnostics)

    collect()
    assert len(found - {"GL001"}) >= 3, found


def test_the_generator_makes_compile_stage_errors():
    """Some torch programs parse but `compile` rejects them (`return` or `break` outside
    a function or loop, `break` in `except*`, an irrefutable case first, ...): the fuzz
    checks that those are GL001 too."""
    rejected: set[str] = set()

    @settings(QUICK, max_examples=150)
    @given(TORCH_PROGRAMS)
    def collect(source):
        try:
            ast.parse(source)
        except SyntaxError:
            return  # the parser's error, not the compiler's
        try:
            compile(source, "fuzz.py", "exec", dont_inherit=True)
        except SyntaxError as error:
            rejected.add(error.msg.split("'")[1] if "'" in error.msg else error.msg)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        collect()
    assert len(rejected) >= 4, rejected


# -- mutants of real files ---------------------------------------------------------------


def _torch_sources() -> list[Path]:
    spec = importlib.util.find_spec("torch")  # finds the package without importing it
    assert spec is not None and spec.submodule_search_locations
    modules = Path(next(iter(spec.submodule_search_locations))) / "nn" / "modules"
    return sorted(p for p in modules.glob("*.py") if 2_000 < p.stat().st_size < 60_000)


REAL_FILES = _torch_sources()


@st.composite
def mutants(draw) -> bytes:
    data = draw(st.sampled_from(REAL_FILES)).read_bytes()
    kind = draw(st.sampled_from(["truncate", "delete", "duplicate", "flip", "dedent", "crlf"]))
    if kind == "truncate":
        return data[: draw(st.integers(0, len(data)))]
    lines = data.splitlines(keepends=True)
    index = draw(st.integers(0, len(lines) - 1))
    if kind == "delete":
        count = draw(st.integers(1, 20))
        return b"".join(lines[:index] + lines[index + count :])
    if kind == "duplicate":
        return b"".join(lines[: index + 1] + lines[index:])
    if kind == "dedent":
        lines[index] = lines[index].lstrip(b" ")
        return b"".join(lines)
    if kind == "crlf":
        return data.replace(b"\n", b"\r\n")
    flipped = bytearray(data)
    for _ in range(draw(st.integers(1, 4))):
        position = draw(st.integers(0, len(flipped) - 1))
        flipped[position] = draw(st.integers(0, 255))
    return bytes(flipped)


@settings(QUICK, max_examples=30)
@given(mutants())
def test_mutants_of_real_files(source):
    check(source)


@pytest.mark.slow
@settings(LONG, max_examples=4000)
@given(mutants())
def test_mutants_of_real_files_long(source):
    check(source)


# -- the flake8 plugin -------------------------------------------------------------------


@settings(QUICK, max_examples=20)
@given(TORCH_PROGRAMS | mutants().map(lambda b: b.decode("utf-8", "replace")))
def test_flake8_plugin_never_raises(source):
    lines = source.splitlines(keepends=True)
    for _, _, text, _ in GradlintPlugin(None, "fuzz.py", lines).run():
        assert not text.startswith("GL902"), text
