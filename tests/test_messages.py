"""Every finding's message is one complete sentence of at most 120 characters, written so
by its rule (never cut), and its `detail` stands on its own: over every rule's examples
and the same examples with the long names real projects use."""

import builtins
import keyword
import re
from pathlib import Path

import libcst as cst
import pytest

from gradlint.catalogue import load_catalogue
from gradlint.diagnostic import SHORT_MESSAGE
from gradlint.engine import lint_source

ROOT = Path(__file__).resolve().parent.parent
KEPT = {"self", "cls", "ctx", "_", *dir(builtins), *keyword.kwlist}


def sources() -> list[tuple[str, str]]:
    """(name, source) of every rule's code examples (each rule's bad examples flag it:
    tests/test_catalogue.py); the corpora's messages are checked by test_findings.py."""
    found = []
    for doc in sorted((ROOT / "rules").glob("GL*.md")):
        for index, block in enumerate(re.findall(r"```python\n(.*?)```", doc.read_text(), re.S)):
            found.append((f"{doc.name}#{index}", block))
    return found


class _Bound(cst.CSTVisitor):
    """The names a module binds itself (variables, parameters, classes), not imports,
    functions (a method's name is its role: `forward`, `backward`) or builtins."""

    def __init__(self) -> None:
        self.names: set[str] = set()
        self.kept: set[str] = set(KEPT)

    def visit_Param(self, node: cst.Param) -> None:
        self.names.add(node.name.value)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.names.add(node.name.value)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.kept.add(node.name.value)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._targets(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._targets(node.target)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self._targets(node.asname.name)

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        name = node.asname.name if node.asname else node.name
        while isinstance(name, cst.Attribute):
            name = name.value
        if isinstance(name, cst.Name):
            self.kept.add(name.value)

    def _targets(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            self.names.add(target.value)
        elif isinstance(target, cst.Tuple | cst.List):
            for element in target.elements:
                self._targets(element.value)


class _Lengthen(cst.CSTTransformer):
    """Each bound name -> a long one as real projects write them (`w` ->
    `w_of_the_cross_attention_block`), attributes and keywords left alone."""

    def __init__(self, names: set[str]) -> None:
        self.names = names

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)  # `self.x.y`: only the leftmost name may be ours
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        node.value.visit(self)  # not the keyword
        return False

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.Attribute:
        return updated.with_changes(value=original.value.visit(self))

    def leave_Arg(self, original: cst.Arg, updated: cst.Arg) -> cst.Arg:
        return updated.with_changes(value=original.value.visit(self))

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.Name:
        if original.value not in self.names:
            return updated
        if original.value[:1].isupper():
            return updated.with_changes(value=f"{original.value}ForCrossAttentionBlocks")
        return updated.with_changes(value=f"{original.value}_of_the_cross_attention_block")


def lengthened(source: str) -> str | None:
    """`source` with every name it binds made long (None: it does not parse)."""
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError:
        return None
    bound = _Bound()
    module.visit(bound)
    return module.visit(_Lengthen(bound.names - bound.kept)).code


def findings() -> list[tuple[str, object]]:
    """(source name, raw finding) for every finding of every source and its long-named
    variant, as the rules report them (before findings.py could cut anything)."""
    found = []
    for name, source in sources():
        variants = [(name, source), (f"{name} (long names)", lengthened(source))]
        for label, text in variants:
            if text is None:
                continue
            result = lint_source("case.py", text)
            assert not result.internal_errors, (label, result.internal_errors)
            found.extend((label, d) for d in result.diagnostics)
    return found


FINDINGS = findings()


def test_every_rule_is_covered_with_long_names_too():
    rules = {code for code in load_catalogue() if code[2] in "12345" and code != "GL001"}
    long_named = {d.code for label, d in FINDINGS if label.endswith("(long names)")}
    assert rules - long_named == set()
    assert any("_of_the_cross_attention_block" in d.message for _, d in FINDINGS)


@pytest.mark.parametrize("code", sorted({d.code for _, d in FINDINGS}))
def test_messages_are_whole_sentences_within_the_limit(code):
    for label, d in FINDINGS:
        if d.code != code:
            continue
        where = (label, d.line, d.message)
        assert len(d.message) <= SHORT_MESSAGE, where
        assert d.message[0].isupper() or d.message[0] == "`", where  # a sentence's start
        assert not d.message.endswith((",", ":", ";", "…", ".")), where  # nothing cut off
        if code == "GL001":
            continue  # CPython's own verdict: `Cannot parse: <its message>`, no detail
        assert d.detail, where  # written by the rule, not cut from the message
        assert d.detail[0].isupper() or d.detail[0] in "`'\"0123456789", (label, d.detail)
        assert d.detail.endswith((".", ")")), (label, d.detail)
