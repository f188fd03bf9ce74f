"""GL101-GL105: in-place edits that break autograd.

Each function body (and the module body) is walked statement by statement, keeping for
every local name what is proven about the tensor it holds: a leaf that requires grad,
which storage it shares, whether it aliases a `forward()` argument, and which storages
autograd has saved for backward. The whole file is analysed at `leave_Module`, in two
passes: the first learns which functions receive parameters and in which grad mode they
are called, the second reports.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

import libcst as cst

from gradlint import fixes
from gradlint.analysis import torch_ops as ops
from gradlint.analysis.context import ClassInfo, ClassKind
from gradlint.analysis.names import dotted
from gradlint.analysis.walk import iter_nodes
from gradlint.checks import Checker
from gradlint.diagnostic import Fix, Severity, Witness

LEAF_ERROR = "a leaf Variable that requires grad is being used in an in-place operation"
VIEW_LEAF_ERROR = "a view of a leaf Variable that requires grad is being used in an in-place"
SAVED_ERROR = "one of the variables needed for gradient computation has been modified by an"
OUT_ERROR = "add(): functions with out=... arguments don't support automatic differentiation"
INPUT_MUTATED = "forward() overwrote its caller's tensor"
DATA_MUTATED = "the gradient was computed from the mutated .data"

# The witness line for an augmented assignment, by libcst operator.
_AUG_FORMS = {
    "SubtractAssign": "t -= 1.0",
    "MultiplyAssign": "t *= 2.0",
    "DivideAssign": "t /= 2.0",
}
_MASK_FUNCTIONS = frozenset({"isnan", "isinf", "isfinite", "isneginf", "isposinf", "bool"})
_MASK_FUNCTIONS_QUALIFIED = frozenset(
    {f"torch.{n}" for n in _MASK_FUNCTIONS} | {"torch.logical_not", "torch.logical_and"}
)
_NO_GRAD_RESULTS = frozenset({"argmax", "argmin", "argsort", "size", "dim", "numel", "item"})
_TENSOR_ONLY_METHODS = frozenset(
    {"view", "permute", "size", "dim", "unsqueeze", "contiguous", "masked_fill", "type_as"}
)
_LAYERS = (
    frozenset(ops.PARAMETER_LAYERS) | set(ops.INPLACE_FLAG_MODULES) | set(ops.SAVES_OUTPUT_LAYERS)
)


@dataclass(frozen=True)
class Tensor:
    """What is proven about the value a name holds."""

    storage: int  # shared by a tensor and its views (one version counter)
    requires_grad: bool | None = None  # None: unknown
    leaf: bool = False  # a leaf that requires grad (parameter, factory with requires_grad)
    view: bool = False
    forward_input: str | None = None  # the forward() argument whose storage this is
    is_tensor: bool = False
    described: str = ""  # what it is, for messages: "parameter", "forward() argument"


@dataclass(frozen=True)
class Saver:
    """The op that saved a storage for backward, and how to reproduce it in a witness."""

    op: str
    setup: str  # statements binding `t` (the tensor later edited) and `out`


@dataclass
class Edit:
    """One in-place write: `form` is the witness line with the edited tensor as `t`."""

    node: cst.CSTNode
    target: cst.BaseExpression
    form: str
    fact: Tensor | None = None  # the edited tensor, when the caller already evaluated it
    mask: bool = False
    proves_tensor: bool = False
    out_arg: bool = False


@dataclass
class FunctionInfo:
    """A function of the file: its class, its grad mode, and what its callers tell."""

    node: cst.FunctionDef
    owner: ClassInfo | None
    grad_enabled: bool
    call_modes: list[bool] = field(default_factory=list)
    argument_facts: dict[str, Tensor] = field(default_factory=dict)

    @property
    def grad_on(self) -> bool:
        called_only_without_grad = self.call_modes and not any(self.call_modes)
        return self.grad_enabled and not called_only_without_grad


@dataclass
class ClassFacts:
    """Attributes of a class that hold parameters or torch.nn layers."""

    parameters: set[str] = field(default_factory=set)
    layers: dict[str, cst.Call] = field(default_factory=dict)  # attr -> constructor call


class InplaceChecker(Checker):
    """GL101-GL105 over each function body, analysed when the whole file is known."""

    codes = ("GL101", "GL102", "GL103", "GL104", "GL105")

    def __init__(self, file) -> None:
        super().__init__(file)
        self.functions: dict[cst.FunctionDef, FunctionInfo] = {}
        self.differentiating: set[cst.FunctionDef | None] = set()  # bodies calling backward
        self.callees: dict[cst.FunctionDef | None, set[str]] = {}  # `f` / `self.m` called
        self.frozen: set[str] = set()  # names whose requires_grad is switched off
        self.dirty: dict[cst.FunctionDef, set[str]] = {}  # ctx.mark_dirty(...) arguments
        self.self_assignments: dict[cst.ClassDef, list[tuple[str, cst.BaseExpression]]] = {}

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        frame = self.scope.function
        self.functions[node] = FunctionInfo(node, frame.owner, self.scope.grad_enabled)

    def visit_Call(self, node: cst.Call) -> None:
        frame = self.scope.function
        function = frame.node if frame is not None else None
        name = dotted(node.func) or ""
        method = node.func.attr.value if isinstance(node.func, cst.Attribute) else ""
        if name and (name.count(".") == 0 or (name.startswith("self.") and name.count(".") == 1)):
            self.callees.setdefault(function, set()).add(name)
        if method == "backward" or self.resolve(node.func) == "torch.autograd.grad":
            self.differentiating.add(function)
        elif name.endswith(".requires_grad_") and node.args and _is_false(node.args[0].value):
            self.frozen.add(name.rpartition(".")[0])
        elif name.endswith(".mark_dirty") and function is not None:
            self.dirty.setdefault(function, set()).update(dotted(a.value) for a in node.args)
        elif name == "self.register_parameter" and len(node.args) == 2:
            label = node.args[0].value
            if isinstance(label, cst.SimpleString):
                self._self_assignment(label.evaluated_value, node.args[1].value)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            attribute = target.target
            if not isinstance(attribute, cst.Attribute):
                continue
            owner = dotted(attribute.value)
            if attribute.attr.value == "requires_grad" and not _is_true(node.value):
                self.frozen.add(owner or "?")
            elif owner == "self":
                self._self_assignment(attribute.attr.value, node.value)

    def _self_assignment(self, attr: str, value: cst.BaseExpression) -> None:
        owner = self.scope.method_class
        if owner is not None:
            self.self_assignments.setdefault(owner.node, []).append((attr, value))

    def leave_Module(self, node: cst.Module) -> None:
        program = FileAnalysis(self, node)
        program.run(report=False)
        program.run(report=True)


class FileAnalysis:
    """The shared facts of one file and the two passes over its bodies."""

    def __init__(self, checker: InplaceChecker, module: cst.Module) -> None:
        self.checker = checker
        self.module = module
        self.frozen = checker.frozen
        self.classes = {
            info.node: self._class_facts(info) for info in checker.file.index.by_node.values()
        }
        self.by_name = {
            info.node.name.value: info for info in checker.functions.values() if info.owner is None
        }
        self.counter = itertools.count(1)
        self.differentiated = self._differentiated()

    def _differentiated(self) -> set[cst.FunctionDef | None]:
        """Bodies whose results autograd differentiates: module `forward` methods, bodies
        calling `backward()`, and the functions and methods of this file they call."""
        roots = set(self.checker.differentiating)
        for info in self.checker.functions.values():
            owner = info.owner
            if owner is not None and owner.is_module and info.node.name.value == "forward":
                roots.add(info.node)
        pending, seen = list(roots), set(roots)
        while pending:
            body = pending.pop()
            owner = self.checker.functions[body].owner if body is not None else None
            for name in self.checker.callees.get(body, ()):
                callee = self.callee(name, owner)
                if callee is not None and callee.node not in seen:
                    seen.add(callee.node)
                    pending.append(callee.node)
        return seen

    def callee(self, name: str, owner: ClassInfo | None) -> FunctionInfo | None:
        """The function of this file that `f(...)` or `self.m(...)` calls, if known."""
        if "." not in name:
            return self.by_name.get(name)
        head, _, method = name.partition(".")
        if head == "self" and owner is not None and "." not in method:
            node = owner.methods.get(method)
            return self.checker.functions.get(node) if node is not None else None
        return None

    def _class_facts(self, info: ClassInfo) -> ClassFacts:
        facts = ClassFacts()
        chain = [info, *self._local_bases(info)]
        assigned: dict[str, list[cst.BaseExpression]] = {}
        for cls in chain:
            for target, value in self.checker.self_assignments.get(cls.node, ()):
                assigned.setdefault(target, []).append(value)
        for attr, values in assigned.items():
            real = [v for v in values if not (isinstance(v, cst.Name) and v.value == "None")]
            if not real or f"self.{attr}" in self.frozen:
                continue
            if all(self._is_parameter_call(v) for v in real):
                facts.parameters.add(attr)
            elif (
                len(real) == 1
                and isinstance(real[0], cst.Call)
                and self.checker.resolve(real[0].func)
            ):
                facts.layers[attr] = real[0]
        return facts

    def _local_bases(self, info: ClassInfo) -> list[ClassInfo]:
        index = self.checker.file.index.by_name
        return [index[b] for b in info.base_names if b in index and index[b] is not info]

    def _is_parameter_call(self, value: cst.BaseExpression) -> bool:
        if not isinstance(value, cst.Call):
            return False
        if self.checker.resolve(value.func) != "torch.nn.Parameter":
            return False
        flag = _argument(value, "requires_grad", 1)
        return flag is None or _is_true(flag)

    def run(self, report: bool) -> None:
        self.report = report
        BodyWalk(self, None).walk(self.module.body, grad=True)
        for info in self.checker.functions.values():
            BodyWalk(self, info).walk(info.node.body.body, grad=info.grad_on)

    def new_storage(self) -> int:
        return next(self.counter)


class BodyWalk:
    """One function (or module) body, statement by statement."""

    def __init__(self, program: FileAnalysis, function: FunctionInfo | None) -> None:
        self.program = program
        self.checker = program.checker
        self.function = function
        self.names: dict[str, Tensor] = {}
        self.saved: dict[int, Saver] = {}
        self.masks: set[str] = set()
        self.grad = True
        self.reported: set[cst.CSTNode] = set()
        self.statement: cst.CSTNode | None = None
        self.order = 0
        self.bound_at: dict[str, int] = {}
        self.data_writes: list[tuple[int, cst.CSTNode, str]] = []
        self.backward_calls: list[tuple[int, int]] = []  # (order, order its operand was bound)
        self.local_layers: dict[str, cst.Call] = {}
        self.read_parameters: set[str] = set()
        owner = function.owner if function else None
        self.class_facts = program.classes.get(owner.node) if owner else None
        self.role = self._role()
        self.differentiated = (function.node if function else None) in program.differentiated
        if function is not None:
            self._bind_parameters(function)

    def _role(self) -> str | None:
        if self.function is None or self.function.node.name.value != "forward":
            return None
        owner = self.function.owner
        if owner is None:
            return None
        if owner.kind is ClassKind.MODULE:
            return "module_forward"
        if owner.kind is ClassKind.AUTOGRAD_FUNCTION:
            return "function_forward"
        return None

    # -- parameters of the function -------------------------------------------------

    def _bind_parameters(self, function: FunctionInfo) -> None:
        params = list(function.node.params.params)
        skip = 1 if function.owner is not None and not _is_staticmethod(function.node) else 0
        if self.role == "function_forward":
            skip = 1  # ctx
        for param in params[skip:]:
            name = param.name.value
            known = function.argument_facts.get(name)
            if known is not None:
                storage = self.program.new_storage()
                self.names[name] = replace(known, storage=storage, view=False, forward_input=None)
            elif self.role is not None:
                self.names[name] = Tensor(
                    self.program.new_storage(),
                    forward_input=name,
                    is_tensor=_annotated_tensor(param, self.checker),
                    described="forward() argument",
                )
            else:
                self.names[name] = Tensor(self.program.new_storage())

    # -- statements ------------------------------------------------------------------

    def walk(self, statements, grad: bool) -> None:
        self.grad = grad
        self._block(statements)
        self._finish_data_writes()

    def _block(self, statements) -> None:
        for statement in statements:
            self._statement(statement)

    def _statement(self, statement: cst.CSTNode) -> None:
        self.order += 1
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                self.statement = small
                self._small(small)
        elif isinstance(statement, cst.If):
            self.statement = statement
            self.eval(statement.test)
            self._block(statement.body.body)
            orelse = statement.orelse
            if isinstance(orelse, cst.If):
                self._statement(orelse)
            elif orelse is not None:
                self._block(orelse.body.body)
        elif isinstance(statement, cst.For):
            self.statement = statement
            self._bind_loop(statement)
            self._block(statement.body.body)
        elif isinstance(statement, cst.While):
            self.statement = statement
            self.eval(statement.test)
            self._block(statement.body.body)
        elif isinstance(statement, cst.With):
            self._with(statement)
        elif isinstance(statement, cst.Try):
            self._block(statement.body.body)
            for handler in statement.handlers:
                self._block(handler.body.body)
            for block in (statement.orelse, statement.finalbody):
                if block is not None:
                    self._block(block.body.body)
        elif isinstance(statement, cst.FunctionDef | cst.ClassDef):
            self.names.pop(statement.name.value, None)

    def _with(self, statement: cst.With) -> None:
        outer = self.grad
        for item in statement.items:
            self.statement = statement
            effect = self.checker.scope.grad_effect(item.item)
            if effect is not None:
                self.grad = effect
            else:
                self.eval(item.item)
            if item.asname is not None:
                self._bind_target(item.asname.name, None)
        self._block(statement.body.body)
        self.grad = outer

    def _small(self, small: cst.BaseSmallStatement) -> None:
        if isinstance(small, cst.Expr):
            effect = (
                self.checker.scope.grad_effect(small.value)
                if isinstance(small.value, cst.Call)
                else None
            )
            if effect is not None:
                self.grad = effect
                return
            self.eval(small.value)
        elif isinstance(small, cst.Assign):
            self._assign(small)
        elif isinstance(small, cst.AnnAssign) and small.value is not None:
            value = self.eval(small.value)
            self._bind_target(small.target, value, small.value)
        elif isinstance(small, cst.AugAssign):
            self._aug_assign(small)
        elif isinstance(small, cst.Return) and small.value is not None:
            self.eval(small.value)

    def _assign(self, node: cst.Assign) -> None:
        value = self.eval(node.value)
        for target in node.targets:
            target = target.target
            if isinstance(target, cst.Subscript):
                self.eval(target.value)
                mask = self._is_mask(target)
                form = "t[t > 0] = 0.0" if mask else "t[0] = 0.0"
                self._edit(Edit(node, target.value, form, mask=mask, proves_tensor=mask))
            elif isinstance(target, cst.Attribute) and target.attr.value == "data":
                self._data_write(node, target.value)
            else:
                self._bind_target(target, value, node.value)

    def _aug_assign(self, node: cst.AugAssign) -> None:
        self.eval(node.value)
        target = node.target
        if isinstance(target, cst.Subscript):
            self.eval(target.value)
            mask = self._is_mask(target)
            form = "t[t > 0] += 1.0" if mask else "t[0] += 1.0"
            self._edit(Edit(node, target.value, form, mask=mask, proves_tensor=mask))
            return
        form = _AUG_FORMS.get(type(node.operator).__name__, "t += 1.0")
        self._edit(Edit(node, target, form))
        name = dotted(target)
        fact = self.names.get(name) if name else None
        if name and (fact is None or not fact.is_tensor):
            self.names[name] = Tensor(self.program.new_storage())  # an int rebinds

    # -- binding -----------------------------------------------------------------------

    def _bind_target(self, target, value: Tensor | None, source=None) -> None:
        name = dotted(target) if isinstance(target, cst.Name | cst.Attribute) else None
        if name is not None:
            self.names[name] = value or Tensor(self.program.new_storage())
            self.bound_at[name] = self.order
            if source is not None and self._is_mask_expr(source):
                self.masks.add(name)
            else:
                self.masks.discard(name)
            if isinstance(source, cst.Call) and self.checker.resolve(source.func) in _LAYERS:
                self.local_layers[name] = source
            else:
                self.local_layers.pop(name, None)
            return
        if isinstance(target, cst.Tuple | cst.List):
            for element in target.elements:
                self._bind_target(element.value, None)
        elif isinstance(target, cst.StarredElement):
            self._bind_target(target.value, None)

    def _bind_loop(self, node: cst.For) -> None:
        sources = _zip_arguments(node.iter)
        targets = node.target.elements if isinstance(node.target, cst.Tuple) else None
        if sources is not None and targets is not None and len(targets) == len(sources):
            pairs = [(t.value, s) for t, s in zip(targets, sources, strict=True)]
        else:
            self.eval(node.iter)
            pairs = [(node.target, node.iter)]
        for target, source in pairs:
            kind = _parameters_iterator(source)
            if kind is not None and not self.program.frozen:
                element = target
                if kind == "named_parameters" and isinstance(target, cst.Tuple):
                    element = target.elements[-1].value if len(target.elements) == 2 else None
                if isinstance(element, cst.Name):
                    self._bind_target(
                        element,
                        Tensor(
                            self.program.new_storage(),
                            requires_grad=True,
                            leaf=True,
                            is_tensor=True,
                            described="parameter",
                        ),
                    )
                    continue
            self._bind_target(target, None)

    # -- expressions -------------------------------------------------------------------

    def eval(self, expr: cst.BaseExpression) -> Tensor | None:
        """What the value of `expr` is proven to be; records every edit inside it."""
        if isinstance(expr, cst.Name | cst.Attribute):
            return self._lookup(expr)
        if isinstance(expr, cst.Subscript):
            base = self.eval(expr.value)
            self._eval_index(expr)
            if base is None:
                return None
            if _basic_index(expr):
                return replace(base, view=True, leaf=base.leaf)
            return Tensor(self.program.new_storage(), base.requires_grad, is_tensor=True)
        if isinstance(expr, cst.Call):
            return self._call(expr)
        if isinstance(expr, cst.BinaryOperation):
            return self._binary(expr)
        if isinstance(expr, cst.UnaryOperation):
            operand = self.eval(expr.expression)
            return self._derived(operand, operand is not None and operand.is_tensor)
        if isinstance(expr, cst.Tuple | cst.List):
            for element in expr.elements:
                self.eval(element.value)
            return None
        if isinstance(expr, cst.Comparison):
            self.eval(expr.left)
            for target in expr.comparisons:
                self.eval(target.comparator)
            return None
        if isinstance(expr, cst.IfExp):
            self.eval(expr.test)
            self.eval(expr.body)
            self.eval(expr.orelse)
            return None
        if isinstance(expr, cst.BooleanOperation):
            self.eval(expr.left)
            self.eval(expr.right)
        return None

    def _eval_index(self, expr: cst.Subscript) -> None:
        for element in expr.slice:
            if isinstance(element.slice, cst.Index):
                self.eval(element.slice.value)

    def _derived(self, operand: Tensor | None, is_tensor: bool = True) -> Tensor | None:
        """A new tensor computed from `operand` (a torch op's result unless told otherwise)."""
        if operand is None:
            return None
        return Tensor(self.program.new_storage(), operand.requires_grad, is_tensor=is_tensor)

    def _lookup(self, expr: cst.Name | cst.Attribute) -> Tensor | None:
        name = dotted(expr)
        if name is None:
            if isinstance(expr, cst.Attribute):
                self.eval(expr.value)
            return None
        if name in self.names:
            self._note_parameter_read(name)
            return self.names[name]
        if isinstance(expr, cst.Attribute) and expr.attr.value in ("T", "mT", "H", "mH"):
            base = self.eval(expr.value)
            return replace(base, view=True) if base is not None else None
        parameter = self._class_parameter(name)
        if parameter is not None:
            self._note_parameter_read(name)
        return parameter

    def _note_parameter_read(self, name: str) -> None:
        self.read_parameters.add(name)
        head, _, _ = name.rpartition(".")
        if head:
            self.read_parameters.add(head)

    def _class_parameter(self, name: str) -> Tensor | None:
        """`self.weight` (an nn.Parameter attribute), or the `weight` / `bias` of a torch.nn
        layer held in `self.fc` or in a local `fc = nn.Linear(...)`."""
        owner, _, attr = name.rpartition(".")
        if not owner or name in self.program.frozen:
            return None
        facts = self.class_facts
        if owner == "self" and facts is not None and attr in facts.parameters:
            return self._parameter(name)
        layer = self._layer_of_name(owner)
        if layer is not None:
            spec = ops.PARAMETER_LAYERS.get(self.checker.resolve(layer.func) or "")
            if spec is not None and attr in spec[0] and _layer_has(layer, attr):
                return self._parameter(name)
        return None

    def _parameter(self, name: str) -> Tensor:
        fact = Tensor(
            self.program.new_storage(),
            requires_grad=True,
            leaf=True,
            is_tensor=True,
            described="parameter",
        )
        self.names[name] = fact
        return fact

    def _layer_of(self, func: cst.BaseExpression) -> cst.Call | None:
        name = dotted(func)
        return self._layer_of_name(name) if name is not None else None

    def _layer_of_name(self, name: str) -> cst.Call | None:
        """The torch.nn constructor call behind `self.fc` or a local `fc = nn.Linear(...)`."""
        head, _, attr = name.partition(".")
        if head == "self" and self.class_facts is not None and "." not in attr:
            return self.class_facts.layers.get(attr)
        return self.local_layers.get(name)

    def _binary(self, expr: cst.BinaryOperation) -> Tensor | None:
        left, right = self.eval(expr.left), self.eval(expr.right)
        symbol = _OPERATOR_SYMBOLS.get(type(expr.operator).__name__)
        if symbol in ops.SAVES_OPERANDS_OPERATORS:
            self._save_operands(left, right, _snippet(self.checker.file.code_for(expr)), symbol)
        known = [f for f in (left, right) if f is not None]
        if not known:
            return None
        grad = True if any(f.requires_grad for f in known) else None
        if all(f.requires_grad is False for f in known):
            grad = False
        is_tensor = any(f.is_tensor for f in known)
        return Tensor(self.program.new_storage(), grad, is_tensor=is_tensor)

    def _save_operands(
        self, left: Tensor | None, right: Tensor | None, label: str, op: str
    ) -> None:
        """Each operand of mul / div / matmul is saved when the other one requires grad.

        `op` is the operator symbol, function or method name the witness repeats."""
        if op in ops.SAVES_OPERANDS_OPERATORS:
            expression = f"t {op} w"
        elif "." in op:
            expression = f"{op}(t, w)"
        else:
            expression = f"t.{op}(w)"
        for saved, other in ((left, right), (right, left)):
            if saved is not None and other is not None and other.requires_grad:
                setup = (
                    "t = torch.randn(4, 4)\nw = torch.randn(4, 4, requires_grad=True)\n"
                    f"out = {expression}"
                )
                self._mark_saved(saved, Saver(label, setup))

    def _mark_saved(self, fact: Tensor, saver: Saver) -> None:
        if self.grad:
            self.saved.setdefault(fact.storage, saver)

    # -- calls -------------------------------------------------------------------------

    def _call(self, call: cst.Call) -> Tensor | None:
        func = call.func
        receiver = self.eval(func.value) if isinstance(func, cst.Attribute) else None
        args = [self.eval(arg.value) for arg in call.args]
        if isinstance(func, cst.Attribute) and func.attr.value == "backward":
            operand = dotted(func.value)
            if operand in self.bound_at:
                self.backward_calls.append((self.order, self.bound_at[operand]))
        qualified = self.checker.resolve(func)
        self._record_call(call, args)
        out = _argument(call, "out", None)
        if out is not None and qualified and qualified.startswith("torch."):
            self._edit(Edit(call, out, "torch.add(x, 1.0, out=t)", out_arg=True))
        if qualified is not None and qualified.startswith("torch."):
            return self._torch_call(call, qualified, args)
        layer = self._layer_of(func)
        if layer is not None:
            return self._layer_call(call, layer, args)
        if isinstance(func, cst.Attribute):
            return self._method_call(call, func, receiver, args)
        return None

    def _torch_call(self, call: cst.Call, qualified: str, args: list) -> Tensor | None:
        first = args[0] if args else None
        first_node = call.args[0].value if call.args else None
        if qualified in ops.TENSOR_FACTORIES or qualified == "torch.nn.Parameter":
            return self._factory(call, qualified)
        if qualified in ops.INPLACE_FUNCTIONS and first_node is not None:
            form = f"{qualified}(t{ops.INPLACE_FUNCTIONS[qualified]})"
            self._edit(Edit(call, first_node, form, first, proves_tensor=True))
            return first
        if qualified in ops.INPLACE_FLAG_FUNCTIONS and first_node is not None:
            flag = _argument(call, "inplace", ops.INPLACE_FLAG_FUNCTIONS[qualified])
            if flag is not None and _is_true(flag):
                form = f"{qualified}(t, inplace=True)"
                self._edit(Edit(call, first_node, form, first, proves_tensor=True))
                if qualified == "torch.nn.functional.relu" and first is not None:
                    self._save_output(first, qualified, "")
                return first
        if qualified in ops.SAVES_OUTPUT_FUNCTIONS and first is not None:
            output = self._derived(first)
            self._save_output(output, qualified, ops.SAVES_OUTPUT_FUNCTIONS[qualified])
            return output
        if qualified in ops.SAVES_INPUT_FUNCTIONS and first is not None:
            if first.requires_grad:
                sample = ops.SAVES_INPUT_FUNCTIONS[qualified]
                setup = (
                    f"t = torch.randn(4, 4, requires_grad=True) * 1\nout = {qualified}(t{sample})"
                )
                self._mark_saved(first, Saver(qualified, setup))
            return self._derived(first)
        if qualified in ops.SAVES_OPERANDS_FUNCTIONS and len(args) >= 2:
            name = "torch.matmul" if qualified == "torch.bmm" else qualified
            self._save_operands(args[0], args[1], qualified, name)
        known = [a for a in args if a is not None]
        if qualified.rpartition(".")[2] in _NO_GRAD_RESULTS:
            return None
        if any(a.requires_grad for a in known):
            return Tensor(self.program.new_storage(), True, is_tensor=True)
        return None

    def _factory(self, call: cst.Call, qualified: str) -> Tensor:
        storage = self.program.new_storage()
        if qualified == "torch.nn.Parameter":
            flag = _argument(call, "requires_grad", 1)
            leaf = flag is None or _is_true(flag)
            return Tensor(storage, leaf, leaf=leaf, is_tensor=True, described="parameter")
        flag = _argument(call, "requires_grad", None)
        if flag is not None and _is_true(flag):
            return Tensor(storage, True, leaf=True, is_tensor=True, described="leaf tensor")
        known_off = flag is None or (isinstance(flag, cst.Name) and flag.value == "False")
        return Tensor(storage, False if known_off else None, is_tensor=True)

    def _save_output(self, output: Tensor | None, op: str, sample: str) -> None:
        if output is not None and output.requires_grad:
            setup = f"h = torch.randn(4, 4, requires_grad=True)\nt = {op}(h{sample})\nout = t"
            self._mark_saved(output, Saver(op, setup))

    def _layer_call(self, call: cst.Call, layer: cst.Call, args: list) -> Tensor | None:
        kind = self.checker.resolve(layer.func) or ""
        self.read_parameters.add(dotted(call.func) or "")
        first = args[0] if args else None
        first_node = call.args[0].value if call.args else None
        if kind in ops.INPLACE_FLAG_MODULES and first_node is not None:
            index, sample = ops.INPLACE_FLAG_MODULES[kind]
            flag = _argument(layer, "inplace", index)
            if flag is not None and _is_true(flag):
                self._edit(Edit(call, first_node, f"{kind}{sample}(t)", first, proves_tensor=True))
                if kind == "torch.nn.ReLU" and first is not None:
                    self._save_output(first, "torch.relu", "")
                return first
        if kind in ops.SAVES_OUTPUT_LAYERS and first is not None:
            output = self._derived(first)
            self._save_output(output, kind + ops.SAVES_OUTPUT_LAYERS[kind], "")
            return output
        if kind in ops.PARAMETER_LAYERS:
            if kind in ops.SAVES_INPUT_LAYERS and first is not None and self.grad:
                self._mark_saved(
                    first,
                    Saver(
                        kind,
                        "t = torch.randn(4, 4)\nout = torch.nn.Linear(4, 4)(t)",
                    ),
                )
            return Tensor(self.program.new_storage(), True if self.grad else None, is_tensor=True)
        return None

    def _method_call(
        self, call: cst.Call, func: cst.Attribute, receiver: Tensor | None, args: list
    ) -> Tensor | None:
        method = func.attr.value
        if _through_data(func.value):
            if method in ops.INPLACE_TENSOR_METHODS:
                self._data_write(call, _strip_data(func.value))
            return None
        if method in ops.INPLACE_TENSOR_METHODS:
            if not _copies_itself(call, func):
                form = f"t.{method}{ops.INPLACE_TENSOR_METHODS[method]}"
                self._edit(Edit(call, func.value, form, receiver, proves_tensor=True))
            return receiver
        if receiver is None:
            return None
        name = dotted(func.value)
        if method in _TENSOR_ONLY_METHODS and name in self.names and not receiver.is_tensor:
            receiver = self.names[name] = replace(receiver, is_tensor=True)
        if method in ops.VIEW_METHODS:
            if method == "detach":
                return replace(receiver, requires_grad=False, leaf=False, view=True)
            return replace(receiver, view=True)
        if method in ops.SAVES_OUTPUT_METHODS:
            output = self._derived(receiver)
            if output is not None and output.requires_grad:
                sample = ops.SAVES_OUTPUT_METHODS[method]
                setup = (
                    f"h = torch.randn(4, 4, requires_grad=True)\nt = h.{method}{sample}\nout = t"
                )
                self._mark_saved(output, Saver(f"Tensor.{method}", setup))
            return output
        if method in ops.SAVES_INPUT_METHODS:
            if receiver.requires_grad:
                sample = ops.SAVES_INPUT_METHODS[method]
                setup = f"t = torch.randn(4, 4, requires_grad=True) * 1\nout = t.{method}{sample}"
                self._mark_saved(receiver, Saver(f"Tensor.{method}", setup))
            return self._derived(receiver)
        if method in ops.SAVES_OPERANDS_METHODS and args:
            name = "matmul" if method == "bmm" else method
            self._save_operands(receiver, args[0], f"Tensor.{method}", name)
            return self._derived(receiver)
        if method in _NO_GRAD_RESULTS:
            return None
        if method in ("clone", "contiguous", "float", "sum", "mean"):
            return self._derived(receiver, receiver.is_tensor or method not in ("sum", "mean"))
        return None

    def _record_call(self, call: cst.Call, args: list) -> None:
        """Teach callees in this file their grad mode and the parameters passed to them."""
        name = dotted(call.func)
        owner = self.function.owner if self.function else None
        callee = self.program.callee(name, owner) if name else None
        if callee is None:
            return
        if not self.program.report:
            callee.call_modes.append(self.grad)
        params = list(callee.node.params.params)
        if callee.owner is not None:
            params = params[1:]
        for param, arg, value in zip(params, call.args, args, strict=False):
            if arg.keyword is not None or arg.star:
                break
            if value is not None and (value.leaf or value.requires_grad) and self.grad:
                callee.argument_facts.setdefault(param.name.value, value)

    # -- masks -------------------------------------------------------------------------

    def _is_mask(self, target: cst.Subscript) -> bool:
        if len(target.slice) != 1 or not isinstance(target.slice[0].slice, cst.Index):
            return False
        return self._is_mask_expr(target.slice[0].slice.value)

    def _is_mask_expr(self, expr: cst.BaseExpression) -> bool:
        if isinstance(expr, cst.Comparison):
            return all(
                not isinstance(c.operator, cst.In | cst.NotIn | cst.Is | cst.IsNot)
                for c in expr.comparisons
            )
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.BitInvert):
            return self._is_mask_expr(expr.expression)
        if isinstance(expr, cst.BinaryOperation) and isinstance(
            expr.operator, cst.BitAnd | cst.BitOr
        ):
            return self._is_mask_expr(expr.left) or self._is_mask_expr(expr.right)
        if isinstance(expr, cst.Name):
            return expr.value in self.masks
        if isinstance(expr, cst.Call):
            qualified = self.checker.resolve(expr.func)
            if qualified in _MASK_FUNCTIONS_QUALIFIED:
                return True
            return isinstance(expr.func, cst.Attribute) and (
                expr.func.attr.value in _MASK_FUNCTIONS
            )
        return False

    # -- findings ----------------------------------------------------------------------

    def _edit(self, edit: Edit) -> None:
        if _through_data(edit.target):
            self._data_write(edit.node, _strip_data(edit.target))
            return
        fact = edit.fact or self._peek(edit.target)
        if fact is None or not self.grad or not self.program.report:
            return
        statement = self.statement
        if statement in self.reported:
            return
        finding = self._classify(edit, fact)
        if finding is None:
            return
        self.reported.add(statement)
        code, message, severity, witness = finding
        fix = _fix(self.checker.file, code, statement)
        self.checker.report(edit.node, code, message, severity=severity, witness=witness, fix=fix)

    def _classify(self, edit: Edit, fact: Tensor):
        written = self.checker.file.code_for(edit.target)
        is_tensor = fact.is_tensor or edit.proves_tensor
        if fact.leaf:
            return self._leaf_finding(edit, fact, written)
        if not is_tensor or edit.out_arg:
            return None
        saver = self.saved.get(fact.storage) if self.differentiated else None
        if edit.mask and (saver is not None or fact.forward_input):
            return self._mask_finding(edit, fact, written, saver)
        if saver is not None:
            return self._saved_finding(edit, written, saver)
        if fact.forward_input:
            return self._input_finding(edit, fact, written)
        return None

    def _peek(self, expr: cst.BaseExpression) -> Tensor | None:
        """`eval` without side effects, for the target of an edit."""
        if isinstance(expr, cst.Name | cst.Attribute):
            name = dotted(expr)
            if name is None:
                return None
            return self.names.get(name) or self._class_parameter(name)
        if isinstance(expr, cst.Subscript) and _basic_index(expr):
            base = self._peek(expr.value)
            return replace(base, view=True) if base is not None else None
        func = expr.func if isinstance(expr, cst.Call) else None
        if isinstance(func, cst.Attribute) and func.attr.value in ops.VIEW_METHODS - {"detach"}:
            base = self._peek(func.value)
            return replace(base, view=True) if base is not None else None
        return None

    def _leaf_finding(self, edit: Edit, fact: Tensor, written: str):
        view = fact.view or (edit.form.startswith("t[0]"))
        expect = OUT_ERROR if edit.out_arg else (VIEW_LEAF_ERROR if view else LEAF_ERROR)
        message = (
            f"In-place edit of {fact.described or 'leaf tensor'} `{written}`, a leaf that "
            "requires grad, while "
            "autograd is recording: torch raises "
            f'"{expect}"; do the update under `with torch.no_grad():` (optimizer step, '
            "initialisation) or compute a new tensor out of place (`w = w + x`)"
        )
        target = "v" if view else "t"
        setup = "t = torch.nn.Parameter(torch.randn(4, 4))"
        if view:
            setup += "\nv = t.view(4, 4)"
        line = _retarget(edit.form, target)
        program = f"import torch\nx = torch.randn(4, 4)\n{setup}\n{line}\n"
        return "GL101", message, None, Witness(program, expect)

    def _saved_finding(self, edit: Edit, written: str, saver: Saver):
        message = (
            f"In-place edit of `{written}`, which `{saver.op}` saved for backward: "
            f'`backward()` will raise "{SAVED_ERROR} inplace operation"; '
            "write the result to a new tensor instead (`y = y + 1`, `torch.where(...)`, "
            "`F.relu(y)` without `inplace=True`) or `.clone()` it first"
        )
        return "GL103", message, None, Witness(_saved_program(saver, edit.form), SAVED_ERROR)

    def _mask_finding(self, edit: Edit, fact: Tensor, written: str, saver: Saver | None):
        fix = (
            "build a new tensor instead: `torch.where(mask, value, x)`, "
            "`x.masked_fill(mask, value)`, `x.clamp(min=0)` or `F.relu(x)`"
        )
        if saver is not None:
            message = (
                f"Masked assignment into `{written}`, which `{saver.op}` saved for backward: "
                f'`backward()` will raise "{SAVED_ERROR} inplace operation"; {fix}'
            )
            return (
                "GL105",
                message,
                Severity.ERROR,
                Witness(_saved_program(saver, edit.form), SAVED_ERROR),
            )
        message = (
            f"Masked assignment into {fact.described} `{written}` overwrites the caller's "
            "tensor, and backward raises if that tensor is a leaf requiring grad or was saved "
            f"by an earlier op; {fix}"
        )
        return "GL105", message, None, Witness(_input_program(edit.form), INPUT_MUTATED)

    def _input_finding(self, edit: Edit, fact: Tensor, written: str):
        in_function = self.role == "function_forward"
        dirty = self.checker.dirty.get(self.function.node, set())
        if in_function and fact.forward_input in dirty:
            return None
        if in_function:
            message = (
                f"`autograd.Function.forward` edits its input `{written}` in place without "
                f"`ctx.mark_dirty({fact.forward_input})`: autograd does not know the input "
                "changed and its gradient is wrong; call `ctx.mark_dirty(...)` and return it, "
                "or `.clone()` the input first"
            )
            severity = Severity.ERROR
        else:
            message = (
                f"In-place edit of {fact.described} `{written}` mutates the caller's tensor, "
                "and backward raises if that tensor requires grad or was saved by an earlier "
                "op; compute a new tensor (`x = x + 1`) or `x = x.clone()` first"
            )
            severity = None
        return "GL104", message, severity, Witness(_input_program(edit.form), INPUT_MUTATED)

    # -- GL102 ---------------------------------------------------------------------------

    def _data_write(self, node: cst.CSTNode, owner: cst.BaseExpression) -> None:
        """A write through `param.data`: flagged in forward (after the parameter was
        used) and between a forward pass and its backward()."""
        name = dotted(owner)
        if name is None or not self.program.report:
            return
        fact = self.names.get(name) or self._class_parameter(name)
        if fact is None or not fact.leaf:
            return
        used = name in self.read_parameters or name.rpartition(".")[0] in self.read_parameters
        if self.role == "module_forward" and used:
            self._report_data(node, name, "inside forward(), after the forward pass used it")
            return
        self.data_writes.append((self.order, node, name))

    def _finish_data_writes(self) -> None:
        for order, node, name in self.data_writes:
            if any(bound < order < at for at, bound in self.backward_calls):
                self._report_data(node, name, "between a forward pass and its backward()")

    def _report_data(self, node: cst.CSTNode, name: str, where: str) -> None:
        if node in self.reported:
            return
        self.reported.add(node)
        message = (
            f"Write through `{name}.data` {where}: autograd does not see it, so the gradient "
            "is computed from the changed values and is silently wrong; update parameters "
            "under `with torch.no_grad():` after `backward()` / `optimizer.step()`"
        )
        program = (
            "import torch\nw = torch.nn.Parameter(torch.ones(3))\nloss = (w * w).sum()\n"
            "w.data.mul_(2)\nloss.backward()\n"
            "if not torch.equal(w.grad, 2 * torch.ones(3)):\n"
            f"    raise AssertionError({DATA_MUTATED!r})\n"
        )
        self.checker.report(node, "GL102", message, witness=Witness(program, DATA_MUTATED))


_OPERATOR_SYMBOLS = {
    "Multiply": "*",
    "Divide": "/",
    "MatrixMultiply": "@",
    "Add": "+",
    "Subtract": "-",
}


# -- helpers over syntax ---------------------------------------------------------------


def _copies_itself(call: cst.Call, func: cst.Attribute) -> bool:
    """`t.copy_(t)`: the values do not change."""
    if func.attr.value != "copy_" or not call.args:
        return False
    source = dotted(call.args[0].value)
    return source is not None and source == dotted(func.value)


def _snippet(code: str) -> str:
    """The first line of a source snippet, shortened for a message."""
    line = code.strip().splitlines()[0]
    return line if len(line) <= 60 else line[:57] + "..."


def _argument(call: cst.Call, keyword: str, position: int | None) -> cst.BaseExpression | None:
    """The argument passed as `keyword=` or at `position` (positional arguments only)."""
    for index, arg in enumerate(call.args):
        if arg.keyword is not None:
            if arg.keyword.value == keyword:
                return arg.value
        elif arg.star:
            return None
        elif index == position:
            return arg.value
    return None


def _is_true(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "True"


def _is_false(expr: cst.BaseExpression | None) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "False"


def _layer_has(layer: cst.Call, attr: str) -> bool:
    """False when the constructor call switched that parameter off (`bias=False`, ...)."""
    for flag in ("affine", "elementwise_affine"):
        if _is_false(_argument(layer, flag, None)):
            return False
    return not (attr == "bias" and _is_false(_argument(layer, "bias", None)))


def _basic_index(expr: cst.Subscript) -> bool:
    """Indexing by ints and slices only: the result is a view sharing storage."""
    for element in expr.slice:
        index = element.slice
        if isinstance(index, cst.Slice):
            continue
        value = index.value
        if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus):
            value = value.expression
        if not isinstance(value, cst.Integer | cst.Ellipsis) and not (
            isinstance(value, cst.Name) and value.value == "None"
        ):
            return False
    return True


def _chain(expr: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    """`expr` and the expressions it is built on: `a.data[0].view(-1)` -> ..., `a`."""
    while True:
        yield expr
        if isinstance(expr, cst.Attribute | cst.Subscript):
            expr = expr.value
        elif isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
            expr = expr.func.value
        else:
            return


def _through_data(expr: cst.BaseExpression) -> bool:
    return _strip_data(expr) is not None


def _strip_data(expr: cst.BaseExpression) -> cst.BaseExpression | None:
    """The tensor whose `.data` `expr` reaches into, or None."""
    for part in _chain(expr):
        if isinstance(part, cst.Attribute) and part.attr.value == "data":
            return part.value
    return None


def _zip_arguments(expr: cst.BaseExpression) -> list[cst.BaseExpression] | None:
    if isinstance(expr, cst.Call) and dotted(expr.func) == "zip":
        return [arg.value for arg in expr.args]
    return None


def _parameters_iterator(expr: cst.BaseExpression) -> str | None:
    """ "parameters" / "named_parameters" for `model.parameters()` and friends."""
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
        method = expr.func.attr.value
        if method in ("parameters", "named_parameters"):
            return method
    return None


def _annotated_tensor(param: cst.Param, checker: Checker) -> bool:
    if param.annotation is None:
        return False
    return checker.resolve(param.annotation.annotation) == "torch.Tensor"


def _is_staticmethod(node: cst.FunctionDef) -> bool:
    return any(dotted(d.decorator) == "staticmethod" for d in node.decorators)


# -- witness programs --------------------------------------------------------------------


def _retarget(form: str, name: str) -> str:
    return re.sub(r"\bt\b", name, form)


def _saved_program(saver: Saver, form: str) -> str:
    """The saving op, the same edit of what it saved, then backward."""
    return (
        f"import torch\ntorch.manual_seed(0)\nx = torch.randn(4, 4)\n{saver.setup}\n{form}\n"
        "out.sum().backward()\n"
    )


def _input_program(form: str) -> str:
    """A forward() making the same edit of its argument writes into the caller's tensor
    (its version counter moves)."""
    return (
        "import torch\ntorch.manual_seed(0)\nx = torch.randn(4, 4)\n\n\n"
        f"def forward(t):\n    {form}\n    return t\n\n\n"
        "batch = torch.randn(4, 4)\nforward(batch)\n"
        f"if batch._version:\n    raise AssertionError({INPUT_MUTATED!r})\n"
    )


# -- fixes ---------------------------------------------------------------------------


def _fix(file, code: str, statement: cst.CSTNode | None) -> Fix | None:
    """GL101: a manual update (`w -= lr * w.grad`) goes under `torch.no_grad()`; GL105:
    `x[mask] = 0` becomes `x = x.masked_fill(mask, 0)`. Both unsafe: the first stops
    recording, the second rebinds `x` instead of writing into the tensor others hold."""
    if code == "GL101" and statement is not None and _reads_grad(statement):
        return fixes.wrap_in_no_grad(file, statement, "do the update under torch.no_grad()")
    if code == "GL105" and isinstance(statement, cst.Assign):
        return _masked_fill_fix(file, statement)
    return None


def _reads_grad(statement: cst.CSTNode) -> bool:
    return any(
        isinstance(node, cst.Attribute) and node.attr.value == "grad"
        for node in iter_nodes(statement)
    )


def _masked_fill_fix(file, statement: cst.Assign) -> Fix | None:
    (target,) = statement.targets if len(statement.targets) == 1 else (None,)
    if target is None or not isinstance(target.target, cst.Subscript):
        return None
    subscript = target.target
    number = statement.value
    if isinstance(number, cst.UnaryOperation) and isinstance(number.operator, cst.Minus):
        number = number.expression
    if not (
        isinstance(subscript.value, cst.Name)
        and isinstance(number, cst.Integer | cst.Float)
        and len(subscript.slice) == 1
        and isinstance(subscript.slice[0].slice, cst.Index)
    ):
        return None
    mask = subscript.slice[0].slice.value
    if not _same_shape_mask(mask, subscript.value.value):
        return None  # a row mask would broadcast differently in masked_fill
    call = cst.Call(
        func=cst.Attribute(subscript.value, cst.Name("masked_fill")),
        args=[
            cst.Arg(mask, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
            cst.Arg(statement.value),
        ],
    )
    fixed = statement.with_changes(
        targets=[target.with_changes(target=subscript.value)], value=call
    )
    return fixes.replace(file, statement, fixed, "build a new tensor with masked_fill", unsafe=True)


def _same_shape_mask(mask: cst.BaseExpression, name: str) -> bool:
    """`x < 0`, `~(x > 1)`, `(x < a) | (x > b)`: a mask computed elementwise from `x`."""
    if isinstance(mask, cst.Comparison):
        left = mask.left
        return isinstance(left, cst.Name) and left.value == name and len(mask.comparisons) == 1
    if isinstance(mask, cst.UnaryOperation) and isinstance(mask.operator, cst.BitInvert):
        return _same_shape_mask(mask.expression, name)
    if isinstance(mask, cst.BinaryOperation) and isinstance(mask.operator, cst.BitAnd | cst.BitOr):
        return _same_shape_mask(mask.left, name) and _same_shape_mask(mask.right, name)
    return False
