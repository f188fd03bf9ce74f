"""The interpreter's entry and run contexts: one run per scope, instances built by their
__init__, function summaries reused across call sites."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable

import libcst as cst

from gradlint.analysis.context import (
    ClassInfo,
    ClassKind,
    ModuleIndex,
    Scope,
    literal_bool,
)
from gradlint.analysis.dataflow import (
    freezing,
    graphs,
    summaries,
)
from gradlint.analysis.dataflow.events import (
    ArrayOfGrad,
    BackwardCall,
    Body,
    BuiltInForward,
    CheckpointCall,
    ContainerPassed,
    CutFed,
    DataAssigned,
    DataWrite,
    FunctionApplied,
    FunctionCall,
    GradRead,
    InplaceEdit,
    ModuleAttributeSet,
    ModuleCall,
    ModuleRegistration,
    OptimizerBuilt,
    Place,
    RequiresGradChange,
    Returned,
    TrainingEvent,
)
from gradlint.analysis.dataflow.interpreter.calls import Calls
from gradlint.analysis.dataflow.interpreter.common import (
    _UNSHARED,
    MAX_DEPTH,
    MAX_STEPS,
    OPT_IN,
    _fingerprint,
    _fresh_result,
    _heard,
    _returned,
    _takes_self,
    tensor_annotation,
)
from gradlint.analysis.dataflow.interpreter.expressions import Expressions
from gradlint.analysis.dataflow.interpreter.members import Members
from gradlint.analysis.dataflow.interpreter.scan import CallScan, _bound_once, _functions
from gradlint.analysis.dataflow.interpreter.state import Frame, Pending, State, saved_after
from gradlint.analysis.dataflow.interpreter.statements import Statements
from gradlint.analysis.dataflow.interpreter.tensors import TorchSemantics
from gradlint.analysis.dataflow.interpreter.training import Training
from gradlint.analysis.dataflow.shapes import ShapeFlow
from gradlint.analysis.dataflow.values import (
    Grad,
    Obj,
    OneOf,
    Tensor,
    Value,
    new_generation,
    new_storage,
    replace,
)
from gradlint.analysis.names import ImportTable, dotted, nested_blocks
from gradlint.analysis.walk import iter_nodes, visit


class FileFacts:
    """The interpreter's results for one file: events, by kind."""

    def __init__(
        self,
        module: cst.Module,
        imports: ImportTable,
        index: ModuleIndex,
        scope: Scope,
        scan: CallScan | None = None,
        recorder=None,
        foreign: frozenset[cst.FunctionDef] = frozenset(),
        called_without_grad: Callable[[str | None, str], bool] | None = None,
    ):
        """`recorder`: called after each statement the interpreter runs, with the state
        after it (recording.py: the fact oracle's query API); None in the linter.
        `called_without_grad(owner class, name)`: whether every use of a function of the
        file in its project is a call without grad (callers.py; None: not asked)."""
        self.edits: list[InplaceEdit] = []
        self.data_writes: list[DataWrite] = []
        self.requires_grad_changes: list[RequiresGradChange] = []
        self.backward_calls: list[BackwardCall] = []
        self.cuts_fed: list[CutFed] = []
        self.zeroed: set[int] = set()  # parameters some `zero_grad()` clears, by storage
        self.data_assigned: list[DataAssigned] = []
        self.module_attributes: list[ModuleAttributeSet] = []
        self.registrations: list[ModuleRegistration] = []
        self.containers_passed: list[ContainerPassed] = []
        self.optimizers: list[OptimizerBuilt] = []
        self.applied: list[FunctionApplied] = []
        self.returns: list[Returned] = []
        self.grad_reads: list[GradRead] = []
        self.arrays_of_grad: list[ArrayOfGrad] = []  # torch raises at each
        self.checkpoints: list[CheckpointCall] = []
        self.built_in_forward: list[BuiltInForward] = []
        self.training: list[TrainingEvent] = []  # backward / step / zero_grad ... in order
        # functions some call site reaches, and methods of classes built by other code of
        # the file: their arguments come from callers the file shows
        self.called: set[cst.FunctionDef] = set()
        # instances of the file's classes built by a call, and calls of its modules (what
        # the runtime probe builds and feeds them with)
        self.built: list[Obj] = []
        self.module_calls: list[ModuleCall] = []
        # calls of the file's functions and methods (what the runtime probe calls too)
        self.function_calls: list[FunctionCall] = []
        # methods of a file extending classes imported from its project: code in other
        # files may call them too
        self.called_elsewhere: set[cst.FunctionDef] = set()
        if scan is None or not scan.complete:  # no walk gave it: a walk of its own
            scan = CallScan()
            visit(module, scan)
        interpreter = Interpreter(module, imports, index, scope, self, scan)
        interpreter.recorder = recorder
        interpreter.called_without_grad = called_without_grad
        interpreter.run(foreign)
        self.shape_conflicts = interpreter.shapes.conflicts  # node -> kind -> ShapeConflict
        self._values = interpreter.values

    def value_of(self, node: cst.CSTNode):
        """The value the interpreter last computed for an expression (None: unknown)."""
        found = self._values.get(node)
        return found[0] if found is not None else None


def _fingerprints(env: dict[str, Value | None]) -> tuple | None:
    """Each name with its value's `_fingerprint`, or None when a tensor is among them."""
    found = tuple((name, _fingerprint(value)) for name, value in sorted(env.items()))
    return None if any(fingerprint is _UNSHARED for _, fingerprint in found) else found


_NO_GRAPHS = graphs.Graphs()


def _backward_role(node: cst.FunctionDef, owner: ClassInfo | None) -> str | None:
    """An autograd.Function's backward: its arguments after ctx are incoming gradients."""
    if owner is not None and owner.kind is ClassKind.AUTOGRAD_FUNCTION:
        return "function_backward" if node.name.value == "backward" else None
    return None


def _positional(node: cst.FunctionDef, owner: ClassInfo | None, role: str | None) -> list:
    params = list(node.params.params)
    if owner is not None and _takes_self(node):
        params = params[1:]
    if role in ("function_forward", "function_backward") and params:
        params = params[1:]  # ctx
    return params


def _annotated_tensor(param: cst.Param, imports: ImportTable) -> bool:
    """`x: torch.Tensor`; not an optional one (`torch.Tensor | None`,
    `Optional[torch.Tensor]`): callers pass None (the default) as often as a tensor, and
    it is a tensor only where a test proves it is not None (`optional_tensor`)."""
    return param.annotation is not None and tensor_annotation(param, imports) == "tensor"


class Interpreter(Statements, Expressions, Members, Calls, TorchSemantics, Training):
    def __init__(
        self,
        module: cst.Module,
        imports: ImportTable,
        index: ModuleIndex,
        scope: Scope,
        facts: FileFacts,
        scan: CallScan,
    ) -> None:
        self.module = module
        self.imports = imports
        self.index = index
        self.scope = scope
        self.facts = facts
        self.recorder = None  # called after each statement when set (FileFacts)
        # the fact oracle: the grad mode the run on its own under way started in, given
        # by the calls at run time (None: assumed)
        self.given_start: bool | None = None
        self.called_without_grad = None  # FileFacts' callers.py question, when asked
        self.steps = 0
        self.second_passes = 0  # loops now in their second pass (a call inside one included)
        self.functions = _functions(module, index)  # FunctionDef -> owner
        self.top_level = {
            node.name.value: node for node, owner in self.functions.items() if owner is None
        }
        self.calls = scan.by_body
        self.scan = scan
        self.script = any(_is_main_guard(statement) for statement in module.body)
        # `from m import *`: names bound that neither the environment nor the imports hold
        self.star_imported = any(
            isinstance(node, cst.ImportFrom) and isinstance(node.names, cst.ImportStar)
            for statement in module.body
            if isinstance(statement, cst.SimpleStatementLine)
            for node in statement.body
        )
        self.module_level = _module_level(module)
        # how often each call was evaluated, and ran each function of the file inline
        self.evaluated: Counter[cst.Call] = Counter()
        self.inlined_at: Counter[tuple[cst.Call, cst.FunctionDef]] = Counter()
        self.shapes = ShapeFlow(imports, module, scan.by_callee)
        self.dirty = {node: frozenset(names) for node, names in scan.dirty.items()}
        self.freezes = scan.freezes
        self.clearing = {  # names of the file's functions whose body clears gradients
            node.name.value for node in self.functions if scan.by_body[node].clears
        }
        self.building_blocks = {name for name, bodies in scan.builders.items() if bodies - {None}}
        self.modules = {info for info in index.by_node.values() if self._is_module(info)}
        self.submodules = {  # module classes the file builds only inside its modules' methods
            name
            for name, bodies in scan.builders.items()
            if all(self.functions.get(body) in self.modules for body in bodies)
        }
        self.differentiated = self._differentiated()
        self.call_modes: dict[cst.FunctionDef, list[bool | None]] = {}
        self.class_objects: dict[ClassInfo, Obj] = {}
        # the attributes the file's subclasses of a class set (_set_by_subclasses), by class
        self.set_below: dict[ClassInfo, frozenset[str]] = {}
        # whether a method sets requires_grad (_switches_requires_grad), once asked; none
        # does where no code names the attribute
        self.switching: dict[cst.FunctionDef, bool] = {}
        self.names_requires_grad = bool(
            scan.attributes["requires_grad"] or scan.attributes["requires_grad_"]
        )
        self.ran: set[cst.FunctionDef] = set()  # functions analysed on their own so far
        # instances built by a call, by their `_built_key`, and the depth of calls under
        # way when they were built (nested constructions deeper than MAX_DEPTH are cut)
        self.constructions: dict[tuple, tuple[Obj, int]] = {}
        self.module_body_done = False
        # arguments of the function run on its own taken as given (`x is None` decided
        # False: the caller passed a tensor); the recorder names them with its facts
        self.assumed_given: set[str] = set()
        # tensors (by storage) whose requires_grad a statement set: the grad they have since
        self.switched: dict[int, Grad] = {}
        self.stack: list[cst.FunctionDef] = []
        # functions' own runs kept for callers that would run them alike (summaries.py);
        # `heap` counts changes of instances (a summary holds while it is unchanged),
        # `inlined` lists the functions run inline so far
        self.summaries: dict[tuple[cst.FunctionDef, tuple], summaries.Summary] = {}
        self.heap = 0
        self.rebinding = 0  # module statements begun (and walruses there): globals may change
        self.inlined: list[cst.FunctionDef] = []
        self.refused: list[cst.FunctionDef] = []  # calls not run inline: already under way
        # module-level names functions read: the live module scope while the module body
        # runs; afterwards only names the module binds once
        self.globals: dict[str, Value | None] = {}
        self.undecided = 0  # branches entered whose condition is unknown (both run)
        self.values: dict[cst.CSTNode, tuple[Value | None, int]] = {}  # last value, stamp
        self.evals = 0
        self._texts: dict[cst.CSTNode, str] = {}
        self.runs = 0  # bodies analysed so far (TrainingEvent.run)
        self.run_number = 0
        self.path: tuple[Place, ...] = ()  # where the statement interpreted sits in its run

    def _text(self, node: cst.CSTNode) -> str:
        """`node`'s source text, generated once per node (bodies run once per call site)."""
        if type(node) is cst.Name and not node.lpar:
            return node.value
        text = self._texts.get(node)
        if text is None:
            text = self._texts[node] = self.module.code_for_node(node)
        return text

    def _enter_run(self) -> tuple[int, tuple[Place, ...]]:
        """A new body analysed on its own, for the training events; returns the run to
        resume after it."""
        outer = (self.run_number, self.path)
        self.runs += 1
        self.run_number, self.path = self.runs, ()
        return outer

    def _trace(self, kind: str, node: cst.CSTNode, frame: Frame, time=None, **facts) -> None:
        time = graphs.tick() if time is None else time
        event = TrainingEvent(kind, node, frame.line, self.run_number, self.path, time, **facts)
        self.facts.training.append(event)

    def run(self, foreign: frozenset[cst.FunctionDef] = frozenset()) -> None:
        """The module body, then each function no call reached on its own, except the
        `foreign` ones (another file's, run only where this file calls them)."""
        self._enter_run()
        body = Body(None, None, None in self.differentiated, None)
        frame = Frame(body, None, 0)
        state = State({}, grad=True)
        after = self._block(self.module.body, state, frame)
        self._finish(frame)
        self.module_body_done = True
        once = _bound_once(self.module)
        final = (after or state).env
        self.globals = {name: value for name, value in final.items() if name in once}
        covered = self._run_by_the_module_body()
        left = [n for n in self.functions if n not in self.ran | foreign | covered]
        callers_known = {node: calls for node in left if (calls := self._callers_known(node))}
        for node in left:
            if node not in callers_known and node not in self.ran:
                self._standalone(node, self.functions[node])
        # a function whose every call the file shows runs in its callers' contexts; on its
        # own (every argument unknown) only when some call did not run it inline
        pending = list(callers_known)
        while pending:
            pending = [
                node
                for node in pending
                if node not in self.ran and not self._inlined_at_every_call(node, callers_known)
            ]
            if pending:
                self._standalone(pending[0], self.functions[pending[0]])
        self._drop_edits_of_functions_called_without_grad()

    def _callers_known(self, node: cst.FunctionDef) -> list[cst.Call] | None:
        """The calls of `node` when they are all in this file: a private method
        (`self._scale(x)`) or function (`_helper(x)`), a function nested in another, or
        any function or method of a script (`if __name__ == "__main__":`); named only
        where it is called (never passed as a callback or stored), not decorated but to
        set the grad mode. None otherwise."""
        name = node.name.value
        if name.startswith("__") or self._role(node, self.functions[node]) is not None:
            return None
        if any(self.scope.grad_effect(d.decorator) is None for d in node.decorators):
            return None
        owner = self.functions[node]
        nested = owner is None and node not in self.module_level
        if not (name.startswith("_") or nested or self.script):
            return None
        return self.scan.only_called(name, method=owner is not None) or None

    def _inlined_at_every_call(self, node: cst.FunctionDef, callers_known) -> bool:
        """Whether every evaluation of every call of `node` ran it inline (its facts are
        then those of its callers' contexts), with no call cut for the step budget."""
        if self.steps > MAX_STEPS:
            return False
        return all(
            self.evaluated[call] and self.evaluated[call] == self.inlined_at[call, node]
            for call in callers_known[node]
        )

    def _run_by_the_module_body(self) -> set[cst.FunctionDef]:
        """Module-level functions the module body ran inline exactly once, with no call
        refused: a script's `main(args)`, whose run with the script's own values is the one
        that happens (a second run on its own, with every argument unknown, would follow
        the same calls again, into other files' code too, and know less)."""
        if self.refused:
            return set()
        counts = Counter(self.inlined)
        return {
            node
            for node, owner in self.functions.items()
            if owner is None and counts[node] == 1 and self._role(node, owner) is None
        }

    def _is_module(self, info: ClassInfo) -> bool:
        """An nn.Module, or a class of unresolved bases (transformers' PreTrainedModel,
        GradientCheckpointingLayer) defining forward() and no __call__: calling an instance
        runs forward() as nn.Module's does."""
        if info.is_module:
            return True
        return (
            info.kind is ClassKind.UNKNOWN
            and self._method(info, "forward") is not None
            and self._method(info, "__call__") is None
        )

    def _role(self, node: cst.FunctionDef, owner: ClassInfo | None) -> str | None:
        if owner is None or node.name.value != "forward":
            return _backward_role(node, owner)
        if owner in self.modules:
            return "module_forward"
        if owner.kind is ClassKind.AUTOGRAD_FUNCTION:
            return "function_forward"
        return None

    def _standalone(self, node: cst.FunctionDef, owner: ClassInfo | None) -> None:
        """Runs `node` on its own; for the fact oracle, once per grad mode its calls at run
        time started in, with what they passed (`recorder.starts`)."""
        modes = self.recorder.starts(node) if self.recorder is not None else (None,)
        shared, before = None, {}
        method = owner is not None and _takes_self(node) and node.name.value != "__init__"
        if len(modes) > 1 and method:  # each run starts from the same instance
            init = owner.methods.get("__init__")
            if owner not in self.class_objects and init is not None and init not in self.ran:
                self._standalone(init, owner)
            shared = self.instance(owner)
            before = dict(shared.attrs)
        for number, mode in enumerate(modes):
            if number and shared is not None:
                shared.attrs.clear()
                shared.attrs.update(before)
            self.given_start = mode
            self._run_on_its_own(node, owner, mode)
        self.given_start = None

    def _run_on_its_own(self, node: cst.FunctionDef, owner: ClassInfo | None, given) -> None:
        role = self._role(node, owner)
        grad = self._declared_grad(node, owner) if given is None else given
        dirty = self.dirty.get(node, frozenset())
        forward = node if role == "module_forward" else None
        body = Body(node, role, node in self.differentiated, node, dirty, forward)
        frame = Frame(body, owner, 0)
        fresh = node.name.value == "__init__"
        takes_self = owner is not None and _takes_self(node)
        opened = None  # the instance this run of `__init__` builds for the class's methods
        if takes_self and not fresh and owner not in self.class_objects:
            init = owner.methods.get("__init__")
            if init is not None and init not in self.ran:
                self._standalone(init, owner)  # builds the shared instance
        self.ran.add(node)
        self._enter_run()
        env: dict[str, Value | None] = {}
        params = _positional(node, owner, role)
        for param in params:
            env[param.name.value] = self._argument_fact(param, node, owner, role)
            annotated = self.shapes.annotated(param)
            if annotated is not None:
                fact = env[param.name.value] or Tensor(new_storage(), is_tensor=True)
                env[param.name.value] = replace(fact, shape=annotated)
        if given is not None:  # the fact oracle: what the calls at run time passed
            for param in [*params, *node.params.kwonly_params]:
                passed = self.recorder.argument(node, param.name.value, given)
                if passed is not None:
                    env[param.name.value] = passed
                elif self.recorder.may_be_none(node, param.name.value, given):
                    env[param.name.value] = None  # `x is None` undecided, not taken as given
        self._bind_defaults(node, env, params)
        if takes_self and fresh and owner not in self.class_objects:
            # the class's own `__init__` on its own builds the instance its other methods
            # run on, with the sizes every constructor call of the file agrees on
            env.update(self.shapes.constructor_arguments(owner.name, node))
            this = self.class_objects[owner] = Obj(owner.name, owner)
            env[node.params.params[0].name.value] = this
            opened = this
        elif takes_self:
            this = Obj(owner.name, owner) if fresh else self.instance(owner)
            env[node.params.params[0].name.value] = this
        arguments = _fingerprints(env) if role is None and not fresh else None
        before = summaries.lengths(self.facts), self.steps, len(self.inlined), len(self.refused)
        start = State(env, grad=grad)
        self.assumed_given = set()
        self.stack.append(node)
        end = self._block(node.body.body, start, frame)
        self.stack.pop()
        if takes_self and fresh and opened is not None:
            self._open_to_subclasses(owner, opened)
        self._finish(frame)
        if arguments is not None:
            exits = [*frame.exits, end] if end is not None else frame.exits
            self._summarise(node, arguments, (start, grad, exits), frame, before)

    def _summarise(self, node: cst.FunctionDef, arguments, run, frame: Frame, before) -> None:
        """Keep what a run of `node` gave (on its own, or inline where that is the same run),
        for callers that would run it alike inline (summaries.py), unless its events need
        their caller's order or the run was cut."""
        start, grad, exits = run
        lengths, steps, inlined, refused = before
        ordered = summaries.appended(self.facts, lengths, summaries.ORDERED)
        training = summaries.traced(self.facts, lengths, self.run_number)
        if any(ordered.values()) or training is None or self.steps > MAX_STEPS:
            return
        if self.second_passes and frame.depth > 0:
            return  # its loops ran once (`_loop`): not the run a caller outside one has
        if any(e.graphs != _NO_GRAPHS for e in exits):
            return
        kept = self.summaries.get((node, arguments))
        if kept is not None and kept.heap == self.heap and kept.depth < frame.depth:
            return  # the one kept went deeper
        modes = {e.grad for e in exits}
        sets_grad = frame.sets_grad and bool(exits)
        self.summaries[node, arguments] = summaries.Summary(
            node,
            grad,
            self.heap,
            self.rebinding,
            frame.depth,
            frame.body.standalone,
            frozenset(self.refused[refused:]),
            self.steps - steps,
            frozenset(self.inlined[inlined:]),
            _returned(frame.returns),
            saved_after(start, exits),
            ((modes.pop() if len(modes) == 1 else None),) if sets_grad else None,
            frozenset(frame.read_parameters),
            frozenset(frame.called_modules),
            tuple(frame.data_writes),
            summaries.appended(self.facts, lengths, summaries.PLACED),
            training,
            len(self.path) + 1 if frame.depth else 0,  # an inline run's own `Place`
            _fresh_result(frame.returns, exits),
        )
        new_generation()

    def _argument_fact(
        self, param: cst.Param, node: cst.FunctionDef, owner: ClassInfo | None, role: str | None
    ):
        if role is None:
            return None
        if role == "function_backward":
            return Tensor(new_storage(), is_tensor=True, described="incoming gradient")
        return Tensor(
            new_storage(),
            is_tensor=_annotated_tensor(param, self.imports),
            described="forward() argument",
            forward_input=param.name.value,
            input_of=node,
            shape=(
                self.shapes.argument(node, param.name.value, owner.name in self.submodules)
                if role == "module_forward" and owner is not None
                else None
            ),
        )

    def _bind_defaults(self, node, env, params) -> None:
        """Keyword parameters defaulting to False are opt-in flags the caller decides."""
        for param in [*params, *node.params.kwonly_params]:
            if param.name.value in env and env[param.name.value] is not None:
                continue
            if param.default is not None and literal_bool(param.default) is False:
                env[param.name.value] = OPT_IN

    def _declared_grad(self, node: cst.FunctionDef, owner: ClassInfo | None) -> bool | None:
        """The grad mode a function starts in: on, or what its decorator sets. A method of
        a `torch.optim.Optimizer` subclass runs in its caller's mode (torch's own optimizers
        turn grad off in a decorator of `step`; the base class does not): unknown."""
        grad: bool | None = True if owner is None or owner.kind is not ClassKind.OPTIMIZER else None
        for decorator in node.decorators:
            effect = self.scope.grad_effect(decorator.decorator)
            if effect is not None:
                grad = effect
        return grad

    def _drop_edits_of_functions_called_without_grad(self) -> None:
        off = {
            node
            for node, modes in self.call_modes.items()
            if modes and all(mode is False for mode in modes)
        }
        off |= self._called_without_grad_elsewhere(off)
        self.facts.edits = [e for e in self.facts.edits if e.body.standalone not in off]
        self.facts.called = set(self.call_modes)
        self.facts.called |= {  # built by other code of the file: its callers decide
            node
            for node, owner in self.functions.items()
            if owner is not None and owner.name in self.building_blocks
        }
        if any(info.kind is ClassKind.UNKNOWN for info in self.index.by_node.values()):
            # the file extends classes imported from its project (`class
            # PhimoeDecoderLayer(MixtralDecoderLayer)`): its modules may be built and called
            # by code in other files, which this file cannot show
            self.facts.called_elsewhere = {node for node, owner in self.functions.items() if owner}

    def _called_without_grad_elsewhere(self, off: set) -> set[cst.FunctionDef]:
        """Functions run on their own with edits, no call of the file running them with
        grad, whose every use in the project's other files is a call without grad
        (callers.py: `load_from` called inside another file's `with torch.no_grad():`)."""
        if self.called_without_grad is None:
            return set()
        found = set()
        for node in {edit.body.standalone for edit in self.facts.edits} - off - {None}:
            modes = self.call_modes.get(node, ())
            if node not in self.functions or any(mode is not False for mode in modes):
                continue
            owner = self.functions[node]
            if self.called_without_grad(owner.name if owner else None, node.name.value):
                found.add(node)
        return found

    def _differentiated(self) -> set[cst.FunctionDef | None]:
        """Bodies whose results autograd differentiates: module forwards, bodies calling
        backward(), and the functions of this file they call."""
        roots = {body for body, calls in self.calls.items() if calls.backward}
        roots |= {
            node
            for node, owner in self.functions.items()
            if owner in self.modules and node.name.value == "forward"
        }
        pending, seen = list(roots), set(roots)
        while pending:
            body = pending.pop()
            owner = self.functions.get(body) if body is not None else None
            for name in self.calls[body].names if body in self.calls else ():
                callee = self._callee_by_name(name, owner)
                if callee is not None and callee not in seen:
                    seen.add(callee)
                    pending.append(callee)
        return seen

    def _callee_by_name(self, name: str, owner: ClassInfo | None) -> cst.FunctionDef | None:
        if "." not in name:
            return self.top_level.get(name)
        head, _, method = name.partition(".")
        if head == "self" and owner is not None and "." not in method:
            return owner.methods.get(method)
        return None

    def instance(self, info: ClassInfo, call: cst.Call | None = None, args=None) -> Obj:
        """An instance of a class of the file, its attributes from running `__init__`."""
        if call is None and info in self.class_objects:
            return self.class_objects[info]
        key = self._built_key(info, call, args)
        depth = len(self.stack)
        built, built_at = self.constructions.get(key, (None, 0)) if key else (None, 0)
        if built is not None and built_at <= depth:
            return built
        obj = Obj(info.name, info, call, arguments=args)
        if key is not None and built is None:
            self.constructions[key] = (obj, depth)
        if call is None:
            self.class_objects[info] = obj
        elif info.kind is not ClassKind.UNKNOWN:  # the probe cannot build unresolved bases
            self.facts.built.append(obj)
        init = self._method(info, "__init__")
        if init is not None and init not in self.stack and len(self.stack) < MAX_DEPTH + 2:
            if call is None:  # an inherited `__init__`, for methods analysed on their own:
                # the sizes every call agrees on (a class's own runs in `_standalone`)
                args = ([], self.shapes.constructor_arguments(info.name, init))
            self._run_init(init, obj, args)
        if call is None:
            self._open_to_subclasses(info, obj)
        return obj

    def _open_to_subclasses(self, info: ClassInfo, obj: Obj) -> None:
        """`obj` stands for `self` in the methods of `info` run on their own, where `self`
        may be an instance of a subclass of the file: an attribute a subclass sets
        (timm's LSTM2d sets `self.rnn_v = nn.LSTM(...)` over RNN2dBase's RNNIdentity)
        is one of the class's value and an unknown one."""
        if info not in self.set_below:
            self.set_below[info] = _set_by_subclasses(info, self.index)
        for name in self.set_below[info]:
            if name in obj.attrs and not isinstance(obj.attrs[name], OneOf):
                obj.attrs[name] = OneOf((obj.attrs[name], None))
        if self.names_requires_grad and _switches_requires_grad(info, self.index, self.switching):
            freezing.may_freeze(obj)  # a method may have frozen the instance in use

    def _built_key(self, info: ClassInfo, call: cst.Call | None, args) -> tuple | None:
        """What an instance built by `call` is made of: the arguments' facts. Equal keys
        run `__init__` alike, so a second such construction (a loop's next pass, every
        layer a block builds the same way, each entry point building the same blocks) is
        the first one's instance, when that one was built at most as deep in calls (its
        nested constructions were cut no sooner): a join of two instances of one class is
        the first already. None: not shared (module code, whose globals still change, or
        arguments that hold tensors)."""
        if call is None or args is None or not self.module_body_done:
            return None
        positional, keywords = args
        facts = tuple(_fingerprint(v) for v in positional)
        named = tuple(sorted((k, _fingerprint(v)) for k, v in keywords.items()))
        if _UNSHARED in facts or any(f is _UNSHARED for _, f in named):
            return None
        return (info, call, facts, named)

    def _method(self, info: ClassInfo, name: str) -> cst.FunctionDef | None:
        seen = set()
        while info is not None and info not in seen:
            seen.add(info)
            if name in info.methods:
                return info.methods[name]
            info = next(
                (self.index.by_name[b] for b in info.base_names if b in self.index.by_name), None
            )
        return None

    def _owner_of(self, node: cst.FunctionDef) -> ClassInfo | None:
        return self.functions.get(node)

    def _run_init(self, init: cst.FunctionDef, obj: Obj, args) -> None:
        owner = self._owner_of(init)
        body = Body(init, None, False, None)
        frame = Frame(body, owner, MAX_DEPTH - 1)  # helpers building layers, one level
        env = self._bind_call(init, owner, obj, args)
        outer = self._enter_run()
        self.stack.append(init)
        self._block(init.body.body, State(env, grad=True), frame)
        self.stack.pop()
        self.run_number, self.path = outer

    def _alike_own_run(self, node, role, env, state: State, frame: Frame) -> tuple | None:
        """The fingerprints of `env` when running `node` inline here is the run it has on
        its own, but for the arguments (summaries.py); else None."""
        if role is not None or state.saved or state.pending or state.guarded or state.masks:
            return None
        if state.graphs != _NO_GRAPHS or frame.body.forward is not None:
            return None
        if frame.body.differentiated and node not in self.differentiated:
            return None
        return _fingerprints(env)

    def _summary_for(self, node, arguments, grad, frame: Frame) -> summaries.Summary | None:
        """`node`'s summary when it holds for a run inline here with `arguments`."""
        summary = self.summaries.get((node, arguments)) if arguments is not None else None
        if summary is None or summary.heap != self.heap or summary.rebinding != self.rebinding:
            return None
        if grad != summary.grad or summary.depth > frame.depth + 1:
            return None
        if self.steps + summary.steps > MAX_STEPS or not summary.reached.isdisjoint(self.stack):
            return None
        if not summary.blocked.issubset([*self.stack, node]):
            return None
        return summary

    def _reuse(self, summary: summaries.Summary, call, receiver, state: State, frame: Frame):
        """What inlining the function `call` calls gives its caller, from its summary."""
        self.steps += summary.steps
        self.inlined += [summary.node, *summary.reached]
        self.refused += summary.blocked
        summaries.replay(self.facts, summary, frame.body.standalone)
        place = (*self.path, Place("call", call))
        summaries.retrace(self.facts, summary, self.run_number, place, graphs.tick)
        reads = summary.read_parameters, summary.called_modules
        _heard(frame, receiver, *reads, summary.data_writes)
        state.saved.update(summary.saved)
        for storage in summary.fresh_result:
            state.uses.saved_output(storage)
        if summary.grad_after is not None:
            state.grad = summary.grad_after[0]
            frame.sets_grad = True  # so does its caller, for the caller's callers
        return summary.result

    def _watch_caller_reads(self, args, state: State, frame: Frame, edits, returned) -> None:
        """Edits the callee made into tensors the caller passed, confirmed when the caller
        reads them again. `returned`: what the callee returns, when it was called for its
        result (None: called for its side effects)."""
        positional, keywords = args
        for value in [*positional, *keywords.values()]:
            if not isinstance(value, Tensor):
                continue
            mine = [e for e in edits if e.value.storage == value.storage]
            if not mine:
                continue
            names = {
                name
                for name, bound in state.env.items()
                if isinstance(bound, Tensor) and bound.storage == value.storage
            }
            aside = returned is not None and value.storage not in returned
            state.pending.append(Pending(value.storage, names, mine, frame.body.forward, aside))

    def _finish(self, frame: Frame) -> None:
        for write in frame.data_writes:
            written = write.storages
            if any(
                bound < write.order < at
                and (reached is None or written is None or reached & written)
                for at, bound, reached in frame.backward_calls
            ):  # a backward whose graph (when known) reaches the parameters written
                where = "between a forward pass and its backward()"
                self.facts.data_writes.append(DataWrite(write.node, write.name, where))


def _module_level(module: cst.Module) -> frozenset[cst.FunctionDef]:
    """The functions the module's own statements define (not methods, not nested)."""
    found, pending = [], list(module.body)
    while pending:
        statement = pending.pop()
        if isinstance(statement, cst.FunctionDef):
            found.append(statement)
        elif isinstance(statement, cst.If | cst.Try | cst.With | cst.For | cst.While):
            pending.extend(itertools.chain.from_iterable(nested_blocks(statement)))
    return frozenset(found)


def _is_main_guard(statement: cst.CSTNode) -> bool:
    """`if __name__ == "__main__":`"""
    if not isinstance(statement, cst.If) or not isinstance(statement.test, cst.Comparison):
        return False
    test = statement.test
    sides = [test.left, *(c.comparator for c in test.comparisons)]
    return any(isinstance(s, cst.Name) and s.value == "__name__" for s in sides) and any(
        isinstance(s, cst.SimpleString) and s.evaluated_value == "__main__" for s in sides
    )


def _set_by_subclasses(info: ClassInfo, index) -> frozenset[str]:
    """The attributes `self.<name> = ...` the methods of the file's subclasses of `info`
    (direct or not) set."""
    below, found = {info.name}, set()
    for _ in range(len(index.by_node)):
        grown = {
            other.name
            for other in index.by_node.values()
            if any(base.rpartition(".")[2] in below for base in other.base_names)
        } | below
        if grown == below:
            break
        below = grown
    for other in index.by_node.values():
        if other.name == info.name or other.name not in below:
            continue
        for method in other.methods.values():
            params = method.params.params
            this = params[0].name.value if params else None
            for node in iter_nodes(method.body):
                targets = []
                if isinstance(node, cst.Assign):
                    targets = [t.target for t in node.targets]
                elif isinstance(node, cst.AnnAssign | cst.AugAssign):
                    targets = [node.target]
                for target in targets:
                    if (
                        isinstance(target, cst.Attribute)
                        and isinstance(target.value, cst.Name)
                        and target.value.value == this
                    ):
                        found.add(target.attr.value)
    return frozenset(found)


def _switches_requires_grad(info: ClassInfo, index, known: dict[cst.FunctionDef, bool]) -> bool:
    """A method of the class or of a base of the file, besides `__init__`, sets
    `requires_grad` on the instance's own parameters (byol-a's `set_trainable` of a mixin:
    `for p in self.parameters(): p.requires_grad = trainable`): the instance its methods
    run on when analysed on their own may have been frozen by it, so its parameters are
    not proven to require grad. A flag set on a tensor a forward computes is not that.
    `known`: each method's answer so far (subclasses share their bases' methods)."""
    for current in index.lineage(info):
        for name, method in current.methods.items():
            if name == "__init__":
                continue
            if method not in known:
                nodes = list(iter_nodes(method))
                enumerates = any(_enumerates_own_parameters(node) for node in nodes)
                known[method] = any(_sets_own_requires_grad(node, enumerates) for node in nodes)
            if known[method]:
                return True
    return False


_OWN_PARAMETERS = frozenset({"parameters", "named_parameters", "modules", "children"})


def _enumerates_own_parameters(node: cst.CSTNode) -> bool:
    """`self.parameters()`, `self.named_parameters()`, `self.modules()`, ..."""
    return (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value in _OWN_PARAMETERS
        and dotted(node.func.value) == "self"
    )


def _sets_own_requires_grad(node: cst.CSTNode, enumerates: bool) -> bool:
    """`requires_grad` set on `self` or what it holds (`self.fc.weight.requires_grad =`,
    `self.requires_grad_(False)`), or on anything in a method enumerating its parameters."""
    if isinstance(node, cst.AssignTarget):
        target = node.target
        if not (isinstance(target, cst.Attribute) and target.attr.value == "requires_grad"):
            return False
        owner = dotted(target.value) or ""
    elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        if node.func.attr.value != "requires_grad_":
            return False
        owner = dotted(node.func.value) or ""
    else:
        return False
    return enumerates or owner == "self" or owner.startswith("self.")
