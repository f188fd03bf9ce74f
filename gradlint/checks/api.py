"""Misused autograd switches: misspelled `requires_grad`, flags set on non-leaves,
reentrant checkpointing."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property

import libcst as cst

from gradlint import fixes
from gradlint.analysis.names import dotted
from gradlint.analysis.torch_ops import (
    CHECKPOINT_FUNCTIONS,
    DIFFERENTIABLE_FUNCTIONS,
    DIFFERENTIABLE_METHODS,
    PARAMETER_CONSTRUCTORS,
    PARAMETER_LAYERS,
    REQUIRES_GRAD_KEYWORD_FUNCTIONS,
    REQUIRES_GRAD_KEYWORD_METHODS,
)
from gradlint.checks import Checker
from gradlint.diagnostic import Fix, Severity, Witness

REQUIRES_GRAD = "requires_grad"
_GRADIENT_SPELLINGS = frozenset(
    {"requiresgradient", "requiresgradients", "requiregradient", "requiregradients"}
)
_RECORDING_OPERATORS = (
    cst.Add,
    cst.Subtract,
    cst.Multiply,
    cst.Divide,
    cst.MatrixMultiply,
    cst.Power,
)


def _edit_distance(a: str, b: str) -> int:
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, 1):
        current = [i]
        for j, char_b in enumerate(b, 1):
            current.append(
                min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (char_a != char_b))
            )
        previous = current
    return previous[-1]


def is_requires_grad_typo(name: str) -> bool:
    """`require_grad`, `requires_grads`, `requiresGrad`, `requires_gradient`, ..."""
    lowered = name.lower()
    if name == REQUIRES_GRAD or name.startswith("_") or "gr" not in lowered:
        return False
    squashed = lowered.replace("_", "")
    return _edit_distance(lowered, REQUIRES_GRAD) <= 2 or squashed in _GRADIENT_SPELLINGS


def _literal_bool(expr: cst.BaseExpression) -> bool | None:
    if isinstance(expr, cst.Name) and expr.value in ("True", "False"):
        return expr.value == "True"
    return None


def _keyword(call: cst.Call, name: str) -> cst.Arg | None:
    return next((a for a in call.args if a.keyword and a.keyword.value == name), None)


def _spreads_kwargs(call: cst.Call) -> bool:
    return any(arg.star == "**" for arg in call.args)


def _spelling_fix(file, name: cst.Name) -> Fix | None:
    """The misspelled name -> `requires_grad` (safe: the misspelling does nothing or raises)."""
    fixed = name.with_changes(value=REQUIRES_GRAD)
    return fixes.replace(file, name, fixed, f"spell it {REQUIRES_GRAD}")


class RequiresGradKeywordChecker(Checker):
    """GL204: a misspelled `requires_grad` keyword or attribute."""

    codes = ("GL204",)

    def visit_Call(self, node: cst.Call) -> None:
        if not self._takes_requires_grad(node):
            return
        for arg in node.args:
            if arg.keyword is not None and is_requires_grad_typo(arg.keyword.value):
                self.report(
                    arg.keyword,
                    "GL204",
                    f"`{arg.keyword.value}=` is not a keyword of "
                    f"`{self.file.code_for(node.func)}`: torch raises TypeError (unexpected "
                    "keyword argument); write `requires_grad=`",
                    severity=Severity.ERROR,
                    witness=_keyword_witness(arg.keyword.value),
                    fix=None
                    if _keyword(node, REQUIRES_GRAD)
                    else _spelling_fix(self.file, arg.keyword),
                )

    def _takes_requires_grad(self, call: cst.Call) -> bool:
        if self.resolve(call.func) in REQUIRES_GRAD_KEYWORD_FUNCTIONS:
            return True
        func = call.func
        return isinstance(func, cst.Attribute) and func.attr.value in REQUIRES_GRAD_KEYWORD_METHODS

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            attribute = target.target
            if not isinstance(attribute, cst.Attribute):
                continue
            name = attribute.attr.value
            if dotted(attribute.value) == "self":
                continue  # a setting of the project's own class, not a tensor flag
            if is_requires_grad_typo(name) and name not in self._attributes_read:
                self.report(
                    attribute.attr,
                    "GL204",
                    f"`{self.file.code_for(attribute)}` sets a new Python attribute, not "
                    "autograd's flag: `requires_grad` keeps its old value and no error is "
                    "raised; write `.requires_grad`",
                    severity=Severity.WARNING,
                    witness=_attribute_witness(name),
                    fix=_spelling_fix(self.file, attribute.attr),
                )

    @cached_property
    def _attributes_read(self) -> frozenset[str]:
        """Attribute names the file reads: a misspelling read back is the project's own name."""
        collector = _AttributeReads()
        self.file.module.visit(collector)
        return frozenset(collector.read)


class _AttributeReads(cst.CSTVisitor):
    def __init__(self) -> None:
        self.read: set[str] = set()
        self._stored: set[cst.Attribute] = set()

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        if isinstance(node.target, cst.Attribute):
            self._stored.add(node.target)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node not in self._stored:
            self.read.add(node.attr.value)


def _keyword_witness(keyword: str) -> Witness:
    program = f"import torch\n\ntorch.zeros(3, {keyword}=True)\n"
    return Witness(program, f"zeros() got an unexpected keyword argument '{keyword}'")


def _attribute_witness(name: str) -> Witness:
    expect = f"setting `.{name}` left requires_grad False"
    program = (
        "import torch\n\n"
        "t = torch.zeros(3)\n"
        f"t.{name} = True\n"
        "if not t.requires_grad:\n"
        f"    raise AssertionError({expect!r})\n"
    )
    return Witness(program, expect)


@dataclass(frozen=True)
class _Flow:
    """Local names known to require grad, and those of them that are non-leaves."""

    grad: frozenset[str] = frozenset()
    nonleaf: frozenset[str] = frozenset()

    def bind(self, name: str, requires_grad: bool, nonleaf: bool) -> _Flow:
        grad = self.grad | {name} if requires_grad else self.grad - {name}
        rest = self.nonleaf | {name} if nonleaf else self.nonleaf - {name}
        return _Flow(frozenset(grad), frozenset(rest))

    def forget(self, names: set[str]) -> _Flow:
        return _Flow(self.grad - names, self.nonleaf - names)

    def meet(self, other: _Flow) -> _Flow:
        """What holds on both of two paths."""
        return _Flow(self.grad & other.grad, self.nonleaf & other.nonleaf)


def _bound_names(target: cst.BaseExpression) -> set[str]:
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, cst.Tuple | cst.List):
        return {n for el in target.elements for n in _bound_names(el.value)}
    if isinstance(target, cst.StarredElement):
        return _bound_names(target.value)
    return set()


def _small_statements(statements) -> Iterator[cst.BaseSmallStatement]:
    """The simple statements of a body, nested blocks included, nested scopes not."""
    for statement in statements:
        if isinstance(statement, cst.SimpleStatementLine):
            yield from statement.body
        elif isinstance(statement, cst.FunctionDef | cst.ClassDef):
            continue
        elif isinstance(statement, cst.BaseCompoundStatement):
            blocks = [getattr(statement, "body", None), getattr(statement, "orelse", None)]
            blocks += [getattr(statement, "finalbody", None)]
            blocks += [handler.body for handler in getattr(statement, "handlers", ())]
            for block in blocks:
                if isinstance(block, cst.If):
                    yield from _small_statements([block])
                elif isinstance(block, cst.Else | cst.Finally):
                    yield from _small_statements(block.body.body)
                elif isinstance(block, cst.IndentedBlock):
                    yield from _small_statements(block.body)
                elif isinstance(block, cst.SimpleStatementSuite):
                    yield from block.body


def _sets_a_flag(statements) -> bool:
    """Whether a body assigns `x.requires_grad` or calls `x.requires_grad_(...)` at all."""
    for small in _small_statements(statements):
        if isinstance(small, cst.Assign) and any(
            isinstance(t.target, cst.Attribute) and t.target.attr.value == REQUIRES_GRAD
            for t in small.targets
        ):
            return True
        if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
            func = small.value.func
            if isinstance(func, cst.Attribute) and func.attr.value == "requires_grad_":
                return True
    return False


class NonLeafRequiresGradChecker(Checker):
    """GL204: `t.requires_grad = ...` on a tensor produced by a recorded op."""

    codes = ("GL204",)

    def __init__(self, file) -> None:
        super().__init__(file)
        self._class_scans: dict[cst.ClassDef, tuple[frozenset[str], frozenset[str]]] = {}

    def visit_Module(self, node: cst.Module) -> None:
        if _sets_a_flag(node.body):
            self._walk(node.body, _Flow(), grad_enabled=True)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        body = node.body
        if isinstance(body, cst.IndentedBlock) and _sets_a_flag(body.body):
            self._walk(body.body, _Flow(), self.scope.grad_enabled)

    # -- statements ------------------------------------------------------------------

    def _walk(self, statements, flow: _Flow, grad_enabled: bool) -> _Flow:
        for statement in statements:
            flow, grad_enabled = self._statement(statement, flow, grad_enabled)
        return flow

    def _block(self, block, flow: _Flow, grad_enabled: bool) -> _Flow:
        if isinstance(block, cst.IndentedBlock):
            return self._walk(block.body, flow, grad_enabled)
        return self._walk([cst.SimpleStatementLine(block.body)], flow, grad_enabled)

    def _statement(self, statement, flow: _Flow, grad_enabled: bool) -> tuple[_Flow, bool]:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                flow, grad_enabled = self._small(small, flow, grad_enabled)
            return flow, grad_enabled
        if isinstance(statement, cst.If):
            taken = self._block(statement.body, flow, grad_enabled)
            other = flow
            if isinstance(statement.orelse, cst.If):
                other, _ = self._statement(statement.orelse, flow, grad_enabled)
            elif statement.orelse is not None:
                other = self._block(statement.orelse.body, flow, grad_enabled)
            return taken.meet(other), grad_enabled
        if isinstance(statement, cst.For | cst.While):
            if isinstance(statement, cst.For):
                flow = flow.forget(_bound_names(statement.target))
            looped = flow.meet(self._block(statement.body, flow, grad_enabled))
            if statement.orelse is not None:
                looped = looped.meet(self._block(statement.orelse.body, looped, grad_enabled))
            return looped, grad_enabled
        if isinstance(statement, cst.With):
            inner = grad_enabled
            for item in statement.items:
                effect = self.scope.grad_effect(item.item)
                inner = effect if effect is not None else inner
                if item.asname is not None:
                    flow = flow.forget(_bound_names(item.asname.name))
            return self._block(statement.body, flow, inner), grad_enabled
        if isinstance(statement, cst.Try):
            body = self._block(statement.body, flow, grad_enabled)
            after = flow.meet(body)  # an exception may leave the body anywhere
            for handler in statement.handlers:
                after = after.meet(self._block(handler.body, after, grad_enabled))
            if statement.orelse is not None:
                after = after.meet(self._block(statement.orelse.body, body, grad_enabled))
            if statement.finalbody is not None:
                after = self._block(statement.finalbody.body, after, grad_enabled)
            return after, grad_enabled
        if isinstance(statement, cst.FunctionDef | cst.ClassDef):
            return flow.forget({statement.name.value}), grad_enabled
        # match / anything else: names it binds are no longer known
        return _Flow(), grad_enabled

    def _small(self, small, flow: _Flow, grad_enabled: bool) -> tuple[_Flow, bool]:
        if isinstance(small, cst.Assign):
            for target in small.targets:
                self._check_flag_assignment(target.target, flow)
            requires, nonleaf = self._classify(small.value, flow, grad_enabled)
            for target in small.targets:
                if isinstance(target.target, cst.Name):
                    flow = flow.bind(target.target.value, requires, nonleaf)
                else:
                    flow = flow.forget(_bound_names(target.target))
        elif isinstance(small, cst.AnnAssign | cst.AugAssign | cst.Del):
            flow = flow.forget(_bound_names(small.target))
        elif isinstance(small, cst.Import | cst.ImportFrom):
            return _Flow(), grad_enabled
        elif isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
            self._check_requires_grad_call(small.value, flow)
            effect = self.scope.grad_effect(small.value)
            if effect is not None:
                grad_enabled = effect
        return flow, grad_enabled

    # -- findings --------------------------------------------------------------------

    def _check_flag_assignment(self, target: cst.BaseExpression, flow: _Flow) -> None:
        if not (isinstance(target, cst.Attribute) and target.attr.value == REQUIRES_GRAD):
            return
        if isinstance(target.value, cst.Name) and target.value.value in flow.nonleaf:
            name = target.value.value
            self.report(
                target,
                "GL204",
                f"`{name}` is the result of a recorded op (a non-leaf), so setting "
                "`requires_grad` raises RuntimeError (you can only change requires_grad "
                f"flags of leaf variables); it already requires grad — drop the line, or "
                f"use `{name}.detach().requires_grad_()` to start a new leaf",
                severity=Severity.ERROR,
                witness=NONLEAF_WITNESS,
            )

    def _check_requires_grad_call(self, call: cst.Call, flow: _Flow) -> None:
        func = call.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "requires_grad_"):
            return
        if not (isinstance(func.value, cst.Name) and func.value.value in flow.nonleaf):
            return
        if len(call.args) == 1 and _literal_bool(call.args[0].value) is False:
            self.report(
                call,
                "GL204",
                f"`{func.value.value}` is the result of a recorded op (a non-leaf): "
                "`requires_grad_(False)` raises RuntimeError (you can only change "
                f"requires_grad flags of leaf variables); use `{func.value.value}.detach()`",
                severity=Severity.ERROR,
                witness=NONLEAF_WITNESS,
            )

    # -- expressions -----------------------------------------------------------------

    def _classify(
        self, expr: cst.BaseExpression, flow: _Flow, grad_enabled: bool
    ) -> tuple[bool, bool]:
        """(requires grad, non-leaf) for a value, both False when unknown."""
        if self._is_new_leaf_requiring_grad(expr):
            return True, False
        if grad_enabled and self._records(expr, flow):
            return True, True
        if isinstance(expr, cst.Name) and expr.value in flow.grad:
            return True, expr.value in flow.nonleaf
        return False, False

    def _is_new_leaf_requiring_grad(self, expr: cst.BaseExpression) -> bool:
        if not isinstance(expr, cst.Call):
            return False
        qualified = self.resolve(expr.func)
        flag = _keyword(expr, REQUIRES_GRAD)
        if qualified in PARAMETER_CONSTRUCTORS:
            return flag is None or _literal_bool(flag.value) is True
        return (
            qualified in REQUIRES_GRAD_KEYWORD_FUNCTIONS
            and flag is not None
            and _literal_bool(flag.value) is True
        )

    def _requires_grad(self, expr: cst.BaseExpression, flow: _Flow) -> bool:
        if isinstance(expr, cst.Name):
            return expr.value in flow.grad
        if self._is_parameter_attribute(expr) or self._is_new_leaf_requiring_grad(expr):
            return True
        return self._records(expr, flow)

    def _records(self, expr: cst.BaseExpression, flow: _Flow) -> bool:
        """True when `expr` is an op autograd records on an input that requires grad."""
        if isinstance(expr, cst.BinaryOperation):
            return isinstance(expr.operator, _RECORDING_OPERATORS) and (
                self._requires_grad(expr.left, flow) or self._requires_grad(expr.right, flow)
            )
        if isinstance(expr, cst.UnaryOperation):
            return isinstance(expr.operator, cst.Minus) and self._requires_grad(
                expr.expression, flow
            )
        if isinstance(expr, cst.Subscript):
            return self._requires_grad(expr.value, flow)
        if not isinstance(expr, cst.Call):
            return False
        func = expr.func
        qualified = self.resolve(func)
        if qualified in DIFFERENTIABLE_FUNCTIONS and expr.args:
            first = expr.args[0].value
            if DIFFERENTIABLE_FUNCTIONS[qualified] is None:
                elements = first.elements if isinstance(first, cst.List | cst.Tuple) else ()
                return any(self._requires_grad(el.value, flow) for el in elements)
            return self._requires_grad(first, flow)
        if qualified is None and isinstance(func, cst.Attribute):
            if func.attr.value in DIFFERENTIABLE_METHODS:
                return self._requires_grad(func.value, flow)
            return self._is_trainable_layer(func)
        return False

    def _is_parameter_attribute(self, expr: cst.BaseExpression) -> bool:
        """`self.weight` where the enclosing class assigns `self.weight = nn.Parameter(...)`."""
        name = dotted(expr)
        return name is not None and name in self._class_attributes[0]

    def _is_trainable_layer(self, func: cst.Attribute) -> bool:
        """`self.fc` where the enclosing class builds `self.fc = nn.Linear(...)` and never
        touches a `requires_grad` flag (a frozen layer's output is a leaf)."""
        name = dotted(func)
        return name is not None and name in self._class_attributes[1]

    @property
    def _class_attributes(self) -> tuple[frozenset[str], frozenset[str]]:
        owner = self.scope.method_class
        if owner is None:
            return frozenset(), frozenset()
        if owner.node not in self._class_scans:
            self._class_scans[owner.node] = self._scan_class(owner.node)
        return self._class_scans[owner.node]

    def _scan_class(self, node: cst.ClassDef) -> tuple[frozenset[str], frozenset[str]]:
        """(`self.x` bound to parameters, `self.x` bound to layers with parameters)."""
        freezes = _FREEZES.search(self.file.code_for(node)) is not None
        collector = _SelfAssignments()
        node.visit(collector)
        parameters, layers = set(), set()
        for target, value in collector.assignments:
            qualified = self.resolve(value.func)
            if qualified in PARAMETER_CONSTRUCTORS and self._is_new_leaf_requiring_grad(value):
                parameters.add(target)
            elif qualified in PARAMETER_LAYERS and not freezes:
                layers.add(target)
        reassigned = {target for target, count in collector.counts.items() if count > 1}
        return frozenset(parameters - reassigned), frozenset(layers - reassigned)


# A class that turns any gradient off (`p.requires_grad = False`, `requires_grad_(False)`,
# `requires_grad=False`) may freeze its layers: their outputs can be leaves.
_FREEZES = re.compile(r"requires_grad_?\s*(=|\()\s*(requires_grad\s*=\s*)?False")


class _SelfAssignments(cst.CSTVisitor):
    """`self.x = SomeCall(...)` statements of a class, and how often each `self.x` is bound."""

    def __init__(self) -> None:
        self.assignments: list[tuple[str, cst.Call]] = []
        self.counts: dict[str, int] = {}

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        name = dotted(node.target)
        if name is not None and name.startswith("self.") and name.count(".") == 1:
            self.counts[name] = self.counts.get(name, 0) + 1

    def visit_Assign(self, node: cst.Assign) -> None:
        if isinstance(node.value, cst.Call):
            for target in node.targets:
                name = dotted(target.target)
                if name is not None and name.startswith("self."):
                    self.assignments.append((name, node.value))


NONLEAF_WITNESS = Witness(
    "import torch\n\nx = torch.randn(3, requires_grad=True)\ny = x * 2\ny.requires_grad = True\n",
    "you can only change requires_grad flags of leaf variables",
)


class CheckpointReentrantChecker(Checker):
    """GL205: checkpointing without `use_reentrant=False`."""

    codes = ("GL205",)

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.resolve(node.func)
        if qualified not in CHECKPOINT_FUNCTIONS or _spreads_kwargs(node):
            return
        flag = _keyword(node, "use_reentrant")
        if flag is not None and not (
            isinstance(flag.value, cst.Name) and flag.value.value == "None"
        ):
            return
        short = qualified.rsplit(".", 1)[-1]
        self.report(
            node,
            "GL205",
            f"`{short}(...)` without `use_reentrant=False` runs the reentrant variant (torch "
            "warns the argument will be required): when no input requires grad, as with "
            "frozen embeddings under LoRA / PEFT, its output does not require grad and the "
            "parameters inside never get gradients; pass `use_reentrant=False`",
            fix=self._fix(node, flag),
            witness=CHECKPOINT_WITNESS,
        )

    def _fix(self, node: cst.Call, flag: cst.Arg | None) -> Fix | None:
        value = cst.Name("False")
        if flag is not None:
            fixed = node.deep_replace(flag.value, value)
        else:
            fixed = node.with_changes(
                args=[
                    *node.args,
                    cst.Arg(
                        value=value,
                        keyword=cst.Name("use_reentrant"),
                        equal=cst.AssignEqual(
                            whitespace_before=cst.SimpleWhitespace(""),
                            whitespace_after=cst.SimpleWhitespace(""),
                        ),
                    ),
                ]
            )
        return fixes.replace(self.file, node, fixed, "pass use_reentrant=False", unsafe=True)


CHECKPOINT_WITNESS = Witness(
    "import warnings\n\n"
    "import torch\n"
    "from torch.utils.checkpoint import checkpoint\n\n"
    "warnings.simplefilter('ignore')\n"
    "layer = torch.nn.Linear(4, 4)\n"
    "frozen = torch.randn(2, 4)  # e.g. the output of a frozen embedding\n"
    "out = checkpoint(layer, frozen)\n"
    "if not out.requires_grad:\n"
    "    raise AssertionError('checkpoint output does not require grad')\n",
    "checkpoint output does not require grad",
)
