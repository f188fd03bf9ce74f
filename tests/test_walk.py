"""The engine's walk sees the same nodes, in the same order, as libcst's own traversal."""

import importlib.util
from pathlib import Path

import libcst as cst

from gradlint.analysis.walk import LAYOUT, iter_nodes, visit, walk
from gradlint.config import Config
from gradlint.engine import _Dispatcher
from gradlint.filecontext import FileContext

# Every statement and expression form, including the fields libcst visits only when
# present (an f-string's format_spec after one without, `import *` vs a name list).
SYNTAX = '''\
"""doc"""  # comment
from __future__ import annotations
import torch, torch.nn as nn
from torch import *
from . import (a,
    b as c)  # trailing


@torch.no_grad()
@decorator
async def f(x: int, /, y=1, *args, z: "T" = 2, **kw) -> list[int]:
    global g
    nonlocal_value = [i async for i in aiter() if i]
    async with a as b, c:
        await b
    async for i in x:
        yield i
    return (yield from x)


class C[T](Base, metaclass=Meta):
    attr: int = 1
    type Alias[U] = list[U]

    def m(self, *, k):
        del self.a[1:2, ::3]
        x = y = lambda a, *b, c=1: a if b else c
        x += 1; x @= y
        assert x, (x := 2)
        print(f"{x}", f"{x!r:>{width}.{prec}}", f"{{}}{y=}", b"\\x00", 1j, 0x1F, 1_000.5)
        raise ValueError("e") from None


try:
    pass
except* (TypeError, ValueError) as e:
    ...
else:
    pass
finally:
    pass
while not x or -y ** ~z in w is not v:
    break
else:
    continue
for a, *b in {1: 2, **d}.items():
    s = {1, *e}; t = (1,); u = [*f]; g = {k: v for k, v in h if k}
match command:
    case Point(x=0, y=[1, *rest]) | {"k": _, **kw} if rest:
        pass
    case str() as s:
        pass
with (open(p) as f, open(q)):
    pass
'''


def libcst_order(module: cst.Module) -> list[cst.CSTNode]:
    class Recorder(cst.CSTVisitor):
        def __init__(self):
            self.nodes = []

        def on_visit(self, node):
            self.nodes.append(node)
            return True

    recorder = Recorder()
    module.visit(recorder)
    return recorder.nodes


def walk_order(module: cst.Module, skip=LAYOUT) -> list[cst.CSTNode]:
    nodes, left = [], []
    walk(module, nodes.append, left.append, skip)
    assert sorted(map(id, left)) == sorted(map(id, nodes))  # every node entered is left
    return nodes


def assert_same_order(module: cst.Module) -> None:
    expected = libcst_order(module)
    assert [id(n) for n in walk_order(module, skip=frozenset())] == [id(n) for n in expected]
    without_layout = [n for n in expected if type(n) not in LAYOUT]
    assert [id(n) for n in walk_order(module)] == [id(n) for n in without_layout]
    assert [id(n) for n in iter_nodes(module)] == [id(n) for n in without_layout]


def test_walk_matches_libcst_on_every_syntax_form():
    assert_same_order(cst.parse_module(SYNTAX))


def test_walk_matches_libcst_on_torch_sources():
    spec = importlib.util.find_spec("torch")
    root = Path(next(iter(spec.submodule_search_locations)))
    files = sorted(root.rglob("*.py"))
    for path in files[:: len(files) // 12]:
        assert_same_order(cst.parse_module(path.read_bytes()))


class CommentCollector:
    """A checker that asks for layout nodes gets them."""

    def __init__(self):
        self.seen = []

    def visit_Comment(self, node: cst.Comment) -> None:
        self.seen.append(node.value)


def test_checkers_asking_for_comments_still_get_them():
    module = cst.parse_module("import torch  # one\n# two\nx = 1\n")
    collector = CommentCollector()
    _Dispatcher(FileContext("c.py", module, Config()), [collector]).run(module)
    assert collector.seen == ["# one", "# two"]


class ByName(cst.CSTVisitor):
    """Default name dispatch; prunes nested functions like a rule scanning one scope."""

    def __init__(self):
        self.events = []

    def visit_FunctionDef(self, node):
        self.events.append(("def", node.name.value))
        return len(self.events) == 1  # only the first function's body is entered

    def visit_Name(self, node):
        self.events.append(("name", node.value))

    def leave_Call(self, node):
        self.events.append(("call", id(node)))

    def visit_Comment(self, node):
        self.events.append(("comment", node.value))


class ByNameWithoutLayout(cst.CSTVisitor):
    def __init__(self):
        self.events = []

    def visit_Attribute(self, node):
        self.events.append(("attribute", id(node)))
        return False

    def leave_Name(self, node):
        self.events.append(("name", node.value))


class Generic(cst.CSTVisitor):
    """Overrides on_visit itself, so it must see every node, layout included."""

    def __init__(self):
        self.events = []

    def on_visit(self, node):
        self.events.append(id(node))
        return not isinstance(node, cst.Lambda)

    def on_leave(self, original_node):
        self.events.append(-id(original_node))


class WithTokens(cst.CSTVisitor):
    """Asks for token nodes, which walks skip for visitors that do not."""

    def __init__(self):
        self.events = []

    def visit_Comma(self, node):
        self.events.append(("comma", id(node)))

    def leave_Dot(self, node):
        self.events.append(("dot", id(node)))

    def visit_Name(self, node):
        self.events.append(("name", node.value))


class WithAttributeHook(ByName):
    def visit_Call_func(self, node):
        self.events.append(("func", id(node)))


def test_visit_gives_a_visitor_the_calls_libcsts_traversal_gives():
    module = cst.parse_module(SYNTAX)
    for kind in (ByName, ByNameWithoutLayout, Generic, WithTokens, WithAttributeHook):
        expected, fast = kind(), kind()
        module.visit(expected)
        visit(module, fast)
        assert fast.events == expected.events, kind.__name__
        assert fast.events


class CommaCounter:
    """A checker asking for a token type gets every node of it."""

    def __init__(self):
        self.seen = 0

    def visit_Comma(self, node: cst.Comma) -> None:
        self.seen += 1


def test_checkers_asking_for_tokens_still_get_them():
    module = cst.parse_module(SYNTAX)
    counter = CommaCounter()
    _Dispatcher(FileContext("c.py", module, Config()), [counter]).run(module)
    assert counter.seen == sum(type(n) is cst.Comma for n in libcst_order(module)) > 10
