"""Training loops: gradients never cleared (GL503), a step that cannot use the backward
meant for it (GL504).

Each function (and the module's top level) is replayed statement by statement. Every
call of a module records a graph node (a `Record`); a value's closure is the set of
records its graph reaches. `.detach()` / `.data` / `.item()`, factories, assignments under
`torch.no_grad()` and unknown helpers that replace their own argument
(`hidden = repackage_hidden(hidden)`) start a new, empty closure. Loop bodies are replayed
twice so that state carried into the next iteration is seen. `backward()`, `step()` and
`zero_grad()` calls become events, tagged with the branches and loop passes they sit in.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property

import libcst as cst

from gradlint import fixes
from gradlint.analysis.context import ClassKind
from gradlint.analysis.names import dotted
from gradlint.analysis.torch_ops import (
    FRESH_TENSOR_FACTORIES,
    GRAPH_CUT_FUNCTIONS,
    GRAPH_CUT_METHODS,
)
from gradlint.analysis.walk import iter_nodes
from gradlint.checks import Checker
from gradlint.diagnostic import Edit, Fix, Witness

# -- what the file says about its names --------------------------------------------------

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


_FRESH = GRAPH_CUT_FUNCTIONS.keys() | {f"torch.{name}" for name in FRESH_TENSOR_FACTORIES}
_OPTIMIZER_NAME = re.compile(r"(^|_)(opt|optim|optimizer|optimiser)s?(_|$|[a-z]$|\d)|optimi[sz]er")
_NOT_OPTIMIZER_NAME = re.compile(r"sched|scaler|lr_|warmup")
_MAX_REPLAYED_LOOP_DEPTH = 3
_OUTPUT_KEYWORDS = ("outputs", "tensors")

# A path marker: ("if" | "try" | "loop", id of the node, branch or pass number).
Marker = tuple[str, int, int]


@dataclass
class Record:
    """The output of one module call: a graph holding that module's saved tensors."""

    module: str
    position: int


@dataclass
class Event:
    kind: str  # "backward", "step" or "zero"
    node: cst.CSTNode
    position: int
    path: tuple[Marker, ...]
    closure: frozenset[int] = frozenset()  # backward: records its graph reaches
    retains: bool = False  # backward: keeps the graph (retain_graph / create_graph)
    optimizer: str | None = None  # step / zero: the receiver
    with_closure: bool = False  # step(closure): the closure runs backward itself
    statement: cst.CSTNode | None = None  # the statement line holding the call


def _exclusive(a: tuple[Marker, ...], b: tuple[Marker, ...]) -> bool:
    """Two events on different branches of the same `if` / `try` never both run."""
    for x, y in zip(a, b, strict=False):
        if x != y:
            return x[0] == y[0] and x[0] != "loop" and x[1] == y[1]
    return False


def _keyword_keeps_graph(call: cst.Call, positional_limit: int) -> bool:
    """`retain_graph=` / `create_graph=` other than a literal False, or enough positionals."""
    positional = [a for a in call.args if a.keyword is None and a.star == ""]
    if len(positional) > positional_limit:
        return True
    for arg in call.args:
        literal_off = isinstance(arg.value, cst.Name) and arg.value.value in ("False", "None")
        keeps = arg.keyword is not None and arg.keyword.value in ("retain_graph", "create_graph")
        if (keeps and not literal_off) or arg.star == "**":
            return True
    return False


def _is_zeroing(node: cst.CSTNode) -> bool:
    """`zero_grad()`, `p.grad = None`, `p.grad.zero_()`, `del p.grad`, `zero_grads(m)`."""
    if isinstance(node, cst.Call):
        name = dotted(node.func) or ""
        last = name.rpartition(".")[2]
        return "zero_grad" in last or (".grad." in name and last.endswith("_"))
    if isinstance(node, cst.Assign):
        return any(_names_grad(t.target) for t in node.targets)
    if isinstance(node, cst.Del):
        return _names_grad(node.target)
    return False


def _names_grad(target: cst.BaseExpression) -> bool:
    if isinstance(target, cst.Tuple):
        return any(_names_grad(e.value) for e in target.elements)
    return isinstance(target, cst.Attribute) and target.attr.value == "grad"


# What a statement between a `zero_grad()` and the loop may not touch for the call to move.
_GRADIENT_ATTRIBUTES = frozenset({"grad", "backward", "step", "zero_grad"})


class TrainingLoopChecker(FactsCollector):
    """GL503, GL504 over the replayed events of each function."""

    codes = ("GL503", "GL504")

    def leave_Module(self, node: cst.Module) -> None:
        for function, grad_enabled, _ in self.functions:
            if grad_enabled and function in self.backward_bodies:
                _Replay(self, function).run()
        if None in self.backward_bodies:
            _Replay(self, node).run()

    @cached_property
    def zeroing_functions(self) -> frozenset[str]:
        """Names of the file's functions whose body clears gradients."""
        return frozenset(
            function.name.value
            for function, _, _ in self.functions
            if any(_is_zeroing(n) for n in sub_expressions(function.body))
        )

    def clears_gradients(self, loop: cst.CSTNode, optimizer: str) -> bool:
        """Whether something in `loop` may clear the gradients `optimizer` steps with."""
        for node in sub_expressions_all(loop):
            func = node.func if isinstance(node, cst.Call) else None
            if isinstance(func, cst.Attribute) and func.attr.value == "zero_grad":
                if self.zero_grad_may_clear(dotted(func.value) or "", optimizer):
                    return True
            elif _is_zeroing(node) or self.calls_zeroing_function(func):
                return True
        return False

    def calls_zeroing_function(self, func: cst.BaseExpression | None) -> bool:
        callee = (dotted(func) or "") if func is not None else ""
        return callee.rpartition(".")[2] in self.zeroing_functions

    def zero_grad_may_clear(self, receiver: str, optimizer: str) -> bool:
        """False only for another optimizer, or its model, proven to hold other parameters."""
        owned = self.facts.optimizers.get(optimizer)
        if not owned or receiver == optimizer:
            return True
        if receiver in self.facts.optimizers:
            return bool(self.facts.optimizers[receiver] & owned)
        others = set().union(
            *(modules for name, modules in self.facts.optimizers.items() if name != optimizer)
        )
        return receiver in owned or receiver not in others

    def is_optimizer(self, name: str) -> bool:
        facts = self.facts
        if name in facts.optimizers:
            return True
        known = facts.schedulers | facts.scalers | facts.modules | facts.losses | facts.others
        last = name.rpartition(".")[2].lower()
        return (
            name not in known
            and bool(_OPTIMIZER_NAME.search(last))
            and not _NOT_OPTIMIZER_NAME.search(last)
        )


def sub_expressions_all(node: cst.CSTNode):
    """Every node below `node`, nested functions included (LBFGS closures)."""
    for child in node.children:
        yield child
        yield from sub_expressions_all(child)


@dataclass
class _Loop:
    node: cst.For | cst.While
    marker: Marker  # of its first pass


@dataclass
class _Replay:
    checker: TrainingLoopChecker
    body: cst.Module | cst.FunctionDef
    env: dict[str, frozenset[int]] = field(default_factory=dict)
    records: list[Record] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    loops: list[_Loop] = field(default_factory=list)
    path: tuple[Marker, ...] = ()
    position: int = 0
    line: cst.CSTNode | None = None  # the statement line being replayed

    # -- replay -----------------------------------------------------------------------

    def run(self) -> None:
        statements = self.body.body if isinstance(self.body, cst.Module) else self.body.body.body
        self.block(statements, grad=True)
        self.check_missing_zero_grad()
        self.check_step_before_backward()

    def tick(self) -> int:
        self.position += 1
        return self.position

    def block(self, statements, grad: bool) -> None:
        for statement in statements:
            self.statement(statement, grad)

    def branch(self, kind: str, node: cst.CSTNode, index: int, statements, grad: bool) -> None:
        saved = self.path
        self.path = (*saved, (kind, id(node), index))
        self.block(statements, grad)
        self.path = saved

    def statement(self, statement: cst.CSTNode, grad: bool) -> None:
        if isinstance(statement, cst.SimpleStatementLine):
            self.line = statement
            for small in statement.body:
                self.small(small, grad)
            self.line = None
        elif isinstance(statement, cst.BaseSmallStatement):  # `if c: loss.backward()`
            self.small(statement, grad)
        elif isinstance(statement, cst.If):
            self.branch("if", statement, 0, statement.body.body, grad)
            orelse = statement.orelse
            if orelse is not None:
                inner = [orelse] if isinstance(orelse, cst.If) else orelse.body.body
                self.branch("if", statement, 1, inner, grad)
        elif isinstance(statement, cst.For | cst.While):
            self.loop(statement, grad)
        elif isinstance(statement, cst.With):
            inner = grad
            for item in statement.items:
                effect = self.checker.scope.grad_effect(item.item)
                inner = inner if effect is None else effect
            self.block(statement.body.body, inner)
        elif isinstance(statement, cst.Try):
            self.branch("try", statement, 0, statement.body.body, grad)
            for i, handler in enumerate(statement.handlers, start=1):
                self.branch("try", statement, i, handler.body.body, grad)
            for extra in (statement.orelse, statement.finalbody):
                if extra is not None:
                    self.block(extra.body.body, grad)

    def loop(self, loop: cst.For | cst.While, grad: bool) -> None:
        depth = sum(1 for m in self.path if m[0] == "loop")
        exits = any(
            isinstance(s, cst.SimpleStatementLine)
            and any(isinstance(x, cst.Break | cst.Return) for x in s.body)
            for s in loop.body.body
        )
        passes = 1 if exits or depth >= _MAX_REPLAYED_LOOP_DEPTH else 2
        self.loops.append(_Loop(loop, ("loop", id(loop), 0)))
        for number in range(passes):
            if isinstance(loop, cst.For):
                self.assign(loop.target, loop.iter, grad)
            self.branch("loop", loop, number, loop.body.body, grad)
        if loop.orelse is not None:
            self.block(loop.orelse.body.body, grad)

    def small(self, small: cst.BaseSmallStatement, grad: bool) -> None:
        for node in sub_expressions(small):
            if isinstance(node, cst.Call):
                self.call_event(node)
        if isinstance(small, cst.Assign):
            for target in small.targets:
                self.assign(target.target, small.value, grad)
        elif isinstance(small, cst.AnnAssign) and small.value is not None:
            self.assign(small.target, small.value, grad)
        elif isinstance(small, cst.AugAssign) and (name := dotted(small.target)):
            self.env[name] = self.env.get(name, frozenset()) | self.closure(small.value)
        elif isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
            self.in_place(small.value)

    def in_place(self, call: cst.Call) -> None:
        """`h.detach_()` empties the closure of `h`."""
        func = call.func
        detaches = isinstance(func, cst.Attribute) and func.attr.value == "detach_"
        if detaches and (name := dotted(func.value)):
            self.env[name] = frozenset()

    def assign(self, target: cst.BaseExpression, value: cst.BaseExpression, grad: bool) -> None:
        closure = self.closure(value) if grad else frozenset()
        if self.replaces_own_argument(target, value):
            closure = frozenset()
        self.bind(target, closure)

    def replaces_own_argument(self, target: cst.BaseExpression, value: cst.BaseExpression) -> bool:
        """`h = helper(h)` with an unknown helper: it may detach (`repackage_hidden`)."""
        if not isinstance(value, cst.Call):
            return False
        if (self.checker.resolve(value.func) or "").startswith("torch"):
            return False
        callee = dotted(value.func)
        if callee in self.checker.facts.modules or isinstance(value.func, cst.Attribute):
            return False
        arguments = {name for a in value.args if (name := dotted(a.value))}
        if isinstance(target, cst.Tuple | cst.List):
            return any(dotted(element.value) in arguments for element in target.elements)
        return dotted(target) in arguments

    def bind(self, target: cst.BaseExpression, closure: frozenset[int]) -> None:
        if isinstance(target, cst.Tuple | cst.List):
            for element in target.elements:
                self.bind(element.value, closure)
        elif isinstance(target, cst.StarredElement):
            self.bind(target.value, closure)
        elif name := dotted(target):
            self.env[name] = closure

    # -- closures -----------------------------------------------------------------

    def closure(self, expr: cst.CSTNode) -> frozenset[int]:
        """The module-call records whose graph `expr`'s value reaches."""
        if isinstance(expr, cst.Name | cst.Attribute) and (name := dotted(expr)) in self.env:
            return self.env[name]
        if isinstance(expr, cst.Attribute):
            return frozenset() if expr.attr.value in ("data", "grad") else self.closure(expr.value)
        if isinstance(expr, cst.Call):
            return self.call_closure(expr)
        if isinstance(expr, cst.Lambda | cst.Name):
            return frozenset()
        if isinstance(expr, cst.ListComp | cst.SetComp | cst.GeneratorExp):
            return self.comprehension_closure(expr)
        result = frozenset()
        for child in expr.children:
            result |= self.closure(child)
        return result

    def comprehension_closure(self, expr) -> frozenset[int]:
        """What the elements reach: the loop variables carry their iterable's graph, and a
        graph-free element (`[torch.randn_like(o) for o in out]`) carries none."""
        saved = dict(self.env)
        clause = expr.for_in
        while clause is not None:
            self.bind(clause.target, self.closure(clause.iter))
            clause = clause.inner_for_in
        try:
            return self.closure(expr.elt)
        finally:
            self.env = saved

    def call_closure(self, call: cst.Call) -> frozenset[int]:
        func = call.func
        qualified = self.checker.resolve(func) or ""
        if qualified in _FRESH:
            return frozenset()
        if isinstance(func, cst.Attribute) and func.attr.value in GRAPH_CUT_METHODS:
            return frozenset()
        arguments = frozenset().union(*(self.closure(a.value) for a in call.args))
        callee = dotted(func)
        facts = self.checker.facts
        if facts.trains(callee):
            self.records.append(Record(callee, self.tick()))
            return arguments | {len(self.records) - 1}
        if isinstance(func, cst.Attribute) and not qualified:
            owner = dotted(func.value)
            if facts.trains(owner) and func.attr.value == "forward":
                self.records.append(Record(owner, self.tick()))
                return arguments | {len(self.records) - 1}
            return arguments if owner in facts.modules else arguments | self.closure(func.value)
        return arguments

    # -- events -----------------------------------------------------------------

    def call_event(self, call: cst.Call) -> None:
        func = call.func
        qualified = self.checker.resolve(func) or ""
        if qualified in ("torch.autograd.backward", "torch.autograd.grad") and call.args:
            limit = 2 if qualified.endswith("backward") else 3
            outputs = next(
                (a.value for a in call.args if a.keyword and a.keyword.value in _OUTPUT_KEYWORDS),
                call.args[0].value,
            )
            self.backward(call, self.closure(outputs), _keyword_keeps_graph(call, limit))
        elif isinstance(func, cst.Attribute) and not qualified:
            self.method_event(call, func)

    def method_event(self, call: cst.Call, func: cst.Attribute) -> None:
        attr = func.attr.value
        receiver = dotted(func.value)
        if attr == "backward":
            values = self.closure(func.value)
            for arg in call.args:
                values |= self.closure(arg.value)
            self.backward(call, values, _keyword_keeps_graph(call, 1))
        elif attr == "step" and receiver and call.args and self.is_scaler(receiver):
            optimizer = dotted(call.args[0].value)
            if optimizer:
                self.add(Event("step", call, self.tick(), self.path, optimizer=optimizer))
        elif attr == "step" and receiver and self.checker.is_optimizer(receiver):
            event = Event("step", call, self.tick(), self.path, optimizer=receiver)
            event.with_closure = bool(call.args)
            self.add(event)
        elif attr == "zero_grad":
            self.add(Event("zero", call, self.tick(), self.path, optimizer=receiver))

    def is_scaler(self, name: str) -> bool:
        return name in self.checker.facts.scalers or "scaler" in name.lower()

    def backward(self, call: cst.Call, closure: frozenset[int], retains: bool) -> None:
        self.add(Event("backward", call, self.tick(), self.path, closure, retains))

    def add(self, event: Event) -> None:
        event.statement = self.line
        self.events.append(event)

    # -- GL503 ------------------------------------------------------------------

    def direct_events(self, loop: _Loop, kind: str) -> list[Event]:
        """Events of the loop's first pass that run on every iteration (no if around them)."""
        found = []
        for event in self.events:
            if event.kind != kind or loop.marker not in event.path:
                continue
            inner = event.path[event.path.index(loop.marker) + 1 :]
            if all(m[0] == "try" and m[2] == 0 for m in inner):
                found.append(event)
        return found

    def check_missing_zero_grad(self) -> None:
        for loop in self.loops:
            backwards = self.direct_events(loop, "backward")
            steps = [s for s in self.direct_events(loop, "step") if not s.with_closure]
            uncleared = [
                s for s in steps if not self.checker.clears_gradients(loop.node, s.optimizer)
            ]
            if backwards and uncleared:
                step = uncleared[0]
                feeding = [b for b in backwards if b.position < step.position] or backwards
                self.checker.report(
                    feeding[-1].node,
                    "GL503",
                    "`backward()` adds into `.grad` on every iteration of this loop and "
                    f"nothing in the loop clears the gradients `{step.optimizer}` uses, so each "
                    f"`{step.optimizer}.step()` applies the sum of all previous gradients; call "
                    f"`{step.optimizer}.zero_grad()` at the start of each iteration (for "
                    "deliberate accumulation, step and zero_grad under the same condition)",
                    witness=_ZERO_GRAD_WITNESS,
                    fix=self._zero_grad_fix(loop.node, step.optimizer),
                )

    def _zero_grad_fix(self, loop: cst.CSTNode, optimizer: str) -> Fix | None:
        """`<optimizer>.zero_grad()` moved to (or put as) the loop's first statement:
        unsafe, a loop meant to accumulate gradients over iterations stops doing so."""
        body = getattr(loop, "body", None)
        if not isinstance(loop, cst.For | cst.While) or not isinstance(body, cst.IndentedBlock):
            return None
        try:
            call = cst.parse_statement(f"{optimizer}.zero_grad()\n")
        except cst.ParserSyntaxError:
            return None
        file = self.checker.file
        first, *rest = body.body
        fixed = body.with_changes(body=[call, first, *rest])
        return fixes.replace(
            file,
            body,
            fixed,
            f"call {optimizer}.zero_grad() in each iteration",
            unsafe=True,
            also=[self._earlier_zero_grad(loop, file.code_for(call).strip())],
        )

    def _earlier_zero_grad(self, loop: cst.CSTNode, written: str) -> Edit | None:
        """Deleting the same `zero_grad()` call just before the loop, when nothing between
        it and the loop touches gradients: the call moves into the loop."""
        file = self.checker.file
        for statement in reversed(fixes.statements_before(file, loop)):
            if (
                isinstance(statement, cst.SimpleStatementLine)
                and len(statement.body) == 1
                and file.code_for(statement.body[0]).strip() == written
            ):
                return fixes.delete_line(file, statement)
            if any(
                isinstance(node, cst.Attribute) and node.attr.value in _GRADIENT_ATTRIBUTES
                for node in iter_nodes(statement)
            ):
                return None
        return None

    # -- GL504 ------------------------------------------------------------------

    def check_step_before_backward(self) -> None:
        flagged: set[cst.CSTNode] = set()
        for event in self.events:
            if event.kind == "backward":
                self.stale_graph(event, flagged)
        for loop in self.loops:
            self.wiped_before_step(loop, flagged)
        self.zeroed_before_step(flagged)

    def stale_graph(self, backward: Event, flagged: set[cst.CSTNode]) -> None:
        """A graph recorded through module m, then `opt.step()` on m, then its backward."""
        for index in sorted(backward.closure):
            record = self.records[index]
            if self.consumed_between(index, record.position, backward.position):
                continue
            for step in self.events:
                owned = self.checker.facts.optimizers.get(step.optimizer or "", ())
                if (
                    step.kind == "step"
                    and record.position < step.position < backward.position
                    and record.module in owned
                    and step.node not in flagged
                    and not _exclusive(step.path, backward.path)
                ):
                    flagged.add(step.node)
                    self.report_stale(step, backward, record)
                    return

    def consumed_between(self, index: int, start: int, end: int) -> bool:
        return any(
            e.kind == "backward" and not e.retains and index in e.closure
            for e in self.events
            if start < e.position < end
        )

    def report_stale(self, step: Event, backward: Event, record: Record) -> None:
        line = self.checker.file.position(backward.node).start.line
        self.checker.report(
            step.node,
            "GL504",
            f"`{step.optimizer}.step()` updates the parameters of `{record.module}` in place "
            f"after a forward through `{record.module}` recorded its graph, and the backward on "
            f"line {line} goes through that stale graph: torch raises 'one of the variables "
            "needed for gradient computation has been modified by an inplace operation' when "
            "the graph saved those parameters, and otherwise this step never sees that "
            "backward's gradients; call `backward()` before `step()`, or recompute the "
            "forward after the step",
            witness=_STALE_WITNESS,
        )

    def wiped_before_step(self, loop: _Loop, flagged: set[cst.CSTNode]) -> None:
        """zero_grad, step, backward in one iteration: every gradient is cleared unused."""
        backwards = self.direct_events(loop, "backward")
        if not backwards:
            return
        last_backward = backwards[-1].position
        for step in self.direct_events(loop, "step"):
            if step.with_closure or step.node in flagged or step.position > backwards[0].position:
                continue
            later_steps = [
                e
                for e in self.events
                if e.kind == "step"
                and e.optimizer == step.optimizer
                and e.position > last_backward
                and loop.marker in e.path
            ]
            zeros = [
                z
                for z in self.direct_events(loop, "zero")
                if z.position < step.position and self.clears_for(z, step.optimizer)
            ]
            if zeros and not later_steps:
                flagged.add(step.node)
                self.report_wiped(step, backwards[0])

    def zeroed_before_step(self, flagged: set[cst.CSTNode]) -> None:
        """backward, then `zero_grad()` on the line right before `step()`: the step
        applies the cleared gradients."""
        for zero, step in zip(self.events, self.events[1:], strict=False):
            if zero.kind != "zero" or step.kind != "step" or step.with_closure:
                continue
            owned = self.checker.facts.optimizers.get(step.optimizer or "", ())
            if zero.optimizer != step.optimizer and zero.optimizer not in owned:
                continue  # clearing other parameters (another optimizer or model)
            if step.node in flagged or zero.statement is None or step.statement is None:
                continue
            before = fixes.statements_before(self.checker.file, step.statement)
            if not before or before[-1] is not zero.statement:
                continue
            backward = next(
                (
                    e
                    for e in self.events
                    if e.kind == "backward"
                    and e.position < zero.position
                    and not _exclusive(e.path, zero.path)
                ),
                None,
            )
            if backward is not None:
                flagged.add(step.node)
                self.report_zeroed(zero, step, backward)

    def report_zeroed(self, zero: Event, step: Event, backward: Event) -> None:
        line = self.checker.file.position(backward.node).start.line
        self.checker.report(
            zero.node,
            "GL504",
            f"`{self.checker.file.code_for(zero.node)}` clears the gradients the backward on "
            f"line {line} computed, right before `{step.optimizer}.step()`: the step finds no "
            "gradient to apply and nothing trains; call `zero_grad()` after `step()` (or at the "
            "start of the next iteration)",
            witness=_ZEROED_WITNESS,
        )

    def clears_for(self, zero: Event, optimizer: str) -> bool:
        """`zero_grad()` on this optimizer or on a model (not on another optimizer)."""
        receiver = zero.optimizer or ""
        return receiver == optimizer or not self.checker.is_optimizer(receiver)

    def report_wiped(self, step: Event, backward: Event) -> None:
        line = self.checker.file.position(backward.node).start.line
        name = step.optimizer
        self.checker.report(
            step.node,
            "GL504",
            f"`{name}.step()` runs before the backward on line {line} in every iteration, "
            f"and `zero_grad()` clears that backward's gradients before the next "
            f"`{name}.step()`: the optimizer never applies a gradient and the parameters "
            f"never change; call `loss.backward()` before `{name}.step()`",
            witness=_WIPED_WITNESS,
        )


_ZERO_GRAD_WITNESS = Witness(
    "import torch\n"
    "model = torch.nn.Linear(3, 1)\n"
    "opt = torch.optim.SGD(model.parameters(), lr=0.0)\n"
    "x = torch.randn(2, 3)\n"
    "grads = []\n"
    "for _ in range(2):\n"
    "    model(x).sum().backward()\n"
    "    opt.step()\n"
    "    grads.append(model.weight.grad.clone())\n"
    "if torch.allclose(grads[1], 2 * grads[0]):\n"
    "    raise AssertionError('gradients accumulate across steps')\n",
    "gradients accumulate across steps",
)
_ZEROED_WITNESS = Witness(
    "import torch\n"
    "model = torch.nn.Linear(3, 1)\n"
    "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
    "before = model.weight.detach().clone()\n"
    "model(torch.randn(2, 3)).sum().backward()\n"
    "opt.zero_grad()\n"
    "opt.step()\n"
    "if torch.equal(before, model.weight.detach()):\n"
    "    raise AssertionError('parameters never change')\n",
    "parameters never change",
)
_STALE_WITNESS = Witness(
    "import torch\n"
    "model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Linear(4, 1))\n"
    "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
    "model(torch.randn(2, 3)).sum().backward()\n"
    "loss = model(torch.randn(2, 3)).sum()\n"
    "opt.step()\n"
    "loss.backward()\n",
    "one of the variables needed for gradient computation has been modified by an inplace",
)
_WIPED_WITNESS = Witness(
    "import torch\n"
    "model = torch.nn.Linear(3, 1)\n"
    "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
    "before = model.weight.detach().clone()\n"
    "for _ in range(3):\n"
    "    opt.zero_grad()\n"
    "    loss = model(torch.randn(2, 3)).sum()\n"
    "    opt.step()\n"
    "    loss.backward()\n"
    "if torch.equal(before, model.weight.detach()):\n"
    "    raise AssertionError('parameters never change')\n",
    "parameters never change",
)
