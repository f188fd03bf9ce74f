"""Code a class declares unreachable: the branches a model takes only while its
gradient-checkpointing flag is on, in a class whose framework refuses to switch it on.

transformers' `PreTrainedModel` and diffusers' `ModelMixin` switch activation
checkpointing on with `gradient_checkpointing_enable()` / `enable_gradient_checkpointing()`
(which set `gradient_checkpointing = True` on the model and every submodule that has the
attribute), and both raise ValueError unless the class sets
`supports_gradient_checkpointing` (diffusers: `_supports_gradient_checkpointing`) to
True; the framework base leaves it False. So in a class whose hierarchy in the file
leaves it False, `if self.gradient_checkpointing and self.training:` is taken only when
someone sets the flag by hand. Findings in such a branch are not reported (FileContext),
as a linter does not report code under `if False:`.

The branch stays reachable (unknown is not unreachable) when the attribute's value is
not known (a base imported from elsewhere, a value that is not a literal), when a class
of the file that may support checkpointing names the class (it may hold an instance and
switch its flag through `modules()`), or when code of the file outside those classes
assigns the flag anything but False.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from gradlint.analysis.context import ClassInfo, ModuleIndex, literal_bool
from gradlint.analysis.names import ImportTable
from gradlint.analysis.walk import children, iter_nodes

FLAG = "gradient_checkpointing"  # the instance attribute the framework switches
# framework base class -> (its package, the class attribute saying whether the framework
# may switch FLAG on, which that base leaves False)
FRAMEWORK_BASES = {
    "PreTrainedModel": ("transformers", "supports_gradient_checkpointing"),
    "ModelMixin": ("diffusers", "_supports_gradient_checkpointing"),
}
SUPPORT_ATTRIBUTES = frozenset(attribute for _, attribute in FRAMEWORK_BASES.values())
_ABSENT = "absent"  # no class of the hierarchy sets the attribute, and none is a framework's


def unreachable_nodes(
    module: cst.Module, index: ModuleIndex, imports: ImportTable
) -> frozenset[cst.CSTNode]:
    """Every node inside a branch guarded by `self.gradient_checkpointing` in a method of
    a class that does not support checkpointing (and no code of the file switches on)."""
    support = {info: _support(info, index, imports, frozenset()) for info in index.by_node.values()}
    guarded = {
        info: branches
        for info, flag in support.items()
        if flag is False and (branches := list(_guarded_branches(info)))
    }
    if not guarded:
        return frozenset()
    names = {info.name for info in guarded}
    mentioned: set[str] = set()
    unsupported = {info.node for info, flag in support.items() if flag is False}
    for node in _outside(module, unsupported):
        if isinstance(node, cst.Name) and node.value in names:
            mentioned.add(node.value)
        elif _switches_on(node):
            return frozenset()
    return frozenset(
        node
        for info, branches in guarded.items()
        if info.name not in mentioned
        for branch in branches
        for node in iter_nodes(branch)
    )


def _support(
    info: ClassInfo, index: ModuleIndex, imports: ImportTable, seen: frozenset[ClassInfo]
) -> bool | None | str:
    """The class's support attribute: True / False as its hierarchy sets it (its own body
    first, then its bases in order, depth first), None when a base that may set it is
    unknown, _ABSENT when no class of the hierarchy sets it and none is a framework's."""
    for statement in info.node.body.body:
        for name, value in _class_constants(statement):
            if name in SUPPORT_ATTRIBUTES:
                return literal_bool(value)
    for base in info.base_names:
        local = index.by_name.get(base)
        if local is not None and local is not info and local not in seen:
            found = _support(local, index, imports, seen | {info})
        else:
            found = _imported_support(base, imports)
        if found is not _ABSENT:
            return found
    return _ABSENT


def _imported_support(base: str, imports: ImportTable) -> bool | None | str:
    qualified = imports.resolve_name(base)
    if qualified is None:
        return _ABSENT if base == "object" else None
    parts = qualified.split(".")
    framework = FRAMEWORK_BASES.get(parts[-1])
    if framework is not None and (framework[0] in parts or "modeling_utils" in parts):
        return False
    return _ABSENT if parts[0] == "torch" else None


def _class_constants(statement: cst.CSTNode) -> Iterator[tuple[str, cst.BaseExpression]]:
    """`name = value` / `name: type = value` at class level."""
    if not isinstance(statement, cst.SimpleStatementLine):
        return
    for small in statement.body:
        if isinstance(small, cst.Assign):
            for target in small.targets:
                if isinstance(target.target, cst.Name):
                    yield target.target.value, small.value
        elif (
            isinstance(small, cst.AnnAssign)
            and isinstance(small.target, cst.Name)
            and small.value is not None
        ):
            yield small.target.value, small.value


def _guarded_branches(info: ClassInfo) -> Iterator[cst.CSTNode]:
    """The bodies of `if` statements and expressions, in the class's methods, taken only
    while `self.gradient_checkpointing` is true."""
    for method in info.methods.values():
        for node in iter_nodes(method.body):
            if isinstance(node, cst.If | cst.IfExp) and _requires_flag(node.test):
                yield node.body


def _requires_flag(test: cst.BaseExpression) -> bool:
    """`self.gradient_checkpointing`, alone or as an operand of `and`."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return _requires_flag(test.left) or _requires_flag(test.right)
    return (
        isinstance(test, cst.Attribute)
        and test.attr.value == FLAG
        and isinstance(test.value, cst.Name)
        and test.value.value == "self"
    )


def _switches_on(node: cst.CSTNode) -> bool:
    """`x.gradient_checkpointing = value` with a value other than False, or
    `setattr(x, "gradient_checkpointing", ...)`."""
    if isinstance(node, cst.Assign | cst.AnnAssign):
        targets = (
            [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
        )
        switched = node.value is not None and literal_bool(node.value) is not False
        return switched and any(
            isinstance(target, cst.Attribute) and target.attr.value == FLAG for target in targets
        )
    return (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Name)
        and node.func.value == "setattr"
        and len(node.args) > 1
        and isinstance(node.args[1].value, cst.SimpleString)
        and node.args[1].value.value[1:-1] == FLAG
    )


def _outside(module: cst.Module, skipped: set[cst.ClassDef]) -> Iterator[cst.CSTNode]:
    """The module's nodes, pre-order, without the classes in `skipped` (wherever nested)."""
    stack: list[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        if node in skipped:
            continue
        yield node
        stack.extend(children(node))
