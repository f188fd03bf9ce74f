"""Graph cuts: values taken out of autograd's graph on their way to a module's output or
to a loss that is backpropagated (GL201 conversions, GL202 detach / no_grad, GL203
non-differentiable ops).

Each function is read once, statement by statement, and every value gets a state:
`GRAD` (proven to carry the graph of some parameters: a sub-module call, an
`nn.Parameter`), `CONST` (data, literals, arguments: no path from the parameters seen
here), `UNKNOWN`, or a `Cut` (it came from a graph-carrying value only through a
conversion / detach / non-differentiable op). A value that mixes a `Cut` with a `GRAD`
still trains (the straight-through estimator `x + (y - x).detach()`), and `UNKNOWN`
always wins over a cut: only a cut that is the sole path from the parameters to a
returned output or a backpropagated loss is reported.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import libcst as cst

from gradlint.analysis import torch_ops
from gradlint.analysis.context import ClassKind
from gradlint.analysis.dataflow import Grad
from gradlint.analysis.names import dotted
from gradlint.analysis.torch_ops import (
    FRESH_TENSOR_FACTORIES,
    GRAPH_CUT_FUNCTIONS,
    GRAPH_CUT_METHODS,
    TENSOR_METADATA,
)
from gradlint.checks import Checker
from gradlint.diagnostic import Witness

# -- what the file says about its names (shared with training.py) --------------------

_MODULE_USAGE = frozenset({"parameters", "named_parameters", "train", "eval"})
_SCHEDULER_PREFIXES = ("torch.optim.lr_scheduler.", "torch.optim.swa_utils.")
_SCALERS = frozenset({"torch.cuda.amp.GradScaler", "torch.amp.GradScaler", "torch.GradScaler"})


def sub_expressions(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Every node below `node`, not entering nested functions, lambdas or classes."""
    for child in node.children:
        if isinstance(child, cst.FunctionDef | cst.ClassDef | cst.Lambda):
            continue
        yield child
        yield from sub_expressions(child)


def _is_false(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "False"


def _parameter_owners(args: cst.CSTNode) -> set[str]:
    """`m` for each `m.parameters()` / `m.named_parameters()` inside an optimizer's args."""
    owners = set()
    for node in sub_expressions(args):
        if (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value in ("parameters", "named_parameters")
            and (owner := dotted(node.func.value))
        ):
            owners.add(owner)
    return owners


@dataclass
class FileFacts:
    """Names the file proves to be modules, loss modules, parameters, optimizers."""

    modules: set[str] = field(default_factory=set)  # dotted names holding nn.Modules
    losses: set[str] = field(default_factory=set)  # torch.nn *Loss instances (no parameters)
    parameters: set[str] = field(default_factory=set)  # `self.w = nn.Parameter(...)`
    optimizers: dict[str, set[str]] = field(default_factory=dict)  # name -> modules it updates
    schedulers: set[str] = field(default_factory=set)
    scalers: set[str] = field(default_factory=set)
    others: set[str] = field(default_factory=set)  # bound to some other known call
    frozen: set[str] = field(default_factory=set)  # modules whose parameters are frozen

    def note_call(self, node: cst.Call) -> None:
        """`m.parameters()` / `m.train()` prove `m` holds a module; `m.requires_grad_(False)`
        freezes it."""
        func = node.func
        if not isinstance(func, cst.Attribute) or not (name := dotted(func.value)):
            return
        if func.attr.value in _MODULE_USAGE and name not in self.optimizers:
            self.modules.add(name)
        elif func.attr.value == "requires_grad_" and node.args and _is_false(node.args[0].value):
            self.frozen.add(name)

    def note_loop(self, node: cst.For) -> None:
        """`for p in m.parameters(): p.requires_grad = False` freezes `m`."""
        call = node.iter
        if not (
            isinstance(call, cst.Call)
            and isinstance(call.func, cst.Attribute)
            and call.func.attr.value in ("parameters", "named_parameters")
            and (owner := dotted(call.func.value))
        ):
            return
        for statement in sub_expressions(node.body):
            if isinstance(statement, cst.Assign) and _is_false(statement.value):
                targets = [t.target for t in statement.targets]
                if any(
                    isinstance(t, cst.Attribute) and t.attr.value == "requires_grad"
                    for t in targets
                ):
                    self.frozen.add(owner)

    def trains(self, name: str | None) -> bool:
        """`name` holds a module whose parameters (may) require grad."""
        return name in self.modules and name not in self.frozen and name not in self.losses

    def note_binding(self, target: str, value: cst.BaseExpression, checker: Checker) -> None:
        """`target = value`: what a constructor call makes of the name."""
        if not isinstance(value, cst.Call):
            return
        qualified = checker.resolve(value.func) or ""
        local = checker.scope.index.by_name.get(dotted(value.func) or "")
        last = qualified.rpartition(".")[2]
        if qualified.startswith(_SCHEDULER_PREFIXES):
            self.schedulers.add(target)
        elif qualified in _SCALERS:
            self.scalers.add(target)
        elif (qualified.startswith("torch.optim.") and last[:1].isupper()) or (
            local is not None and local.kind is ClassKind.OPTIMIZER
        ):
            self.optimizers[target] = _parameter_owners(value)
        elif qualified == "torch.nn.Parameter":
            self.parameters.add(target)
        elif qualified.startswith("torch.nn.") and last.endswith("Loss"):
            self.losses.add(target)
        elif (qualified.startswith("torch.nn.") and last[:1].isupper()) or (
            local is not None and local.is_module
        ):
            self.modules.add(target)
        elif qualified.startswith("torch") or local is not None:
            self.others.add(target)


def _is_backward_call(node: cst.Call, checker: Checker) -> bool:
    """`x.backward(...)`, `torch.autograd.backward(...)` or `torch.autograd.grad(...)`."""
    func = node.func
    if isinstance(func, cst.Attribute) and func.attr.value == "backward":
        return True
    return checker.resolve(func) in ("torch.autograd.backward", "torch.autograd.grad")


class FactsCollector(Checker):
    """Base for checkers that analyse whole functions once the file's facts are known."""

    def __init__(self, file) -> None:
        super().__init__(file)
        self.facts = FileFacts()
        self.functions: list[tuple[cst.FunctionDef, bool, str | None]] = []
        self.backward_bodies: set[cst.FunctionDef | cst.Lambda | None] = set()  # None: top level

    def visit_Call(self, node: cst.Call) -> None:
        self.facts.note_call(node)
        if _is_backward_call(node, self):
            frame = self.scope.function
            self.backward_bodies.add(frame.node if frame is not None else None)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if name := dotted(target.target):
                self.facts.note_binding(name, node.value, self)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None and (name := dotted(node.target)):
            self.facts.note_binding(name, node.value, self)

    def visit_For(self, node: cst.For) -> None:
        self.facts.note_loop(node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        owner = self.scope.function.owner
        role = node.name.value if owner is not None and owner.is_module else None
        self.functions.append((node, self.scope.function.grad_enabled, role))


# -- value states ---------------------------------------------------------------------

GRAD = "grad"
CONST = "const"
UNKNOWN = "unknown"


@dataclass(frozen=True)
class Cut:
    """A value whose only link to the parameters went through `node`."""

    code: str
    node: cst.CSTNode
    how: str  # e.g. "`.item()`"


State = str | Cut

_PYTHON_CONVERSIONS = frozenset({"float", "int"})
_PYTHON_PURE = frozenset({"abs", "sum", "max", "min", "round"})


def combine(states: list[State]) -> State:
    """A value computed from `states`: any graph wins, then unknown, then a cut."""
    if GRAD in states:
        return GRAD
    if UNKNOWN in states:
        return UNKNOWN
    cuts = [s for s in states if isinstance(s, Cut)]
    return cuts[0] if cuts else CONST


def join(a: State, b: State) -> State:
    """The value after two control-flow paths."""
    if a == b:
        return a
    if {a, b} <= {CONST} | {s for s in (a, b) if isinstance(s, Cut)}:
        return a if isinstance(a, Cut) else b
    return UNKNOWN


def _cut(code: str, node: cst.CSTNode, how: str, source: State) -> State:
    """What `how` applied to a value in state `source` gives."""
    if source == GRAD:
        return Cut(code, node, how)
    if isinstance(source, Cut) and code == "GL201" and source.code == "GL202":
        return Cut(code, node, how)  # `t.detach().numpy()`: the conversion is the cut
    return source


class _Evaluator:
    """States of the expressions of one function body, in statement order."""

    def __init__(self, checker: FlowChecker) -> None:
        self.checker = checker
        self.facts = checker.facts
        self.env: dict[str, State] = {}

    def name(self, expr: cst.BaseExpression) -> State:
        name = dotted(expr)
        if name in self.env:
            return self.env[name]
        if name in self.facts.parameters or self.facts.trains(name):
            return GRAD  # a module passed along carries its parameters
        if name and name.startswith("self."):
            return UNKNOWN
        return CONST

    def state(self, expr: cst.BaseExpression) -> State:
        if isinstance(expr, cst.Name):
            return self.name(expr)
        if isinstance(expr, cst.Attribute):
            return self.attribute(expr)
        if isinstance(expr, cst.Call):
            return self.call(expr)
        if isinstance(expr, cst.Subscript):
            return self.state(expr.value)
        if isinstance(expr, cst.Comparison):
            operands = [expr.left, *(c.comparator for c in expr.comparisons)]
            return _cut("GL203", expr, "a comparison", combine([self.state(o) for o in operands]))
        if isinstance(expr, cst.BinaryOperation | cst.BooleanOperation):
            return combine([self.state(expr.left), self.state(expr.right)])
        if isinstance(expr, cst.UnaryOperation):
            return self.state(expr.expression)
        if isinstance(expr, cst.IfExp):
            return join(self.state(expr.body), self.state(expr.orelse))
        if isinstance(expr, cst.Tuple | cst.List):
            return combine([self.state(e.value) for e in expr.elements])
        if isinstance(expr, cst.BaseNumber | cst.BaseString | cst.Ellipsis):
            return CONST
        return UNKNOWN

    def attribute(self, expr: cst.Attribute) -> State:
        if dotted(expr) in self.env or dotted(expr) in self.facts.parameters:
            return self.name(expr)
        attr = expr.attr.value
        if attr in TENSOR_METADATA:
            return CONST
        if attr == "data":
            return _cut("GL202", expr, "`.data`", self.state(expr.value))
        if isinstance(expr.value, cst.Name) and expr.value.value == "self":
            return UNKNOWN
        if self.checker.resolve(expr) is not None:
            return CONST
        return self.state(expr.value)

    def call(self, node: cst.Call) -> State:
        args = [self.state(a.value) for a in node.args]
        qualified = self.checker.resolve(node.func)
        if qualified is not None:
            return self.function(node, qualified, args)
        callee = dotted(node.func)
        if callee in self.facts.losses or callee in self.facts.frozen:
            return combine(args)
        if self.facts.trains(callee):
            return GRAD
        if isinstance(node.func, cst.Attribute):
            return self.method(node, node.func, args)
        if isinstance(node.func, cst.Name):
            return self.builtin(node, node.func.value, args)
        return UNKNOWN

    def function(self, node: cst.Call, qualified: str, args: list[State]) -> State:
        first = args[0] if args else CONST
        last = qualified.rpartition(".")[2]
        if qualified in GRAPH_CUT_FUNCTIONS:
            return _cut("GL201", node, f"`{last}(...)`", combine(args))
        if qualified.startswith("torch.") and last in torch_ops.NON_DIFFERENTIABLE_OPS:
            return _cut("GL203", node, f"`{last}`", first)
        if qualified.startswith("torch.") and last in FRESH_TENSOR_FACTORIES:
            return CONST
        if qualified.startswith("torch.") and not last[:1].isupper():
            return combine(args)
        if qualified.startswith(("numpy.", "math.")):  # a function of numbers, not of graphs
            return _cut("GL201", node, f"`{qualified}(...)`", combine(args))
        return UNKNOWN

    def method(self, node: cst.Call, func: cst.Attribute, args: list[State]) -> State:
        receiver = self.state(func.value)
        attr = func.attr.value
        if self.facts.trains(dotted(func.value)):
            return GRAD  # `model.encode(x)`: a method of a module with parameters
        if attr in GRAPH_CUT_METHODS:
            return _cut(GRAPH_CUT_METHODS[attr], node, f"`.{attr}()`", receiver)
        if attr in torch_ops.NON_DIFFERENTIABLE_OPS:
            return _cut("GL203", node, f"`.{attr}()`", receiver)
        if attr in TENSOR_METADATA:
            return CONST
        keeps = attr in torch_ops.GRAPH_KEEPING_METHODS
        if keeps or receiver == GRAD or isinstance(receiver, Cut):
            return combine([receiver, *args])
        return UNKNOWN

    def builtin(self, node: cst.Call, name: str, args: list[State]) -> State:
        if name in _PYTHON_CONVERSIONS:
            return _cut("GL201", node, f"`{name}(...)`", combine(args))
        if name in _PYTHON_PURE:
            return combine(args)
        if name == "len":
            return CONST
        if "loss" in name.lower() or "criterion" in name.lower():
            return combine(args)  # a loss function: its value comes from its inputs
        return UNKNOWN


_WITNESS = {
    "GL201": Witness(
        "import torch\n"
        "w = torch.nn.Parameter(torch.randn(3))\n"
        "loss = torch.tensor((w * 2).sum().item())\n"
        "loss.backward()\n",
        "element 0 of tensors does not require grad and does not have a grad_fn",
    ),
    "GL202": Witness(
        "import torch\n"
        "w = torch.nn.Parameter(torch.randn(3))\n"
        "loss = (w * 2).detach().sum()\n"
        "loss.backward()\n",
        "element 0 of tensors does not require grad and does not have a grad_fn",
    ),
    "GL203": Witness(
        "import torch\n"
        "w = torch.nn.Parameter(torch.randn(3))\n"
        "loss = (w * 2).argmax().float()\n"
        "loss.backward()\n",
        "element 0 of tensors does not require grad and does not have a grad_fn",
    ),
}

_WITNESS["GL305"] = Witness(
    "import torch\n"
    "model = torch.nn.Linear(3, 1)\n"
    "loss = model(torch.randn(2, 3)).tanh().sum()\n"
    "loss.backward()\n"
    "loss.backward()\n",
    "Trying to backward through the graph a second time",
)

_WITNESS["GL103"] = Witness(
    "import torch\n"
    "model = torch.nn.Linear(3, 1)\n"
    "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
    "loss = model(torch.randn(2, 3, requires_grad=True)).sum()\n"
    "loss.backward(retain_graph=True)\n"
    "opt.step()\n"
    "loss.backward()\n",
    "one of the variables needed for gradient computation has been modified by an",
)

_ADVICE = {
    "GL201": "keep the computation in torch tensors (use the tensor itself, not a Python "
    "number or a new tensor built from it); convert only for logging",
    "GL202": "drop the `.detach()` / `.data` / `torch.no_grad()` on this path, or add a "
    "differentiable path (straight-through: `x + (y - x).detach()`)",
    "GL203": "use a differentiable surrogate (softmax / sigmoid instead of argmax or a "
    "threshold) or a straight-through estimator `x + (hard - x).detach()`",
}


class FlowChecker(FactsCollector):
    """GL201 / GL202 / GL203: the only path from the parameters to an output is cut."""

    codes = ("GL201", "GL202", "GL203")

    def leave_Module(self, node: cst.Module) -> None:
        for function, grad_enabled, role in self.functions:
            if grad_enabled and (role == "forward" or function in self.backward_bodies):
                _FunctionFlow(self, function, is_forward=role == "forward").run()
        if None in self.backward_bodies:
            _FunctionFlow(self, node, is_forward=False).run()

    def report_cut(self, cut: Cut, sink: str) -> None:
        verb = {"GL201": "converts", "GL202": "detaches", "GL203": "is not differentiable and cuts"}
        self.report(
            cut.node,
            cut.code,
            f"{cut.how} {verb[cut.code]} the value out of autograd's graph, and it is the "
            f"only path from the parameters to {sink}: the parameters get no gradient "
            f"(backward raises 'element 0 of tensors does not require grad' or leaves "
            f"`.grad` None / zero); {_ADVICE[cut.code]}",
            witness=_WITNESS[cut.code],
        )


class _FunctionFlow:
    """Walks one function body (or the module's top level), reporting cut sinks."""

    def __init__(self, checker: FlowChecker, node: cst.FunctionDef | cst.Module, is_forward):
        self.checker = checker
        self.node = node
        self.is_forward = is_forward
        self.values = _Evaluator(checker)
        self.reported: set[cst.CSTNode] = set()

    def run(self) -> None:
        body = self.node.body if isinstance(self.node, cst.Module) else self.node.body.body
        self.block(body, grad=True)

    def block(self, statements, grad: bool) -> None:
        for statement in statements:
            self.statement(statement, grad)

    def statement(self, statement: cst.CSTNode, grad: bool) -> None:
        env = self.values.env
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                self.small(small, grad)
        elif isinstance(statement, cst.BaseSmallStatement):  # `if c: loss.backward()`
            self.small(statement, grad)
        elif isinstance(statement, cst.If):
            before = dict(env)
            self.block(statement.body.body, grad)
            after_body = self.values.env
            self.values.env = before
            if isinstance(statement.orelse, cst.If):
                self.statement(statement.orelse, grad)
            elif statement.orelse is not None:
                self.block(statement.orelse.body.body, grad)
            self.values.env = _join_envs(after_body, self.values.env)
        elif isinstance(statement, cst.For | cst.While):
            before = dict(env)
            if isinstance(statement, cst.For):
                self.bind(statement.target, self.values.state(statement.iter))
            self.block(statement.body.body, grad)
            self.values.env = _join_envs(before, self.values.env)
            if statement.orelse is not None:
                self.block(statement.orelse.body.body, grad)
        elif isinstance(statement, cst.With):
            effects = [self.checker.scope.grad_effect(item.item) for item in statement.items]
            inner = grad
            for effect in effects:
                if effect is not None:
                    inner = effect
            self.block(statement.body.body, inner)
        elif isinstance(statement, cst.Try):
            self.block(statement.body.body, grad)
            for handler in statement.handlers:
                self.block(handler.body.body, grad)
            for extra in (statement.orelse, statement.finalbody):
                if extra is not None:
                    self.block(extra.body.body, grad)

    def small(self, small: cst.BaseSmallStatement, grad: bool) -> None:
        if isinstance(small, cst.Assign):
            value = self.evaluate(small.value, grad)
            for target in small.targets:
                self.bind(target.target, value)
        elif isinstance(small, cst.AnnAssign) and small.value is not None:
            self.bind(small.target, self.evaluate(small.value, grad))
        elif isinstance(small, cst.AugAssign):
            value = self.evaluate(small.value, grad)
            self.bind(small.target, combine([self.values.state(small.target), value]))
        elif isinstance(small, cst.Return) and small.value is not None and self.is_forward:
            if not isinstance(small.value, cst.Tuple | cst.Dict | cst.List):
                self.sink(self.values.state(small.value), "the module's output")
        elif isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
            self.call_statement(small.value)

    def evaluate(self, value: cst.BaseExpression, grad: bool) -> State:
        state = self.values.state(value)
        if not grad and state == GRAD:
            return Cut("GL202", value, "computing it under `torch.no_grad()`")
        return state

    def call_statement(self, call: cst.Call) -> None:
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value == "backward" and not call.args:
            self.sink(self.values.state(func.value), "the loss passed to `backward()`")
        elif self.checker.resolve(func) == "torch.autograd.backward" and call.args:
            self.sink(self.values.state(call.args[0].value), "the loss passed to `backward()`")
        elif isinstance(func, cst.Attribute) and func.attr.value in ("append", "extend"):
            self.collect(func.value, call)

    def collect(self, container: cst.BaseExpression, call: cst.Call) -> None:
        """`losses.append(v)`: a local list holds what it was given (`losses = []` first)."""
        name = dotted(container)
        if name in self.values.env and call.args:
            items = self.values.state(call.args[0].value)
            self.values.env[name] = combine([self.values.env[name], items])

    def sink(self, state: State, what: str) -> None:
        if isinstance(state, Cut) and state.node not in self.reported:
            self.reported.add(state.node)
            self.checker.report_cut(state, what)

    def bind(self, target: cst.BaseExpression, state: State) -> None:
        if isinstance(target, cst.Tuple | cst.List):
            for element in target.elements:
                self.bind(element.value, state)
        elif isinstance(target, cst.StarredElement):
            self.bind(target.value, state)
        elif name := dotted(target):
            self.values.env[name] = state


def _join_envs(a: dict[str, State], b: dict[str, State]) -> dict[str, State]:
    return {name: join(a.get(name, UNKNOWN), b.get(name, UNKNOWN)) for name in a.keys() | b.keys()}


NO_GRAD_LOSS_ERROR = "element 0 of tensors does not require grad and does not have a grad_fn"


class BackwardWithoutGraphChecker(Checker):
    """GL202 at the backward itself: the tensor differentiated needs no grad because grad
    mode was off when it was computed (a `no_grad` block, a decorated helper, a global
    `torch.set_grad_enabled(False)` left on by a helper) or because every parameter it
    came from was frozen, decided from the dataflow's backward events."""

    codes = ("GL202",)

    def leave_Module(self, node: cst.Module) -> None:
        reported: set[cst.CSTNode] = set()
        for call in self.file.dataflow.backward_calls:
            value = call.value
            if value is None or value.grad is not Grad.OFF or call.node in reported:
                continue  # (a loss cut by .item() / .detach() is GL201 / GL202 at the cut)
            if value.no_grad_made:
                why = (
                    "was computed with grad mode off (under `torch.no_grad()`, a helper "
                    "decorated with it, or after `torch.set_grad_enabled(False)`)"
                )
                advice = "compute the loss with grad enabled from the trainable parameters"
                witness = _NO_GRAD_WITNESS
            elif value.frozen_made:
                why = (
                    "comes only from frozen parameters (`requires_grad = False` / "
                    "`requires_grad_(False)` on every parameter of the model)"
                )
                advice = "freeze only the part meant to stay fixed (e.g. the backbone)"
                witness = _FROZEN_WITNESS
            else:
                continue
            reported.add(call.node)
            self.report(
                call.node,
                "GL202",
                f'`{call.written}` {why}: backward raises "{NO_GRAD_LOSS_ERROR}"; {advice}',
                witness=witness,
            )


_NO_GRAD_WITNESS = Witness(
    "import torch\nw = torch.nn.Parameter(torch.ones(3))\n"
    "with torch.no_grad():\n    loss = (w * 2).sum()\nloss.backward()\n",
    NO_GRAD_LOSS_ERROR,
)
_FROZEN_WITNESS = Witness(
    "import torch\nmodel = torch.nn.Linear(3, 1)\nmodel.requires_grad_(False)\n"
    "model(torch.randn(2, 3)).sum().backward()\n",
    NO_GRAD_LOSS_ERROR,
)


class BackwardTwiceChecker(Checker):
    """GL305: a backward reaches a recorded op whose saved tensors an earlier backward
    (without `retain_graph=True`) freed, decided from the dataflow's backward events."""

    codes = ("GL305",)

    def leave_Module(self, node: cst.Module) -> None:
        reported: set[cst.CSTNode] = set()
        for call in self.file.dataflow.backward_calls:
            if not call.freed or call.node in reported:
                continue
            reported.add(call.node)
            first = min(call.freed, key=lambda freed: freed.node.time)
            if first.by is call.node:
                where = "on the previous iteration"
            else:
                where = f"on line {self.file.position(first.by).start.line}"
            self.report(
                call.node,
                "GL305",
                f"this backward goes through the graph of `{first.node.label}` a second time: "
                f"the backward {where} already freed it (no `retain_graph=True`), so torch "
                "raises 'Trying to backward through the graph a second time'; recompute the "
                "forward, `.detach()` the value carried over (e.g. `fake.detach()`, "
                "`hidden = hidden.detach()`), or sum the losses into one backward",
                witness=_WITNESS["GL305"],
            )


class StepUnderLiveGraphChecker(Checker):
    """GL103 at `optimizer.step()`: the step updates in place parameters that a graph
    still alive saved (a retained graph, a hidden state carried over), and a later
    backward goes through that graph, decided from the dataflow's backward events."""

    codes = ("GL103",)

    def leave_Module(self, node: cst.Module) -> None:
        reported: set[cst.CSTNode] = set()
        for call in self.file.dataflow.backward_calls:
            for step, saved_by in call.stale:
                if step.node in reported:
                    continue
                reported.add(step.node)
                line = self.file.position(call.node).start.line
                self.report(
                    step.node,
                    "GL103",
                    f"`{step.written}` updates in place parameters that `{saved_by.label}` saved "
                    f"for backward, and the backward of `{call.written}` on line {line} still "
                    f'goes through that graph: torch raises "{_WITNESS["GL103"].expect} inplace '
                    'operation"; '
                    "run every backward through the graph before the step, or recompute the "
                    "forward (or `.detach()` the state carried over) after it",
                    witness=_WITNESS["GL103"],
                )
