"""Cheap name resolution: what `F`, `nn`, `torch.Tensor.view` and friends stand for.

A single pass over import statements replaces libcst's QualifiedNameProvider, which
costs more than parsing. `resolve(expr)` turns a `Name` / `Attribute` chain into a
canonical dotted name (`F.relu` -> `torch.nn.functional.relu`) when its head was
imported, and returns None otherwise (local variables, attributes of `self`, ...).
"""

from __future__ import annotations

import libcst as cst

# Canonical spellings for the places torch re-exports names from.
_CANONICAL_PREFIXES = (
    ("torch.nn.modules.module.", "torch.nn."),
    ("torch.nn.parameter.", "torch.nn."),
    ("torch.autograd.function.", "torch.autograd."),
    ("torch.autograd.grad_mode.", "torch."),
    ("torch.autograd.no_grad", "torch.no_grad"),
    ("torch.autograd.enable_grad", "torch.enable_grad"),
    ("torch.autograd.set_grad_enabled", "torch.set_grad_enabled"),
    ("torch.autograd.inference_mode", "torch.inference_mode"),
    ("torch.optim.optimizer.", "torch.optim."),
    ("torch.nn.modules.", "torch.nn."),
    ("torch.functional.", "torch."),
)


_UNKNOWN = object()  # not resolved yet


def canonical(qualified: str) -> str:
    for prefix, replacement in _CANONICAL_PREFIXES:
        if qualified.startswith(prefix):
            rest = qualified[len(prefix) :]
            if prefix == "torch.nn.modules.":  # torch.nn.modules.linear.Linear -> torch.nn.Linear
                rest = rest.split(".", 1)[-1]
            return replacement + rest
    return qualified


def dotted(expr: cst.BaseExpression) -> str | None:
    """`a.b.c` for a Name/Attribute chain, else None."""
    if isinstance(expr, cst.Name):  # most of the calls: no list, no join
        return expr.value
    parts = []
    while isinstance(expr, cst.Attribute):
        parts.append(expr.attr.value)
        expr = expr.value
    if not isinstance(expr, cst.Name):
        return None
    parts.append(expr.value)
    parts.reverse()
    return ".".join(parts)


def nested_blocks(statement: cst.CSTNode) -> list[list]:
    """The statement lists inside an if / try / with / for / while: body, handlers, else,
    finally."""
    blocks = [statement.body.body]
    blocks += [handler.body.body for handler in getattr(statement, "handlers", ())]
    for attr in ("orelse", "finalbody"):
        block = getattr(statement, attr, None)
        if isinstance(block, cst.If):
            blocks.append([block])
        elif block is not None:
            blocks.append(block.body.body)
    return blocks


def _module_name(node: cst.BaseExpression | None) -> str:
    return (dotted(node) or "") if node is not None else ""


class ImportTable:
    """Local name -> qualified name, for every import in a file."""

    def __init__(self, package: str = "") -> None:
        self.package = package  # dotted package of the linted file, for relative imports
        self.bindings: dict[str, str] = {}
        # resolve()'s answers by node: rules and the interpreter ask about the same
        # expressions many times; an import added later clears them
        self._resolved: dict[cst.BaseExpression, str | None] = {}

    @classmethod
    def from_module(cls, module: cst.Module, package: str = "") -> ImportTable:
        table = cls(package)
        table._scan(module.body)
        return table

    def _scan(self, statements) -> None:
        """Imports at module level, also inside top-level if / try / with blocks (without
        recursion: a chain of a thousand `elif`s is one level deeper per branch)."""
        pending = [iter(statements)]
        while pending:
            statement = next(pending[-1], None)
            if statement is None:
                pending.pop()
            elif isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    if isinstance(small, cst.Import | cst.ImportFrom):
                        self.add(small)
            elif isinstance(statement, cst.If | cst.Try | cst.TryStar | cst.With):
                pending.extend(iter(block) for block in reversed(nested_blocks(statement)))

    def add(self, node: cst.Import | cst.ImportFrom) -> None:
        self._resolved.clear()
        if isinstance(node, cst.Import):
            for alias in node.names:
                full = _module_name(alias.name)
                if alias.asname is not None:
                    self.bindings[alias.asname.name.value] = full
                else:
                    head = full.split(".", 1)[0]
                    self.bindings[head] = head
            return
        if isinstance(node.names, cst.ImportStar):
            return
        base = self._absolute(node)
        for alias in node.names:
            name = alias.name.value if isinstance(alias.name, cst.Name) else dotted(alias.name)
            local = alias.asname.name.value if alias.asname is not None else name
            self.bindings[local] = f"{base}.{name}" if base else name

    def _absolute(self, node: cst.ImportFrom) -> str:
        module = _module_name(node.module)
        level = len(node.relative)
        if not level:
            return module
        parts = self.package.split(".") if self.package else []
        if level > 1:
            parts = parts[: len(parts) - (level - 1)]
        return ".".join(p for p in [*parts, module] if p)

    def resolve(self, expr: cst.BaseExpression) -> str | None:
        """Canonical qualified name of an imported name or attribute chain."""
        found = self._resolved.get(expr, _UNKNOWN)
        if found is _UNKNOWN:
            name = dotted(expr)
            found = self._resolved[expr] = self.resolve_name(name) if name is not None else None
        return found

    def resolve_name(self, name: str) -> str | None:
        """`resolve` for a dotted name given as text."""
        head, _, rest = name.partition(".")
        bound = self.bindings.get(head)
        if bound is None:
            return None
        return canonical(f"{bound}.{rest}" if rest else bound)

    def imports_torch(self) -> bool:
        return any(q == "torch" or q.startswith("torch.") for q in self.bindings.values())
