"""What the interpreter states about each name a statement binds or edits, by line: the
query API the fact oracle (benchmarks/facts.py) checks against torch running the code.

`statement_facts(source)` runs the interpreter over one file with a recorder: after each
statement, in every context the interpreter runs it in (on its own, inlined into each
caller, each loop pass), the recorder describes the value of each name the statement binds
or edits as plain facts (kind, grad status, shape, dtype, contiguity) and, for each fact it
does not know, the construct that lost it (`unknown_cause`). The contexts are joined: a
fact is stated when every context states it alike.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from gradlint.analysis import knowledge
from gradlint.analysis.context import ModuleIndex, Scope
from gradlint.analysis.dataflow.interpreter import FileFacts
from gradlint.analysis.dataflow.interpreter.state import Modules
from gradlint.analysis.dataflow.values import (
    ClassRef,
    Const,
    Function,
    Grad,
    Mapping,
    Number,
    Obj,
    OneOf,
    Optimizer,
    Parameters,
    Seq,
    Size,
    Tensor,
    new_storage,
)
from gradlint.analysis.names import ImportTable, dotted
from gradlint.analysis.shapes.model import Shape, Sym, fresh
from gradlint.analysis.walk import iter_nodes

UNKNOWN = None  # a fact not stated

# The facts of one value; each is a string, a tuple or None (not stated).
FACETS = ("kind", "class", "grad", "dtype", "rank", "dims", "contiguous", "grad_mode")


@dataclass
class Stated:
    """What the interpreter states of one name after one statement, joined over contexts;
    `causes`: facet -> why it is unknown (the first context that lost it)."""

    facts: dict[str, object] = field(default_factory=dict)
    causes: dict[str, str] = field(default_factory=dict)
    contexts: int = 0
    # arguments a context running the function on its own took as given (not None)
    assumed_given: frozenset[str] = frozenset()

    def join(self, facts: dict[str, object], causes: dict[str, str], assumed=frozenset()) -> None:
        self.contexts += 1
        self.assumed_given |= assumed
        if self.contexts == 1:
            self.facts = dict(facts)
            self.causes = dict(causes)
            return
        for facet in FACETS:
            mine, theirs = self.facts.get(facet), facts.get(facet)
            if mine is None:
                continue
            if theirs is None:
                self.facts[facet] = None
                self.causes[facet] = causes.get(facet, "unknown in another context")
            elif facet == "dims":
                self.facts[facet] = _join_dims(mine, theirs)
                if self.facts[facet] is None:
                    self.causes[facet] = "contexts disagree"
            elif mine != theirs:
                self.facts[facet] = None
                self.causes[facet] = "contexts disagree"


def _join_dims(a: tuple, b: tuple) -> tuple | None:
    """Dims joined position by position (an int both agree on, else None)."""
    if len(a) != len(b):
        return None
    return tuple(x if x == y else None for x, y in zip(a, b, strict=True))


# -- describing a value ----------------------------------------------------------------


def describe(value) -> dict[str, object]:
    """The facts an abstract value states, in the runtime oracle's vocabulary."""
    facts: dict[str, object] = {}
    if isinstance(value, OneOf):  # what every option states alike
        described = [describe(option) for option in value.options]
        return {k: v for k, v in described[0].items() if all(d.get(k) == v for d in described)}
    if isinstance(value, Tensor):
        if value.described == "parameter" and not value.view and not value.leaf_view:
            facts["kind"] = "parameter"
        elif value.is_tensor:
            facts["kind"] = "tensor"
        # else a value used as a tensor, not proven one: a number, a distribution, None
        grad = {Grad.LEAF: "leaf", Grad.ON: "nonleaf", Grad.OFF: "off"}.get(value.grad)
        facts["grad"] = grad
        facts["dtype"] = value.dtype
        shape = value.shape
        if shape is not None and shape.dims is not None:
            facts["rank"] = len(shape.dims)
            facts["dims"] = tuple(_dim(d) for d in shape.dims)
            facts["same_dims"] = _same_symbols(shape.dims)
        # contiguity where the interpreter proves it (a fresh tensor, `.contiguous()`, a
        # Linear's output), not from the shape model's layouts: they take a forward()
        # argument as dense (the reshape rules' assumption), which a caller may not pass
        if value.contiguous:
            facts["contiguous"] = True
    elif isinstance(value, Obj):
        if value.is_module:
            facts["kind"] = "module"
            facts["class"] = value.kind
        elif value.info is None or set(value.info.base_names) <= {"object"}:
            # an instance of a class with a base (`class Cfg(dict)`, an EasyDict) may be
            # a dict or a list at run time: no kind stated
            facts["kind"] = "object"
            if value.info is not None:
                facts["class"] = value.kind
    elif isinstance(value, Modules) and value.item:
        if value.owner is not None and value.owner.is_module:  # torch's `Module.modules()`
            facts["kind"] = "module"
    elif isinstance(value, Optimizer):
        facts["kind"] = "optimizer"
    elif isinstance(value, Const):
        facts["kind"] = _constant_kind(value.value)
    elif isinstance(value, Size) or (isinstance(value, Number) and not value.array):
        facts["kind"] = "number"
    elif isinstance(value, Seq):
        facts["kind"] = "sequence"
    elif isinstance(value, Mapping):
        facts["kind"] = "mapping"
    elif isinstance(value, Parameters | Function | ClassRef):
        facts["kind"] = "object"
    return facts


def _constant_kind(value) -> str | None:
    if getattr(value, "name", None) == "an int":  # the interpreter's AN_INT
        return "number"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if value is None:
        return "none"
    if isinstance(value, str):
        return "str"
    return None  # a marker standing for what the interpreter left open (an opt-in flag)


def _dim(dim) -> int | None:
    return dim if isinstance(dim, int) else None


def _same_symbols(dims: tuple) -> tuple[tuple[int, ...], ...]:
    """Positions holding the same symbol (equal at run time whatever its value)."""
    groups: dict[Sym, list[int]] = {}
    for position, dim in enumerate(dims):
        if isinstance(dim, Sym):
            groups.setdefault(dim, []).append(position)
    return tuple(tuple(p) for p in groups.values() if len(p) > 1)


# Which runtime kinds satisfy each stated kind (a stated kind refuted by any other).
SATISFIES = {
    "parameter": {"parameter"},
    "tensor": {"tensor", "parameter"},
    "module": {"module"},
    "optimizer": {"optimizer"},
    "number": {"number", "bool"},
    "bool": {"bool"},
    "none": {"none"},
    "str": {"str"},
    # a list or tuple, or what the interpreter models as one: an iterator over items
    # (`zip`, `enumerate`), a container module iterated as its layers
    "sequence": {"list", "tuple", "other", "module"},
    # a dict, or an object read by keys or attributes alike (Namespace, ModuleDict)
    "mapping": {"dict", "other", "module"},
    "object": {"other", "module", "optimizer"},
}


_GRADS = {"off": Grad.OFF, "leaf": Grad.LEAF, "nonleaf": Grad.ON}


def given_value(facts: dict):
    """The abstract value of an argument whose runtime facts (joined over every call) are
    `facts`: a tensor with the grad status, dtype class, shape (a size the calls disagree
    on a symbol) and contiguity they state, or None, or a number of unknown value; else
    None (not modelled)."""
    if facts.get("kind") == "none":
        return Const(None)
    if facts.get("kind") == "number":
        return Number()  # a Python int or float of unknown value
    if facts.get("kind") not in ("tensor", "parameter"):
        return None
    dims = facts.get("shape")
    shape = None
    if dims is not None:
        sizes = tuple(fresh() if size is None else size for size in dims)
        shape = Shape.contiguous(sizes) if facts.get("contiguous") else Shape(sizes)
    return Tensor(
        new_storage(),
        _GRADS.get(facts.get("grad"), Grad.UNKNOWN),
        is_tensor=True,
        contiguous=bool(facts.get("contiguous")),
        described="parameter" if facts["kind"] == "parameter" else "argument",
        dtype=facts.get("dtype") if facts.get("dtype") in ("int", "bool", "float") else None,
        shape=shape,
    )


# -- why a fact is unknown -------------------------------------------------------------


class _Causes:
    """Finds, in one evaluated statement, the innermost expression that lost a fact
    although what it was computed from still had it."""

    def __init__(self, interpreter, start: int, standalone: bool, lost: dict) -> None:
        """`lost`: name -> facet -> why the frame's last statement binding it lost it."""
        self.interpreter = interpreter
        self.start = start
        self.standalone = standalone
        self.lost = lost

    def value(self, node: cst.CSTNode):
        found = self.interpreter.values.get(node)
        if found is None or found[1] < self.start:
            return _NOT_EVALUATED
        return found[0]

    def of(self, expr: cst.BaseExpression | None, facet: str, state=None) -> str:
        if expr is None:
            return "value not evaluated"
        value = self.value(expr)
        if value is _NOT_EVALUATED:
            return f"{_construct(expr)} not evaluated"
        for part in self.inputs(expr):
            part_value = self.value(part)
            if part_value is None or (
                part_value is not _NOT_EVALUATED and not _knows(part_value, facet)
            ):
                return self.of(part, facet, state)
        return self.construct(expr, facet, state)

    def inputs(self, expr: cst.BaseExpression) -> list[cst.BaseExpression]:
        """The expressions `expr` computes its value from (evaluated before it). A call's
        are its arguments, and the receiver of a method of a value (`x.permute(...)`), not
        an object of the file holding the callable (`self` of `self.conv(x)`); a call to a
        function of another library has none: knowing its arguments would not give it."""
        if not isinstance(expr, cst.Call):
            return _inputs(expr)
        arguments = [arg.value for arg in expr.args]
        qualified = self.interpreter.imports.resolve(expr.func)
        if qualified is not None:
            return arguments if qualified.split(".")[0] in _KNOWN_LIBRARIES else []
        if isinstance(expr.func, cst.Attribute):
            receiver = self.value(expr.func.value)
            if not (isinstance(receiver, Obj) and receiver.info is not None):
                return [expr.func.value, *arguments]
        return arguments

    def construct(self, expr: cst.BaseExpression, facet: str, state) -> str:
        """The construct `expr` is, named for the table of causes."""
        imports: ImportTable = self.interpreter.imports
        if isinstance(expr, cst.Name):
            if imports.resolve(expr) is not None:
                return "name imported from another module"
            earlier = self.lost.get(expr.value, {}).get(facet)
            if earlier is not None:  # lost where a statement of the frame bound it
                return earlier
            if expr.value in state.env:
                return "argument of a function run on its own" if self.standalone else "name"
            return "name not bound in this run"
        if isinstance(expr, cst.Call):
            qualified = imports.resolve(expr.func)
            if qualified is not None:
                return f"call to {qualified}"
            if isinstance(expr.func, cst.Name):
                value = self.value(expr.func)
                if isinstance(value, Function):
                    return "call of a function of the file"
                if isinstance(value, ClassRef):
                    return "construction of a class of the file"
                return f"call to {expr.func.value}"
            if isinstance(expr.func, cst.Attribute):
                receiver = self.value(expr.func.value)
                return f"method .{expr.func.attr.value}() of {_kind_word(receiver)}"
            return "call of a computed callable"
        if isinstance(expr, cst.Attribute):
            if imports.resolve(expr) is not None:
                return "name imported from another module"
            base = self.value(expr.value)
            if isinstance(base, Obj) and base.info is not None:
                return "attribute of an instance of a class of the file"
            return f"attribute .{expr.attr.value} of {_kind_word(base)}"
        if isinstance(expr, cst.Subscript):
            return f"subscript of {_kind_word(self.value(expr.value))}"
        if isinstance(expr, cst.BinaryOperation):
            left, right = self.value(expr.left), self.value(expr.right)
            operator = type(expr.operator).__name__
            return f"operator {operator} of {_kind_word(left)} and {_kind_word(right)}"
        return _construct(expr)


_NOT_EVALUATED = object()
# libraries whose functions the interpreter knows (generated knowledge, `math`)
_KNOWN_LIBRARIES = frozenset({"torch", "math"})


def _construct(expr: cst.CSTNode) -> str:
    return f"expression {type(expr).__name__}"


def _kind_word(value) -> str:
    if value is None:
        return "an unknown value"
    if value is _NOT_EVALUATED:
        return "a value not evaluated"
    if isinstance(value, Obj):
        if value.torch_layer:
            return "a torch layer"
        if value.is_module:
            return "a module of the file"
        return "an object"
    return {
        Tensor: "a tensor",
        Const: "a constant",
        Number: "a number",
        Size: "a size",
        Seq: "a sequence",
        Mapping: "a mapping",
        Optimizer: "an optimizer",
        Parameters: "parameters()",
        Function: "a function",
        ClassRef: "a class",
    }.get(type(value), "a value")


def _knows(value, facet: str) -> bool:
    """Whether `value` states `facet`, or is a known value that has no such facet (a
    module, a number: a tensor's facets are not what it lost)."""
    facts = describe(value)
    if facet != "kind" and not isinstance(value, Tensor | OneOf) and facts.get("kind"):
        return True
    if facet == "dims":
        return facts.get("rank") is not None
    if facet == "kind":
        return facts.get("kind") is not None
    return facts.get(facet) is not None


def _inputs(expr: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The expressions `expr` computes its value from (evaluated before it), but a call."""
    if isinstance(expr, cst.Attribute | cst.Subscript):
        return [expr.value]
    if isinstance(expr, cst.BinaryOperation):
        return [expr.left, expr.right]
    if isinstance(expr, cst.UnaryOperation):
        return [expr.expression]
    return []


# -- the recorder ----------------------------------------------------------------------


def bound_names(statement: cst.CSTNode) -> list[tuple[str, cst.BaseExpression | None]]:
    """The names a simple statement binds or edits, each with the expression it binds."""
    found: list[tuple[str, cst.BaseExpression | None]] = []
    if isinstance(statement, cst.Assign):
        for target in statement.targets:
            found += _targets(target.target, statement.value)
    elif isinstance(statement, cst.AugAssign | cst.AnnAssign) and statement.value is not None:
        found += _targets(statement.target, statement.value)
    elif isinstance(statement, cst.Expr):
        found += _edited(statement.value)
    seen: set[str] = set()
    return [(n, e) for n, e in found if not (n in seen or seen.add(n))]


def _targets(target: cst.BaseExpression, value) -> list:
    if isinstance(target, cst.Tuple | cst.List):
        return [n for element in target.elements for n in _targets(element.value, None)]
    if isinstance(target, cst.Subscript):
        base = dotted(target.value)
        return [(base, target.value)] if base is not None else []
    name = dotted(target)
    return [(name, value)] if name is not None else []


def _edited(expr: cst.BaseExpression) -> list:
    while isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
        method = expr.func.attr.value
        if method.endswith("_") and not method.endswith("__"):
            if isinstance(expr.func.value, cst.Call):
                expr = expr.func.value
                continue
            name = dotted(expr.func.value)
            return [(name, expr.func.value)] if name is not None else []
        return []
    return []


class StatementFacts:
    """The interpreter's statements about one file, by (line, name)."""

    def __init__(
        self,
        source: str,
        package: str | None = None,
        keep_trail: bool = False,
        pieces: tuple[str, ...] = (),
        given: dict[tuple[int, str], dict[bool, dict[str, dict]]] | None = None,
    ):
        """`pieces`: the project's definitions the file is linted with (project.linked),
        put before its statements as the linter does; lines stay the file's own. `given`:
        (first line, name) of a function -> the grad mode its calls at run time started in
        -> its arguments' facts as every such call passed them; the function runs on its
        own once per mode, with them, as a run inlined at a call starts with what the call
        passes (`starts`, `argument`)."""
        self.given = given
        module = cst.parse_module(source)
        statements = [s for piece in pieces for s in cst.parse_module(piece).body]
        self._header = len(module.header)
        self._added = cst.Module(body=statements).code.count("\n") if statements else 0
        defined = iter_nodes(cst.Module(body=statements))
        foreign = frozenset(node for node in defined if type(node) is cst.FunctionDef)
        module = module.with_changes(body=(*statements, *module.body))
        self.module = module
        self._positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
        self.stated: dict[tuple[int, str], Stated] = {}
        self.grad_modes: dict[int, Stated] = {}
        # per (line, name, grad mode): joined over the contexts that may run it so
        self.by_mode: dict[tuple[int, str, bool], Stated] = {}
        # per (line, name): each context's value and cause of unknown, for --explain
        self.trail: dict[tuple[int, str], list[str]] = {}
        self.keep_trail = keep_trail
        self._dependents: dict[tuple[cst.FunctionDef, frozenset[str]], Dependence] = {}
        self._lost: dict[int, tuple[object, dict[str, dict[str, str]]]] = {}
        imports = ImportTable.from_module(module, package)
        index = ModuleIndex(module, imports)
        scope = Scope(imports, index, ())
        self.facts = FileFacts(module, imports, index, scope, recorder=self, foreign=foreign)

    def _depending(
        self, name: str, statement: cst.CSTNode, frame, run, assumed: frozenset[str]
    ) -> frozenset[str]:
        """The arguments taken as given that `name`'s value after `statement` may depend
        on, where the statement runs in the function run on its own or in calls inlined
        into it: each named as that function's argument and as the parameters of the calls
        in between that receive what depends on it where they are called (the runtime
        records the None arguments of the statement's own frame). All of them when the
        chain of calls is not known."""
        calls = [place.node for place in run.path if place.kind == "call"]
        functions = run.stack
        if (
            not functions
            or len(calls) != len(functions) - 1
            or frame.body.node is not functions[-1]
        ):
            return assumed
        found = set()
        for argument in assumed:
            dependence = self._dependence(functions[0], frozenset({argument}))
            names = {argument}
            for call, callee in zip(calls, functions[1:], strict=True):
                roots = _parameters_given(call, callee, dependence.before(call))
                if roots is None:
                    dependence = None  # the callee's receiver depends on it: all of it may
                    break
                names |= roots
                dependence = self._dependence(callee, frozenset(roots))
            if dependence is None or dependence.after(statement, name):
                found |= names
        return frozenset(found)

    def _dependence(self, function: cst.FunctionDef, roots: frozenset[str]) -> Dependence:
        """`Dependence(function, roots)`, once per function and roots."""
        key = (function, roots)
        found = self._dependents.get(key)
        if found is None:
            found = self._dependents[key] = Dependence(function, roots)
        return found

    def starts(self, function: cst.FunctionDef) -> tuple[bool | None, ...]:
        """The grad modes the runs of `function` on its own start in: each one its calls
        at run time started in (`given`), else one run in the mode it assumes (None)."""
        return tuple(sorted(self._given(function))) or (None,)

    def argument(self, function: cst.FunctionDef, name: str, mode: bool):
        """The value argument `name` of `function` starts with in a run on its own in grad
        mode `mode`: what every call starting in it passed, as far as `given` states it
        (None: not stated)."""
        facts = self._given(function).get(mode, {}).get(name)
        return given_value(facts) if facts is not None else None

    def may_be_none(self, function: cst.FunctionDef, name: str, mode: bool) -> bool:
        """Whether the calls starting in grad mode `mode` passed argument `name` as None in
        some calls and as another value in others."""
        return bool(self._given(function).get(mode, {}).get(name, {}).get("or_none"))

    def _given(self, function: cst.FunctionDef) -> dict[bool, dict[str, dict]]:
        if not self.given:
            return {}
        first = function.decorators[0] if function.decorators else function
        return self.given.get((self.line_of(first), function.name.value), {})

    def _called(self, function: cst.FunctionDef) -> bool:
        """Whether the run may have called `function`: with `given`, one that takes named
        arguments and was never called (the runtime recorded no call's arguments) ran
        none of its statements, so a run of it on its own tells nothing of what torch
        observed. A generator's or coroutine's calls are not recorded."""
        if self.given is None or self._given(function):
            return True
        first = function.decorators[0] if function.decorators else function
        parameters = function.params
        named = (*parameters.posonly_params, *parameters.params, *parameters.kwonly_params)
        return (
            not named
            or self.line_of(first) is None
            or function.asynchronous is not None
            or any(isinstance(node, cst.Yield) for node in iter_nodes(function.body))
        )

    def line_of(self, node: cst.CSTNode) -> int | None:
        """The line of the file's own text `node` starts on (None: a project definition)."""
        position = self._positions.get(node)
        if position is None:
            return None
        line = position.start.line
        if self._header < line <= self._header + self._added:
            return None
        return line - self._added if line > self._header else line

    def query(self, line: int, name: str) -> Stated | None:
        """What the interpreter states of `name` after the statement at `line` (None: it
        never ran that statement)."""
        return self.stated.get((line, name))

    def query_in_mode(self, line: int, name: str, grad_mode: bool) -> Stated | None:
        """What the interpreter states of `name` after the statement at `line` in the
        contexts that may run it with grad mode `grad_mode` (None: none of them does)."""
        return self.by_mode.get((line, name, grad_mode))

    def grad_mode(self, line: int) -> Stated | None:
        return self.grad_modes.get(line)

    def after(self, statement: cst.CSTNode, state, frame, interpreter, start: int) -> None:
        """The hook: `statement` (a simple statement) just ran in `state`."""
        line = self.line_of(statement)
        if line is None:
            return
        standalone = interpreter.module_body_done  # a run of a function on its own
        # ... in the grad mode it assumes (not the one its calls at run time started in)
        assumed = standalone and interpreter.given_start is None
        mode = {True: "on", False: "off"}.get(state.grad) if not assumed else None
        mode_cause = "grad mode assumed in a function run on its own" if assumed else ""
        if state.grad is None and not assumed:
            mode_cause = "grad mode decided at run time"
        self.grad_modes.setdefault(line, Stated()).join(
            {"grad_mode": mode}, {"grad_mode": mode_cause} if mode is None else {}
        )
        lost = self._lost_in(frame)
        causes = _Causes(interpreter, start, standalone, lost)
        assigned = isinstance(statement, cst.Assign | cst.AnnAssign)
        for name, expr in bound_names(statement):
            value = _value_of(name, state, interpreter)
            facts = describe(value)
            if expr is None and isinstance(statement, cst.Assign):  # `a, b = f(x)`
                whole = functools.partial(causes.of, statement.value, state=state)
                unknown = _unknown(facts, lambda facet, whole=whole: "item of " + whole(facet))
            else:
                unknown = _unknown(facts, functools.partial(causes.of, expr, state=state))
            lost[name] = unknown
            computed = assigned and expr is not None and _computed_anew(expr, causes)
            self._note(
                line,
                statement,
                name,
                value,
                facts,
                unknown,
                frame,
                interpreter,
                state.grad,
                computed=computed,
            )

    def _lost_in(self, frame) -> dict[str, dict[str, str]]:
        """The causes of unknown of the names the statements of `frame` bound, by name."""
        found = self._lost.get(id(frame))
        if found is None or found[0] is not frame:
            found = self._lost[id(frame)] = (frame, {})
        return found[1]

    def _note(  # noqa: PLR0913
        self,
        line: int,
        statement,
        name: str,
        value,
        facts,
        unknown,
        frame,
        run,
        grad,
        computed: bool = False,
    ):
        """One context's facts of `name` after `statement` at `line`, run with grad mode
        `grad` (None: decided at run time). `computed`: the statement binds it to what an op
        computes anew (`_computed_anew`), which with grad mode off is a tensor that does not
        require grad whatever its inputs (torch records no graph)."""
        standalone = run.module_body_done
        if standalone and run.stack and not self._called(run.stack[0]):
            return  # a context torch never ran (`_called`)
        assumed = frozenset(run.assumed_given) if standalone else frozenset()
        if assumed:
            assumed = self._depending(name, statement, frame, run, assumed)
        self.stated.setdefault((line, name), Stated()).join(facts, unknown, assumed)
        mode_assumed = standalone and run.given_start is None
        for mode in (True, False) if grad is None or mode_assumed else (grad,):
            stated, causes = facts, unknown
            if not mode and computed:
                stated = dict(facts, grad="off")
                causes = {facet: c for facet, c in unknown.items() if facet != "grad"}
            elif mode_assumed and not mode and facts.get("grad") == "nonleaf":
                # computed from what requires grad, grad mode assumed on
                stated = dict(facts, grad=None)
                causes = dict(unknown, grad="grad mode assumed on in a function run on its own")
            self.by_mode.setdefault((line, name, mode), Stated()).join(stated, causes, assumed)
        if self.keep_trail:
            self.trail.setdefault((line, name), []).append(
                f"{_context(frame, run)}: {value!r:.300}"
                + "".join(f"\n      {facet} unknown: {c}" for facet, c in unknown.items())
            )

    def loop_bound(self, loop: cst.For, state, frame, interpreter, start: int) -> None:
        """The hook at a `for` header: its target was just bound."""
        line = self.line_of(loop)
        if line is None:
            return
        standalone = interpreter.module_body_done  # a run of a function on its own
        lost = self._lost_in(frame)
        causes = _Causes(interpreter, start, standalone, lost)
        for name, _ in _targets(loop.target, None):
            value = _value_of(name, state, interpreter)
            facts = describe(value)
            unknown = _unknown(facts, lambda f: "loop item of " + causes.of(loop.iter, f, state))
            lost[name] = unknown
            self._note(line, loop, name, value, facts, unknown, frame, interpreter, state.grad)


# Conversions that return their input when there is nothing to convert (torch: `x.float()`
# of a float tensor is `x`); the generated knowledge marks most of them `may_view`, not
# `type_as` (its samples convert)
_CONVERSIONS = frozenset(
    {"to", "type", "type_as", "float", "double", "half", "bfloat16", "int", "long", "short",
     "bool", "char", "byte", "cpu", "cuda", "contiguous", "positive"}
)  # fmt: skip
# layer kinds (the generated `shape`) whose forward computes its output anew
_COMPUTING_LAYERS = frozenset({"linear", "conv", "norm", "embedding", "elementwise", "pool"})
_STATELESS_COMPUTING = frozenset({"elementwise", "pool", "norm"})
_ARITHMETIC = (
    cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo,
    cst.Power, cst.MatrixMultiply,
)  # fmt: skip


def _computed_anew(expr: cst.BaseExpression, causes: _Causes) -> bool:
    """Whether `expr`'s value, when a tensor, is computed by an op of this expression (not
    an input returned or viewed): arithmetic, a torch function or Tensor method that is
    neither a view nor may return its input (generated knowledge), a computing layer, or a
    view or conversion of such a value."""
    if isinstance(expr, cst.BinaryOperation):
        return isinstance(expr.operator, _ARITHMETIC)
    if isinstance(expr, cst.UnaryOperation):
        return isinstance(expr.operator, cst.Minus | cst.BitInvert)
    if isinstance(expr, cst.Subscript):
        return _computed_anew(expr.value, causes)
    if isinstance(expr, cst.Attribute) and expr.attr.value in ("T", "mT", "H", "mH"):
        return isinstance(causes.value(expr.value), Tensor) and _computed_anew(expr.value, causes)
    if not isinstance(expr, cst.Call):
        return False
    if any(
        arg.keyword is not None and arg.keyword.value in ("inplace", "requires_grad")
        for arg in expr.args
    ):  # `F.relu(x, inplace=True)` returns x; `torch.zeros(n, requires_grad=True)` a leaf
        return False
    qualified = causes.interpreter.imports.resolve(expr.func)
    if qualified is not None:
        found = knowledge.op(qualified)
        return found is not None and _computing(found)
    if not isinstance(expr.func, cst.Attribute):
        return False
    receiver = causes.value(expr.func.value)
    method = expr.func.attr.value
    found = knowledge.method(method) if not method.endswith("_") else None
    anew = found is not None and _computed_anew(expr.func.value, causes)
    if found is not None and (anew or isinstance(receiver, Tensor)):
        if found.view or found.may_view or method in _CONVERSIONS:
            return anew
        return _computing(found)
    # the layer called (`self.fc(x)`): the callee itself is not among the values kept
    layer = None
    if isinstance(receiver, Obj):
        layer = causes.interpreter._object_attribute(receiver, method)
    if isinstance(layer, Obj) and layer.torch_layer:
        return _computing_layer(layer, causes)
    return False


def _computing_layer(layer: Obj, causes: _Causes) -> bool:
    """A torch layer whose forward computes its output anew: one with parameters (Linear,
    Conv, norms, Embedding), or an activation, pool or norm without (checked in torch) that
    is not in place, built by a call of the file saying so; not a dropout (in eval mode it
    returns its input)."""
    facts = knowledge.layer(layer.kind)
    if facts is None or facts.shape not in _COMPUTING_LAYERS:
        return False
    if facts.parameters:
        return True
    if "Dropout" in facts.name or facts.shape not in _STATELESS_COMPUTING:
        return False
    if facts.inplace_arg is None:
        return True
    inplace = causes.interpreter._object_attribute(layer, "inplace")
    return layer.constructor is not None and isinstance(inplace, Const) and inplace.value is False


def _computing(op: knowledge.OpFacts) -> bool:
    """An op whose output is a tensor it computes: not a view, not one that may return
    its input (`may_view`: reshape, dropout, `contiguous()`), not a conversion, one
    output."""
    name = op.name.rpartition(".")[2]
    return not (op.view or op.may_view or op.returns_tuple or name in _CONVERSIONS)


def _context(frame, interpreter) -> str:
    root = "a function run on its own" if interpreter.module_body_done else "the module body"
    return f"{root}, depth {frame.depth}"


def _unknown(facts: dict, cause_of) -> dict[str, str]:
    """The cause of each fact `facts` leaves unknown (tensor facts only for what may be a
    tensor)."""
    unknown = {}
    if facts.get("kind") is None:
        unknown["kind"] = cause_of("kind")
    if facts.get("kind") in (None, "tensor", "parameter"):
        if facts.get("grad") is None:
            unknown["grad"] = cause_of("grad")
        if facts.get("rank") is None:
            unknown["rank"] = unknown["dims"] = cause_of("dims")
    return unknown


def _value_of(name: str, state, interpreter):
    if name in state.env:
        return state.env[name]
    first, *rest = name.split(".")
    value = state.env.get(first)
    for attr in rest:
        if not isinstance(value, Obj):
            return None
        held = value.attrs.get(attr)
        value = held if isinstance(held, OneOf) else interpreter._object_attribute(value, attr)
    return value


# -- what an argument taken as given decides -------------------------------------------

# methods that change their receiver: a list's or dict's growth
_GROWING = frozenset({"append", "extend", "insert", "update", "add", "setdefault", "pop"})


class Dependence:
    """The names (dotted) of `function` whose values may differ when the names `roots`
    hold other values on entry (an argument taken as given, None at run time), statement
    by statement in the order they run: after a statement, its targets depend on the roots
    when what it computes them from does (`y = h + mask`) or when it runs in an arm of a
    branch or a loop testing what does (`if mask is not None: h = h * mask`); a name bound
    again from what does not depend on them holds the same value either way (`h =
    self.fc(x)` before that branch). Editing a value in place (`h.mul_(mask)`, `h[i] =`,
    `h += mask`) reaches the names that may hold it too. A loop runs to a fixpoint; a loop
    that a dependent test leaves early, or whose iterable depends, is dependent whole."""

    def __init__(self, function: cst.FunctionDef, roots: frozenset[str]) -> None:
        self._after: dict[cst.CSTNode, set[str]] = {}  # a simple statement or loop header
        self._calls: dict[cst.Call, set[str]] = {}  # what depends before a call's statement
        self._aliases: dict[str, set[str]] = {}  # a name -> the names read to bind it
        self._none = not roots
        if roots:
            self._block(function.body.body, set(roots), False)

    def after(self, statement: cst.CSTNode, name: str) -> bool:
        """Whether `name` may depend on the roots after `statement` (a statement never
        walked, as in an unusual compound statement, may)."""
        if self._none:
            return False
        found = self._after.get(statement)
        return found is None or _overlaps(name, found)

    def before(self, call: cst.Call) -> frozenset[str] | None:
        """What may depend on the roots when `call` runs (None: not known)."""
        found = self._calls.get(call)
        if self._none:
            return frozenset()
        return frozenset(found) if found is not None else None

    def _block(self, statements, depending: set[str], control: bool) -> set[str]:
        for statement in statements:
            depending = self._statement(statement, depending, control)
        return depending

    def _statement(self, node: cst.CSTNode, depending: set[str], control: bool) -> set[str]:
        if isinstance(node, cst.SimpleStatementLine):
            for small in node.body:
                depending = self._simple(small, depending, control)
            return depending
        if isinstance(node, cst.If):
            self._note_calls(node.test, depending)
            arm_control = control or _reads_any(node.test, depending)
            body = self._block(node.body.body, set(depending), arm_control)
            orelse = node.orelse
            if isinstance(orelse, cst.If):
                other = self._statement(orelse, set(depending), arm_control)
            elif isinstance(orelse, cst.Else):
                other = self._block(orelse.body.body, set(depending), arm_control)
            else:
                other = depending
            return body | other
        if isinstance(node, cst.For | cst.While):
            return self._loop(node, depending, control)
        if isinstance(node, cst.With):
            for item in node.items:
                self._note_calls(item.item, depending)
                if item.asname is not None:
                    dependent = control or _reads_any(item.item, depending)
                    depending = self._bind(item.asname.name, item.item, depending, dependent)
            return self._block(node.body.body, depending, control)
        if isinstance(node, cst.Try):
            return self._try(node, depending, control)
        # a nested function or class, a match: every name it binds may depend
        changed = {n for inner in iter_nodes(node) for n in _changed(inner)}
        if isinstance(node, cst.FunctionDef | cst.ClassDef):
            changed.add(node.name.value)
        for inner in iter_nodes(node):
            if isinstance(inner, cst.Call):
                self._calls.setdefault(inner, set()).update(depending | changed)
        return depending | changed

    def _simple(self, node: cst.CSTNode, depending: set[str], control: bool) -> set[str]:
        self._note_calls(node, depending)
        computed = _computed(node)
        dependent = control or _reads_any(computed, depending)
        depending = set(depending)
        if isinstance(node, cst.Assign | cst.AnnAssign) and node.value is not None:
            targets = (
                [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            )
            for target in targets:
                depending = self._bind(target, node.value, depending, dependent)
            edited = _edited_in(node.value) if dependent else set()
        else:
            edited = _changed(node) if dependent else set()
        for name in edited:
            depending |= self._holding(name)
        for inner in iter_nodes(computed):
            if isinstance(inner, cst.NamedExpr) and dependent:
                depending |= self._holding(_root(inner.target) or "")
        self._after.setdefault(node, set()).update(depending)
        return depending

    def _bind(self, target, value, depending: set[str], dependent: bool) -> set[str]:
        """`target = value`: a plain name bound again (kept or dropped), an element or
        attribute of a value edited in place."""
        if isinstance(target, cst.Tuple | cst.List):
            for element in target.elements:
                inner = element.value
                if isinstance(inner, cst.StarredElement):
                    inner = inner.value
                depending = self._bind(inner, value, depending, dependent)
            return depending
        if isinstance(target, cst.StarredElement):
            return self._bind(target.value, value, depending, dependent)
        if isinstance(target, cst.Name):
            name = target.value
            self._aliases[name] = set(_reads(value))
            if dependent:
                return depending | {name}
            return {d for d in depending if d != name and not d.startswith(name + ".")}
        root = _root(target)
        if root is None or not (dependent or _reads_any(target, depending)):
            return depending
        return depending | self._holding(root)

    def _holding(self, name: str) -> set[str]:
        """`name` and the names that may hold the same value (bound from one another)."""
        found, pending = {name}, [name]
        while pending:
            current = pending.pop()
            head = current.split(".")[0]
            linked = set(self._aliases.get(head, ()))
            linked |= {a for a, read in self._aliases.items() if _overlaps(head, read)}
            for other in linked - found:
                found.add(other)
                pending.append(other)
        return found

    def _loop(self, node: cst.For | cst.While, depending: set[str], control: bool) -> set[str]:
        header = node.iter if isinstance(node, cst.For) else node.test
        entry = set(depending)
        for _ in range(2):  # the second time as a whole when a dependent test leaves it
            while True:
                self._note_calls(header, entry)
                inner = control or _reads_any(header, entry)
                current = set(entry)
                if isinstance(node, cst.For):
                    current = self._bind(node.target, node.iter, current, inner)
                    self._after.setdefault(node, set()).update(current)
                end = self._block(node.body.body, current, inner)
                if end <= entry:
                    break
                entry |= end
            if control or not _leaves_when(node.body, entry):
                break
            control = True
        if node.orelse is not None:
            return entry | self._block(node.orelse.body.body, set(entry), control)
        return entry

    def _try(self, node: cst.Try, depending: set[str], control: bool) -> set[str]:
        body = self._block(node.body.body, set(depending), control)
        anywhere = set(depending) | body  # a handler may start from any point of the body
        for inner in iter_nodes(node.body):
            anywhere |= self._after.get(inner, set())
        out = set(body)
        for handler in node.handlers:
            out |= self._block(handler.body.body, set(anywhere), control)
        if node.orelse is not None:
            out |= self._block(node.orelse.body.body, set(body), control)
        if node.finalbody is not None:
            out = self._block(node.finalbody.body.body, out | anywhere, control)
        return out

    def _note_calls(self, node: cst.CSTNode, depending: set[str]) -> None:
        for inner in iter_nodes(node):
            if isinstance(inner, cst.Call):
                self._calls.setdefault(inner, set()).update(depending)


def _reads_any(node: cst.CSTNode, depending) -> bool:
    return any(_overlaps(read, depending) for read in _reads(node))


def _leaves_when(body: cst.CSTNode, depending: set[str]) -> bool:
    """Whether a loop body holds a `break`, `continue`, `return` or `raise` under a test
    reading what depends (the passes then differ in number or in what they run)."""
    for inner in iter_nodes(body):
        if isinstance(inner, cst.If | cst.While) and _reads_any(inner.test, depending):
            exits = (cst.Break, cst.Continue, cst.Return, cst.Raise)
            if any(isinstance(n, exits) for n in iter_nodes(inner)):
                return True
    return False


def _parameters_given(call: cst.Call, callee: cst.FunctionDef, depending) -> set[str] | None:
    """The parameters of `callee` that `call` passes something in `depending` (None: the
    callee itself, its receiver, or a star argument depends on it)."""
    if depending is None or any(_overlaps(r, depending) for r in _reads(call.func)):
        return None
    params = list(callee.params.params)
    if params and params[0].name.value in ("self", "cls", "ctx"):
        params = params[1:]
    by_name = {p.name.value for p in [*params, *callee.params.kwonly_params]}
    rest = callee.params.star_arg
    rest = rest.name.value if isinstance(rest, cst.Param) else None
    keywords = callee.params.star_kwarg.name.value if callee.params.star_kwarg else None
    found = set()
    for index, arg in enumerate(call.args):
        if not any(_overlaps(r, depending) for r in _reads(arg.value)):
            continue
        if arg.star:
            return None
        if arg.keyword is not None:
            name = arg.keyword.value if arg.keyword.value in by_name else keywords
        else:
            name = params[index].name.value if index < len(params) else rest
        if name is None:
            return None
        found.add(name)
    return found


def _computed(node: cst.CSTNode) -> cst.CSTNode:
    """What a binding statement computes its targets from (the target too for `x += y`)."""
    if isinstance(node, cst.For):
        return node.iter
    if isinstance(node, cst.WithItem):
        return node.item
    if isinstance(node, cst.AugAssign):
        return cst.Tuple([cst.Element(node.target), cst.Element(node.value)])
    if isinstance(node, cst.Assign | cst.AnnAssign | cst.NamedExpr) and node.value is not None:
        return node.value
    return node


def _root(target: cst.BaseExpression) -> str | None:
    """The dotted name a target binds or edits: `self.cache` for `self.cache[k] = v`."""
    while isinstance(target, cst.Subscript) or (
        isinstance(target, cst.Attribute) and dotted(target) is None
    ):
        target = target.value
    return dotted(target)


def _changed(node: cst.CSTNode) -> set[str]:
    """The names one node binds or edits: assignment, loop and `as` targets, receivers of
    in-place methods and of list and dict growth."""
    targets: list[cst.BaseExpression] = []
    if isinstance(node, cst.Assign):
        targets = [t.target for t in node.targets]
    elif isinstance(node, cst.AnnAssign | cst.AugAssign | cst.For | cst.NamedExpr):
        targets = [node.target]
    elif isinstance(node, cst.WithItem) and node.asname is not None:
        targets = [node.asname.name]
    found = set()
    for target in targets:
        elements = target.elements if isinstance(target, cst.Tuple | cst.List) else [target]
        for element in elements:
            value = element.value if isinstance(element, cst.BaseElement) else element
            if isinstance(value, cst.StarredElement):
                value = value.value
            root = _root(value)
            if root is not None:
                found.add(root)
    return found | _edited_in(_computed(node))


def _edited_in(expr: cst.CSTNode) -> set[str]:
    """The receivers of in-place methods and of list and dict growth in `expr`."""
    found = set()
    for inner in iter_nodes(expr):
        if isinstance(inner, cst.Call) and isinstance(inner.func, cst.Attribute):
            method = inner.func.attr.value
            edits = method.endswith("_") and not method.endswith("__")
            if edits or method in _GROWING:
                root = _root(inner.func.value)
                if root is not None:
                    found.add(root)
    return found


def _reads(node: cst.CSTNode) -> list[str]:
    """The dotted names an expression statement reads (an attribute chain as a whole)."""
    found, pending = [], [node]
    while pending:
        current = pending.pop()
        name = dotted(current) if isinstance(current, cst.Attribute | cst.Name) else None
        if name is not None:
            found.append(name)
            continue
        pending.extend(current.children)
    return found


def _overlaps(name: str, names) -> bool:
    """Whether `name` is, holds or is held by one of `names` (`h`, `h.shape`; `self`)."""
    return any(
        name == other or name.startswith(other + ".") or other.startswith(name + ".")
        for other in names
    )
