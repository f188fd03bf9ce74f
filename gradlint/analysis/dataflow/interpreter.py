"""One abstract interpreter per file: statements in order, branches joined, loops run
twice (so what one iteration saves is seen by the next), grad mode as a three-valued
fact, and calls of the file's own functions and modules interpreted with the caller's
values (`model(x)` runs `Net.forward`, `update(model.fc.weight)` runs `update`).

Every scope is analysed: the module body (training scripts), each function and method on
its own (arguments unknown, `forward` arguments of entry modules marked), and again
inside its callers, up to a bounded depth. Rules read the events it records.
"""

from __future__ import annotations

import collections
import functools
import itertools
import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

import libcst as cst

from gradlint.analysis import knowledge
from gradlint.analysis import torch_ops as ops
from gradlint.analysis.context import (
    ClassInfo,
    ClassKind,
    ModuleIndex,
    Scope,
    literal_bool,
    literal_value,
)
from gradlint.analysis.dataflow import (
    cuts,
    dtypes,
    freezing,
    graphs,
    narrowing,
    optimizers,
    summaries,
    views,
)
from gradlint.analysis.dataflow.events import (
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
    Saver,
    TrainingEvent,
)
from gradlint.analysis.dataflow.shapes import REFINED, ShapeFlow, row_shape
from gradlint.analysis.dataflow.uses import (
    FOLLOW,
    METADATA_ATTRIBUTES,
    NO_GRADIENT,
    SavedUses,
    carries_no_gradient,
    values_and_indices,
)
from gradlint.analysis.dataflow.values import (
    ANY_PARAMETER,
    ClassRef,
    Const,
    Function,
    Grad,
    Mapping,
    Number,
    Obj,
    Optimizer,
    Parameters,
    Seq,
    Size,
    Tensor,
    Value,
    becomes_plain_leaf,
    generation,
    join,
    new_generation,
    new_storage,
    replace,
    same_items,
)
from gradlint.analysis.names import ImportTable, dotted, nested_blocks
from gradlint.analysis.walk import iter_nodes, visit

MAX_DEPTH = 5  # calls interpreted inside their caller, below each analysed body
MAX_STEPS = 60_000  # statements interpreted per file, inlined calls included

_AUG_FORMS = {
    "SubtractAssign": "t -= 1.0",
    "MultiplyAssign": "t *= 2.0",
    "DivideAssign": "t /= 2.0",
}
_OPERATOR_FUNCTIONS = {
    "Multiply": "torch.mul",
    "Divide": "torch.div",
    "MatrixMultiply": "torch.matmul",
    "Add": "torch.add",
    "Subtract": "torch.sub",
    "Power": "torch.pow",
}
_OPERATOR_SYMBOLS = {
    "Power": "**",
    "Multiply": "*",
    "Divide": "/",
    "MatrixMultiply": "@",
    "Add": "+",
    "Subtract": "-",
}
_MASK_FUNCTIONS = frozenset({"isnan", "isinf", "isfinite", "isneginf", "isposinf", "bool"})
_MASK_FUNCTIONS_QUALIFIED = frozenset(
    {f"torch.{n}" for n in _MASK_FUNCTIONS} | {"torch.logical_not", "torch.logical_and"}
)
_NO_GRAD_RESULTS = frozenset(
    {"argmax", "argmin", "argsort", "size", "dim", "numel", "item", "tolist", "nonzero"}
)
_TENSOR_ONLY_METHODS = frozenset(
    {"view", "permute", "size", "dim", "unsqueeze", "contiguous", "masked_fill", "type_as"}
)
_SAME_MODULE_METHODS = frozenset(
    {"to", "cuda", "cpu", "train", "eval", "float", "double", "half", "bfloat16", "requires_grad_"}
)
_SAME_TENSOR_METHODS = frozenset({"to", "cuda", "cpu", "type_as"})
_OTHER_FLOAT_DTYPES = frozenset({"float64", "double", "float16", "half", "bfloat16"})
# layers whose output is a fresh contiguous tensor whatever the input's layout (checked in
# torch: a Conv's output follows a channels-last input, a Linear's never does)
_CONTIGUOUS_OUTPUT_LAYERS = frozenset(
    {"torch.nn.Linear", "torch.nn.Bilinear", "torch.nn.Embedding"}
)
_PARAMETER_ITERATORS = frozenset({"parameters", "named_parameters"})
_INTEGER_CASTS = frozenset({"to", "type", "long", "int"})
_CONTAINERS = frozenset({"torch.nn.Sequential", "torch.nn.ModuleList"})
_DATA_CONVERSIONS = frozenset({"torch.from_numpy", "torch.as_tensor", "torch.frombuffer"})
_BUFFER_FACTORIES = frozenset({"zeros", "ones", "empty", "full", "tensor", "eye"})
_DISTRIBUTION_METHODS = frozenset({"log_prob", "entropy", "rsample", "cdf", "icdf"})
_GLOBAL_GRAD_SWITCHES = frozenset(
    {"torch.set_grad_enabled", "torch.autograd.set_grad_enabled", "torch._C._set_grad_enabled"}
)
_MAPPED_ITEMS = 8  # comprehensions over longer literals keep one item for all
_ITERATION_BUILTINS = frozenset(
    {"enumerate", "zip", "list", "tuple", "reversed", "sorted", "iter", "range"}
)
# builtins that only read the containers they are given, or copy their items
_READING_BUILTINS = _ITERATION_BUILTINS | {"len", "print", "isinstance", "set"}
_LIST_GROWTH = frozenset({"append", "extend", "insert"})
# calls registering a module's attribute by name
_REGISTERING = frozenset({"add_module", "register_module", "register_parameter", "__setattr__"})
# module methods `_module_method` models by changing the instance (or its layers)
_CHANGING_METHODS = _REGISTERING | _LIST_GROWTH | {"register_buffer", "requires_grad_"}
_CHANGING_METHODS |= {"add_argument"}  # argparse's


@dataclass
class State:
    """The flow-sensitive part: names, saved storages, grad mode."""

    env: dict[str, Value | None]
    saved: dict[int, Saver] = field(default_factory=dict)
    grad: bool | None = True  # None: decided at run time (`set_grad_enabled(flag)`)
    guarded: bool = False
    masks: frozenset[str] = frozenset()
    pending: list[Pending] = field(default_factory=list)
    graphs: graphs.Graphs = graphs.Graphs()
    uses: SavedUses = field(default_factory=SavedUses)

    def copy(self) -> State:
        return State(
            dict(self.env),
            dict(self.saved),
            self.grad,
            self.guarded,
            self.masks,
            list(self.pending),
            self.graphs,
            self.uses.copy(),
        )


def join_states(states: list[State]) -> State | None:
    live = [s for s in states if s is not None]
    if not live:
        return None
    first, *rest = live
    joined = first.copy()
    for other in rest:
        for name in set(joined.env) | set(other.env):
            joined.env[name] = join(joined.env.get(name), other.env.get(name))
        for storage, saver in other.saved.items():
            joined.saved.setdefault(storage, saver)
        if joined.grad != other.grad:
            joined.grad = None
        joined.guarded = joined.guarded or other.guarded
        joined.masks = joined.masks & other.masks
        joined.pending += [p for p in other.pending if all(p is not q for q in joined.pending)]
        joined.graphs = joined.graphs.join(other.graphs)
        joined.uses.join(other.uses)
    return joined


@dataclass
class Pending:
    """Edits a callee made into a caller's tensor, confirmed if the caller reads one of
    `names` (bound to that tensor before the call) afterwards."""

    storage: int
    names: set[str]
    edits: list[InplaceEdit]
    caller_forward: cst.FunctionDef | None  # the module forward the caller runs in
    aside: bool  # the callee computes a result of its own: the edit is a side effect


@dataclass
class Frame:
    """One body being interpreted: a function, a method, or the module."""

    body: Body
    owner: ClassInfo | None
    depth: int
    returns: list[Value | None] = field(default_factory=list)
    order: int = 0
    bound_at: dict[str, int] = field(default_factory=dict)
    read_parameters: set[str] = field(default_factory=set)
    # modules called whose parameters all count as read: torch layers, and modules whose
    # forward is not interpreted here (an interpreted one reports what it read)
    called_modules: set[str] = field(default_factory=set)
    data_writes: list[tuple[int, cst.CSTNode, str]] = field(default_factory=list)
    backward_calls: list[tuple[int, int]] = field(default_factory=list)
    statement: cst.CSTNode | None = None
    line: cst.CSTNode | None = None  # the statement line being interpreted
    exits: list[State] = field(default_factory=list)  # the states its returns leave
    sets_grad: bool = False  # switches grad mode for its caller too (set_grad_enabled)


class FileFacts:
    """The interpreter's results for one file: events, by kind."""

    def __init__(
        self,
        module: cst.Module,
        imports: ImportTable,
        index: ModuleIndex,
        scope: Scope,
        scan: CallScan | None = None,
    ):
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
        interpreter.run()
        self.shape_conflicts = interpreter.shapes.conflicts  # node -> kind -> ShapeConflict
        self._values = interpreter.values

    def value_of(self, node: cst.CSTNode):
        """The value the interpreter last computed for an expression (None: unknown)."""
        found = self._values.get(node)
        return found[0] if found is not None else None


class Interpreter:
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
        self.steps = 0
        self.second_passes = 0  # loops now in their second pass (a call inside one included)
        self.functions = _functions(module, index)  # FunctionDef -> owner
        self.top_level = {
            node.name.value: node for node, owner in self.functions.items() if owner is None
        }
        self.calls = scan.by_body
        self.shapes = ShapeFlow(imports, module, scan.by_callee)
        self.dirty = {node: frozenset(names) for node, names in scan.dirty.items()}
        self.freezes = scan.freezes
        self.clearing = {  # names of the file's functions whose body clears gradients
            node.name.value for node in self.functions if scan.by_body[node].clears
        }
        self.building_blocks = scan.built_inside
        self.modules = {info for info in index.by_node.values() if self._is_module(info)}
        self.differentiated = self._differentiated()
        self.call_modes: dict[cst.FunctionDef, list[bool | None]] = {}
        self.class_objects: dict[ClassInfo, Obj] = {}
        self.ran: set[cst.FunctionDef] = set()  # functions analysed on their own so far
        # instances built by a call, by their `_built_key`, and the depth of calls under
        # way when they were built (nested constructions deeper than MAX_DEPTH are cut)
        self.constructions: dict[tuple, tuple[Obj, int]] = {}
        self.module_body_done = False
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

    # -- entry --------------------------------------------------------------------------

    def run(self) -> None:
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
        for node, owner in self.functions.items():
            if node not in self.ran:
                self._standalone(node, owner)
        self._drop_edits_of_functions_called_without_grad()

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
        role = self._role(node, owner)
        grad = self._declared_grad(node, owner)
        dirty = self.dirty.get(node, frozenset())
        forward = node if role == "module_forward" else None
        body = Body(node, role, node in self.differentiated, node, dirty, forward)
        frame = Frame(body, owner, 0)
        fresh = node.name.value == "__init__"
        takes_self = owner is not None and _takes_self(node)
        if takes_self and not fresh and owner not in self.class_objects:
            init = owner.methods.get("__init__")
            if init is not None and init not in self.ran:
                self._standalone(init, owner)  # builds the shared instance
        self.ran.add(node)
        self._enter_run()
        env: dict[str, Value | None] = {}
        params = _positional(node, owner, role)
        for param in params:
            env[param.name.value] = self._argument_fact(param, node, role)
            annotated = self.shapes.annotated(param)
            if annotated is not None:
                fact = env[param.name.value] or Tensor(new_storage(), is_tensor=True)
                env[param.name.value] = replace(fact, shape=annotated)
        self._bind_defaults(node, env, params)
        if takes_self and fresh and owner not in self.class_objects:
            # the class's own `__init__` on its own builds the instance its other methods
            # run on, with the sizes every constructor call of the file agrees on
            env.update(self.shapes.constructor_arguments(owner.name, node))
            this = self.class_objects[owner] = Obj(owner.name, owner)
            env[node.params.params[0].name.value] = this
        elif takes_self:
            this = Obj(owner.name, owner) if fresh else self.instance(owner)
            env[node.params.params[0].name.value] = this
        arguments = _fingerprints(env) if role is None and not fresh else None
        before = summaries.lengths(self.facts), self.steps, len(self.inlined), len(self.refused)
        start = State(env, grad=grad)
        self.stack.append(node)
        end = self._block(node.body.body, start, frame)
        self.stack.pop()
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
            dict(start.saved),
            ((modes.pop() if len(modes) == 1 else None),) if sets_grad else None,
            frozenset(frame.read_parameters),
            frozenset(frame.called_modules),
            tuple((at, name) for _, at, name in frame.data_writes),
            summaries.appended(self.facts, lengths, summaries.PLACED),
            training,
            len(self.path) + 1 if frame.depth else 0,  # an inline run's own `Place`
        )
        new_generation()

    def _argument_fact(self, param: cst.Param, node: cst.FunctionDef, role: str | None):
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
            shape=self.shapes.argument() if role == "module_forward" else None,
        )

    def _bind_defaults(self, node, env, params) -> None:
        """Keyword parameters defaulting to False are opt-in flags the caller decides."""
        for param in [*params, *node.params.kwonly_params]:
            if param.name.value in env and env[param.name.value] is not None:
                continue
            if param.default is not None and literal_bool(param.default) is False:
                env[param.name.value] = OPT_IN

    def _declared_grad(self, node: cst.FunctionDef, owner: ClassInfo | None) -> bool | None:
        grad: bool | None = owner is None or owner.kind is not ClassKind.OPTIMIZER
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

    # -- objects ------------------------------------------------------------------------

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
        return obj

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

    def torch_layer(self, qualified: str, call: cst.Call, args) -> Obj:
        facts = knowledge.layer(qualified)
        names = tuple(a for a in facts.parameters if _layer_has(call, a)) if facts else ()
        obj = Obj(qualified, None, call, arguments=args, torch_layer=True, parameters=names)
        if qualified in _CONTAINERS and args is not None:
            positional, _ = args
            items = positional
            if qualified == "torch.nn.ModuleList" and positional and isinstance(positional[0], Seq):
                seq = positional[0]
                items = [seq.item(0)] if seq.any_length else list(seq.items)
                obj.attrs["*"] = _element(seq, self.freezes)  # what an unknown index reads
            for number, item in enumerate(items):
                obj.attrs[str(number)] = item
        wrapped = args[0][0] if args is not None and args[0] else None
        if _is_module_wrapper(qualified) and isinstance(wrapped, Obj):
            obj.attrs["module"] = wrapped  # `nn.DataParallel(m)` registers m as `.module`
        return obj

    # -- statements ---------------------------------------------------------------------

    def _block(self, statements: Iterable[cst.CSTNode], state: State, frame: Frame):
        """Interpret statements in order; returns the state after, or None when every
        path returned or raised."""
        current: State | None = state
        for statement in statements:
            if current is None:
                return None
            self.steps += 1
            frame.order += 1
            current = self._statement(statement, current, frame)
        return current

    def _block_at(self, place: Place, statements, state: State, frame: Frame) -> State | None:
        """`_block` with the training events placed under `place`."""
        outer = self.path
        self.path = (*outer, place)
        try:
            return self._block(statements, state, frame)
        finally:
            self.path = outer

    def _statement(self, statement: cst.CSTNode, state: State, frame: Frame) -> State | None:
        frame.statement = statement
        frame.line = statement if isinstance(statement, cst.SimpleStatementLine) else None
        if frame.body.node is None:
            self.globals = state.env
            self.rebinding += 1  # the module's statements may rebind what functions read
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                frame.statement = small
                if self._small(small, state, frame) is None:
                    return None
            return state
        if isinstance(statement, cst.BaseSmallStatement):  # a one-line block: `if c: f(x)`
            return self._small(statement, state, frame)
        if isinstance(statement, cst.If):
            return self._if(statement, state, frame)
        if isinstance(statement, cst.For):
            iterated = self.eval(statement.iter, state, frame)
            entered = isinstance(iterated, Seq) and not iterated.any_length and bool(iterated.items)
            return self._loop(statement, state, frame, statement.target, statement.iter, entered)
        if isinstance(statement, cst.While):
            self.eval(statement.test, state, frame)
            return self._loop(statement, state, frame, None, None)
        if isinstance(statement, cst.With):
            return self._with(statement, state, frame)
        if isinstance(statement, cst.Try):
            return self._try(statement, state, frame)
        if isinstance(statement, cst.FunctionDef):
            owner = self.functions.get(statement)
            state.env[statement.name.value] = Function(statement, owner)
            return state
        if isinstance(statement, cst.ClassDef):
            info = self.index.by_node.get(statement)
            state.env[statement.name.value] = ClassRef(info) if info is not None else None
            return state
        _forget_names(statement, state)  # match and other statements: what they bind is unknown
        return state

    def _if(self, statement: cst.If, state: State, frame: Frame) -> State | None:
        test = self.eval(statement.test, state, frame)
        truth = _truth(test)
        branches = []
        self.undecided += truth is None
        if truth is not False:
            then = state.copy()
            then.guarded = state.guarded or test is OPT_IN
            then.env.update(self._narrowed(statement.test, state))
            then = self._block_at(Place("if", statement, 0), statement.body.body, then, frame)
            if then is not None:
                then.guarded = state.guarded
            branches.append(then)
        if truth is not True:
            other = state.copy()
            orelse = statement.orelse
            outer = self.path
            self.path = (*outer, Place("if", statement, 1))
            if isinstance(orelse, cst.If):
                other = self._statement(orelse, other, frame)
            elif orelse is not None:
                other = self._block(orelse.body.body, other, frame)
            self.path = outer
            branches.append(other)
        self.undecided -= truth is None
        return self._merge_into(state, branches)

    def _narrowed(self, test: cst.BaseExpression, state: State) -> dict[str, Value]:
        """Names an `isinstance(m, nn.Conv2d)` test narrows, `m` met in `model.modules()`."""
        found: dict[str, Value] = {}
        for name, classes in narrowing.isinstance_tests(test):
            value = state.env.get(name)
            kinds = narrowing.layer_kinds(classes, self.imports.resolve)
            if isinstance(value, Modules) and kinds:
                found[name] = narrowing.narrowed(value.owner, kinds, self.freezes)
        return found

    def _merge_into(self, state: State, branches: list[State | None]) -> State | None:
        joined = join_states(branches)
        if joined is None:
            return None
        state.env, state.saved, state.grad = joined.env, joined.saved, joined.grad
        state.masks, state.pending, state.uses = joined.masks, joined.pending, joined.uses
        state.graphs = joined.graphs
        return state

    def _loop(self, statement, state, frame: Frame, target, source, entered=False) -> State | None:
        """The body twice: what one iteration saves or binds is seen by the next; the
        states after zero (unless the loop is `entered`: over a sequence of known items),
        one and two iterations are joined. A loop of a called function reached during
        another loop's second pass runs once: its own second pass already ran in the first
        one, and passes would multiply across the loops of nested calls (a block's loop
        over layers whose forward loops over convs: 2**k runs of the innermost body)."""
        if isinstance(statement, cst.For):
            self._freezing_loop(statement, state, frame)
        current: State | None = state.copy()
        exits: list[State | None] = [] if entered else [state.copy()]
        passes = 1 if self.second_passes and frame.depth > 0 else 2
        for iteration in range(passes):
            if current is None:
                break
            if target is not None:
                self._bind_loop_target(target, source, current, frame, iteration)
            place = Place("loop", statement, iteration)
            self.second_passes += iteration
            try:
                current = self._block_at(place, statement.body.body, current, frame)
            finally:
                self.second_passes -= iteration
            exits.append(current.copy() if current is not None else None)
        if statement.orelse is not None and current is not None:
            exits[-1] = self._block(statement.orelse.body.body, current.copy(), frame)
        return self._merge_into(state, exits)

    def _freezing_loop(self, loop: cst.For, state: State, frame: Frame) -> None:
        """`for p in m.parameters(): p.requires_grad = False` freezes all of `m`."""
        source = self._peek(loop.iter, state, frame)
        if not isinstance(source, Parameters) or source.owner is None:
            return
        flag = freezing.loop_flag(loop, lambda expr: _truth(self._peek(expr, state, frame)))
        if flag is not None:
            self._changed(None)
        if flag is False and not self.undecided:
            freezing.freeze(source.owner)
        elif flag is not None:
            source.owner.frozen = True
            freezing.thaw(source.owner, deep=True)

    def _with(self, statement: cst.With, state: State, frame: Frame) -> State | None:
        outer = state.grad
        for item in statement.items:
            effect = self._grad_effect(item.item)
            if effect is not _NO_EFFECT:
                state.grad = effect
            else:
                self.eval(item.item, state, frame)
            if item.asname is not None:
                self._bind(item.asname.name, None, state, frame)
        after = self._block(statement.body.body, state, frame)
        if after is not None:
            after.grad = outer
        return after

    def _try(self, statement: cst.Try, state: State, frame: Frame) -> State | None:
        entry = state.copy()
        body = self._block_at(Place("try", statement), statement.body.body, state.copy(), frame)
        exits = []
        if body is not None and statement.orelse is not None:
            body = self._block(statement.orelse.body.body, body, frame)
        exits.append(body)
        for number, handler in enumerate(statement.handlers, start=1):
            start = join_states([entry, body]) or entry.copy()
            place = Place("try", statement, number)
            exits.append(self._block_at(place, handler.body.body, start, frame))
        joined = self._merge_into(state, exits)
        if statement.finalbody is not None:
            base = joined if joined is not None else entry
            return self._block(statement.finalbody.body.body, base, frame) and joined
        return joined

    def _grad_effect(self, expr: cst.BaseExpression):
        """False/True for a no-grad/enable-grad context, None for a mode only known at run
        time (`set_grad_enabled(train)`), _NO_EFFECT for anything else."""
        call = expr if isinstance(expr, cst.Call) else None
        target = call.func if call is not None else expr
        qualified = self.imports.resolve(target)
        runtime_flag = call is not None and call.args and literal_bool(call.args[0].value) is None
        if qualified in ("torch.set_grad_enabled", "torch._C._set_grad_enabled") and runtime_flag:
            return None
        effect = self.scope.grad_effect(expr)
        return _NO_EFFECT if effect is None else effect

    def _small(self, small: cst.CSTNode, state: State, frame: Frame) -> State | None:
        if isinstance(small, cst.Expr):
            if isinstance(small.value, cst.Call):
                effect = self._grad_effect(small.value)
                if effect is not _NO_EFFECT:
                    state.grad = effect
                    qualified = self.imports.resolve(small.value.func)
                    frame.sets_grad = frame.sets_grad or qualified in _GLOBAL_GRAD_SWITCHES
                    return state
            self.eval(small.value, state, frame)
        elif isinstance(small, cst.Assign):
            self._assign(small, state, frame)
        elif isinstance(small, cst.AnnAssign) and small.value is not None:
            value = self.eval(small.value, state, frame)
            self._bind(small.target, value, state, frame, small.value)
        elif isinstance(small, cst.AugAssign):
            self._aug_assign(small, state, frame)
        elif isinstance(small, cst.Return):
            value = self.eval(small.value, state, frame) if small.value is not None else None
            frame.returns.append(value)
            frame.exits.append(state)
            node = frame.body.node
            if node is not None and frame.body.standalone is node:
                self.facts.returns.append(Returned(small, node, value))
            return None
        elif isinstance(small, cst.Raise):
            return None
        elif isinstance(small, cst.Assert):
            self.eval(small.test, state, frame)
            self.eval(small.msg, state, frame)
        elif isinstance(small, cst.Continue | cst.Break):
            return state
        elif isinstance(small, cst.Del | cst.Global | cst.Nonlocal):
            if isinstance(small, cst.Del) and _names_grad(small.target):
                self._trace("clear", small, frame)  # `del p.grad`
            _forget_names(small, state)
        return state

    def _assign(self, node: cst.Assign, state: State, frame: Frame) -> None:
        value = self.eval(node.value, state, frame)
        if any(_names_grad(target.target) for target in node.targets):
            self._trace("clear", node, frame)  # `p.grad = None`
        if not isinstance(value, Seq) and len(node.targets) == 1:
            value = self._unpack_shape(node.targets[0].target, node.value, state) or value
        for target in node.targets:
            target = target.target
            if isinstance(target, cst.Subscript):
                container = self.eval(target.value, state, frame)
                self._eval_index(target, state, frame)
                if isinstance(container, Seq | Mapping):  # `self.heads[key] = layer`
                    items = _items(container)
                    self._grown_attribute(node, target.value, [*items, value], state, frame)
                mask = self._is_mask(target, state)
                form = "t[t > 0] = 0.0" if mask else "t[0] = 0.0"
                edit = _Edit(node, target.value, form, mask=mask, proves_tensor=mask)
                self._edit(edit, state, frame)
                self._written_into(target.value, [value], state, frame)
            elif isinstance(target, cst.Attribute) and target.attr.value == "data":
                self._data_write(node, target.value, state, frame)
                self._data_assigned(node, target.value, value, state, frame)
            elif isinstance(target, cst.Attribute) and target.attr.value == "requires_grad":
                self._set_requires_grad(target, _truth(value), state, frame)
            else:
                self._bind(target, value, state, frame, node.value)

    def _data_assigned(self, node, expr, value, state: State, frame: Frame) -> None:
        target = self._peek(expr, state, frame)
        if isinstance(target, Tensor) and isinstance(value, Tensor):
            written = self._text(expr)
            self.facts.data_assigned.append(DataAssigned(node, written, target, value))

    def _aug_assign(self, node: cst.AugAssign, state: State, frame: Frame) -> None:
        source = self.eval(node.value, state, frame)
        target = node.target
        if isinstance(target, cst.Subscript) and isinstance(
            self._peek(target.value, state, frame), Seq
        ):
            form = _AUG_FORMS.get(type(node.operator).__name__, "t += 1.0")
            element = self.eval(target, state, frame)  # `outs[i] += x` edits the element
            if isinstance(element, Tensor) and element.is_tensor:
                self._edit(_Edit(node, target, form, element), state, frame)
            return
        if isinstance(target, cst.Subscript):
            self.eval(target.value, state, frame)
            self._eval_index(target, state, frame)
            mask = self._is_mask(target, state)
            form = "t[t > 0] += 1.0" if mask else "t[0] += 1.0"
            self._edit(_Edit(node, target.value, form, mask=mask, proves_tensor=mask), state, frame)
            self._written_into(target.value, [source], state, frame)
            return
        form = _AUG_FORMS.get(type(node.operator).__name__, "t += 1.0")
        current = self.eval(target, state, frame)
        if isinstance(current, Seq) and isinstance(node.operator, cst.AddAssign):
            # `xs += ys` extends the list in place with ys's items: `xs + ys`
            if isinstance(source, Seq):
                items = [*current.items, *source.items]
                self._grown_attribute(node, target, items, state, frame)
            name = dotted(target)
            if name is not None:
                state.env[name] = _sequence_arithmetic(cst.Add(), current, source)
            return
        self._edit(_Edit(node, target, form), state, frame)
        self._written_into(target, [source], state, frame)
        if not (isinstance(current, Tensor) and current.is_tensor):
            # a number (or unknown) rebinds: `total += t.item()` stays a number
            self._bind(target, cuts.arithmetic(node.operator, current, source), state, frame)

    # -- binding ------------------------------------------------------------------------

    def _bind(self, target, value, state: State, frame: Frame, source=None) -> None:
        if isinstance(target, cst.Name | cst.Attribute):
            name = dotted(target)
            if name is None:
                return
            if isinstance(target, cst.Attribute):
                self._set_attribute(target, value, state, frame, source)
            state.env[name] = value
            frame.bound_at[name] = frame.order
            for pending in state.pending:
                pending.names.discard(name)
            is_mask = source is not None and self._is_mask_expr(source, state)
            state.masks = state.masks | {name} if is_mask else state.masks - {name}
            return
        if isinstance(target, cst.Tuple | cst.List):
            elements = target.elements
            items = _unpack(value, len(elements))
            for element, item in zip(elements, items, strict=True):
                inner = element.value
                if isinstance(element, cst.StarredElement):
                    item = None
                self._bind(inner, item, state, frame)
        elif isinstance(target, cst.StarredElement):
            self._bind(target.value, None, state, frame)

    def _unpack_shape(self, target, source, state: State):
        """`B, L, H, D = x.shape` with x of unknown rank: x is given that rank."""
        read = self.shapes.shape_read(source)
        name = dotted(read) if read is not None else None
        tensor = state.env.get(name) if name is not None else None
        if not isinstance(target, cst.Tuple) or not isinstance(tensor, Tensor):
            return None
        if any(isinstance(e, cst.StarredElement) for e in target.elements):
            return None
        found = self.shapes.unpacked(tensor, [dotted(e.value) for e in target.elements])
        if found is None:
            return None
        refined, dims = found
        for bound_name, bound in list(state.env.items()):
            if bound == tensor:
                state.env[bound_name] = refined
        return dims

    def _changed(self, obj: Obj | None) -> None:
        """`obj` is about to change (None: instances not known): summaries made since it
        was built no longer hold."""
        if obj is None or obj.born < generation():
            self.heap += 1

    def _set_attribute(self, target: cst.Attribute, value, state: State, frame: Frame, source=None):
        """`obj.attr = value` stores into the instance (a heap cell, flow-insensitive)."""
        owner = self.eval(target.value, state, frame)
        self._module_attribute(target, owner, value, frame, source)
        if isinstance(owner, Obj) and not owner.torch_layer:
            attr = target.attr.value
            if attr not in owner.attrs or not _alike(owner.attrs[attr], value):
                self._changed(owner)
            owner.attrs[attr] = value
        if isinstance(owner, Modules) and target.attr.value == "inplace" and _truth(value):
            self._changed(None)
            _force_inplace(owner.owner, frame.statement)

    def _module_attribute(self, target, owner, value, frame: Frame, source=None, grown=None):
        """A ModuleAttributeSet event at `target` (`grown`: the node growing the attribute's
        container in place)."""
        if isinstance(owner, Modules) or (isinstance(owner, Obj) and owner.is_module):
            module = owner if isinstance(owner, Obj) else None
            written = self._text(target.value)
            node = grown if grown is not None else target
            event = ModuleAttributeSet(
                node,
                written,
                module,
                target.attr.value,
                value,
                frame.body,
                source,
                grown is not None,
            )
            self.facts.module_attributes.append(event)

    def _grown_attribute(self, node, target, items: list, state: State, frame: Frame) -> None:
        """`module.attr.append(v)` / `extend` / `+=` / `module.attr[k] = v`: the event of
        the attribute's container, holding its former `items` and the added ones."""
        if isinstance(target, cst.Attribute):
            owner = self._peek(target.value, state, frame)
            self._module_attribute(target, owner, Seq(tuple(items)), frame, grown=node)

    def _bind_loop_target(self, target, source, state: State, frame: Frame, iteration) -> None:
        """The loop variable of round `iteration`: over a literal of two items, each round
        takes its own (`for t_k in (6, 5)`); otherwise what every item is."""
        sources = _zip_arguments(source)
        elements = target.elements if isinstance(target, cst.Tuple) else None
        if sources is not None and elements is not None and len(elements) == len(sources):
            for element, expr in zip(elements, sources, strict=True):
                value = self.eval(expr, state, frame)
                self._bind(element.value, _element(value, self.freezes), state, frame)
            return
        value = self.eval(source, state, frame)
        if isinstance(value, Seq) and not value.any_length and len(value.items) == 2:
            self._bind(target, value.items[iteration], state, frame)
            return
        self._bind(target, _element(value, self.freezes), state, frame)

    def _set_requires_grad(self, target, flag: bool | None, state: State, frame: Frame) -> None:
        expr = target.value
        value = self.eval(expr, state, frame)
        name = dotted(expr)
        self._module_attribute(target, value, Const(flag) if flag is not None else None, frame)
        if isinstance(value, Tensor):
            change = RequiresGradChange(target, self._text(expr), value, flag, True)
            self.facts.requires_grad_changes.append(change)
        if isinstance(value, Tensor) and name is not None:
            if flag is True and value.grad in (Grad.OFF, Grad.LEAF):
                grad = Grad.LEAF
            else:
                grad = Grad.UNKNOWN
            plain = becomes_plain_leaf(value, flag)
            state.env[name] = replace(
                value, grad=grad, buffer=False, described="leaf tensor", plain_leaf=plain
            )
        for owner in self._owners(expr, state, frame):
            self._changed(None)
            if flag is not True:
                owner.frozen = True
            if flag is not False:
                freezing.thaw(owner, deep=False)

    def _owners(self, expr, state: State, frame: Frame) -> list[Obj]:
        """The module instances `expr` reads a parameter of (`model.fc.weight` -> fc)."""
        found = []
        while isinstance(expr, cst.Attribute | cst.Subscript):
            expr = expr.value
            value = self.eval(expr, state, frame)
            if isinstance(value, Obj):
                found.append(value)
            elif isinstance(value, Parameters | Modules) and value.owner is not None:
                found.append(value.owner)
        return found

    # -- expressions --------------------------------------------------------------------

    def eval(self, expr: cst.BaseExpression | None, state: State, frame: Frame):
        """What `expr` is proven to hold; records the events inside it. Shapes refine the
        value from the values its parts had in this same evaluation (shapes.py)."""
        if expr is None:
            return None
        self.evals += 1
        start = self.evals
        kind = type(expr)
        evaluate = _EVALUATORS.get(kind)  # other expression types: unknown
        value = evaluate(self, expr, state, frame) if evaluate is not None else None
        if kind in REFINED:

            def part(node: cst.CSTNode):
                found = self.values.get(node)
                return found[0] if found is not None and found[1] > start else None

            value = self.shapes.refine(expr, value, part)
        if value is not None:
            value = cuts.placed(value, expr)
        self.values[expr] = (value, start)
        return value

    def _unary(self, expr: cst.UnaryOperation, state: State, frame: Frame):
        operand = self.eval(expr.expression, state, frame)
        if isinstance(expr.operator, cst.Not):
            truth = _truth(operand)
            return Const(not truth) if truth is not None else None
        if isinstance(operand, Tensor):
            return operand.derived()
        if isinstance(expr.operator, cst.Minus) and isinstance(operand, Const):
            return _constant_arithmetic(cst.Subtract(), 0, operand.value)
        return None

    def _display(self, expr: cst.Tuple | cst.List | cst.Set, state: State, frame: Frame):
        items = [self.eval(e.value, state, frame) for e in expr.elements]
        if any(isinstance(e, cst.StarredElement) for e in expr.elements):
            return None
        return Seq(tuple(items))

    def _dict(self, expr: cst.Dict, state: State, frame: Frame):
        items = []
        for element in expr.elements:
            if not isinstance(element, cst.DictElement):
                return None
            value = self.eval(element.value, state, frame)
            key = element.key
            if isinstance(key, cst.SimpleString):
                items.append((literal_value(key), value))
        return Mapping(tuple(items))

    def _comparison(self, expr: cst.Comparison, state: State, frame: Frame):
        left = self._quietly(NO_GRADIENT, expr.left, state, frame)
        rights = [
            self._quietly(NO_GRADIENT, target.comparator, state, frame)
            for target in expr.comparisons
        ]
        operator = expr.comparisons[0].operator if len(rights) == 1 else None
        if isinstance(operator, cst.Is | cst.IsNot):
            same = _identical(left, rights[0])
            if same is not None:
                return Const(same == isinstance(operator, cst.Is))
        if isinstance(operator, cst.Equal | cst.NotEqual) and _literal(left, rights[0]):
            return Const((left.value == rights[0].value) == isinstance(operator, cst.Equal))
        if any(isinstance(v, Tensor) and v.is_tensor for v in (left, *rights)):
            cut = cuts.cut("GL203", "a comparison", [left, *rights], integer=True)
            return Tensor(new_storage(), Grad.OFF, is_tensor=True, dtype="bool", cut=cut)
        return None

    def _boolean(self, expr: cst.BooleanOperation, state: State, frame: Frame):
        left = self.eval(expr.left, state, frame)
        right = self.eval(expr.right, state, frame)
        if isinstance(expr.operator, cst.And) and (left is OPT_IN or right is OPT_IN):
            return OPT_IN
        truth = _truth(left)  # `a or b`: b when a is falsy; `a and b`: b when a is truthy
        assumed = self._presence_assumed(expr.left, state) or self._presence_assumed(
            expr.right, state
        )
        if truth is not None and not assumed:
            return right if truth is isinstance(expr.operator, cst.And) else left
        return None

    def _literal_constant(self, expr: cst.Integer | cst.Float | cst.SimpleString, state, frame):
        return Const(literal_value(expr))

    def _ellipsis(self, expr: cst.Ellipsis, state: State, frame: Frame):
        return Const(Ellipsis)

    def _named(self, expr: cst.NamedExpr, state: State, frame: Frame):
        value = self.eval(expr.value, state, frame)
        self._bind(expr.target, value, state, frame)
        self.rebinding += frame.body.node is None
        return value

    def _comprehension(self, expr, state: State, frame: Frame):
        """Over a short sequence of known length, one item per item, each computed from its
        own (`[torch.randn(2, 8) for _ in range(6)]` holds six); otherwise the element
        twice, as a loop's body. Either way each element sees what the one before saved or
        edited (`[model(x) for x in batches]`); saved tensors and graphs flow out. A dict
        comprehension is a Mapping whose every key holds what its value is."""
        inner = state.copy()
        clause = expr.for_in
        source = self.eval(clause.iter, inner, frame)
        mapping = isinstance(expr, cst.DictComp)
        if not mapping and _maps_items(expr, clause, source):
            items = []
            for item in source.items:
                self._bind(clause.target, item, inner, frame)
                items.append(self.eval(expr.elt, inner, frame))
            state.saved.update(inner.saved)
            state.graphs = inner.graphs
            return Seq(tuple(items))
        values = []
        for _ in range(2):
            for clause in _comp_clauses(expr.for_in):
                source = self.eval(clause.iter, inner, frame)
                self._bind(clause.target, _element(source, self.freezes), inner, frame)
            if mapping:
                self.eval(expr.key, inner, frame)
            values.append(self.eval(expr.value if mapping else expr.elt, inner, frame))
        state.saved.update(inner.saved)
        state.graphs = state.graphs.join(inner.graphs)
        if mapping:
            return Mapping((), others=_either_history(*values))
        return Seq((_either_history(*values),), any_length=True)

    def _quietly(self, mode: str | None, expr: cst.BaseExpression, state: State, frame: Frame):
        """`expr` evaluated with its reads counted as `mode` says (uses.py)."""
        outer = state.uses.quiet
        state.uses.quiet = mode
        try:
            return self.eval(expr, state, frame)
        finally:
            state.uses.quiet = outer

    def _if_expression(self, expr: cst.IfExp, state: State, frame: Frame):
        test = self.eval(expr.test, state, frame)
        truth = _truth(test)
        if truth is True:
            return self.eval(expr.body, state, frame)
        if truth is False:
            return self.eval(expr.orelse, state, frame)
        outer = state.guarded
        state.guarded = outer or test is OPT_IN
        body = self.eval(expr.body, state, frame)
        state.guarded = outer
        return join(body, self.eval(expr.orelse, state, frame))

    def _name(self, expr: cst.Name, state: State, frame: Frame):
        name = expr.value
        if name in ("True", "False", "None"):
            return Const({"True": True, "False": False, "None": None}[name])
        if name in state.env:
            value = state.env[name]
            self._note_read(name, value, state, frame)
            return value
        if frame.body.node is not None and name in self.globals:
            return self.globals[name]
        if name in self.top_level:
            return Function(self.top_level[name])
        info = self.index.by_name.get(name)
        if info is not None:
            return ClassRef(info)
        return self.shapes.constant(name)

    def _note_read(self, name: str, value, state: State, frame: Frame) -> None:
        frame.read_parameters.add(name)
        for storage in _storages(value):
            state.uses.read(storage, frame.statement)
        if not state.pending or not isinstance(value, Tensor):
            return
        for pending in state.pending:
            if name in pending.names and value.storage == pending.storage:
                for edit in pending.edits:
                    if name not in edit.caller_reads:
                        edit.caller_reads.append(name)
                    other_module = edit.body.forward is not pending.caller_forward
                    edit.read_by_module_caller |= other_module or pending.aside

    def _attribute(self, expr: cst.Attribute, state: State, frame: Frame):
        name = dotted(expr)
        if name is not None and name in state.env:
            self._note_read(name, state.env[name], state, frame)
            return state.env[name]
        if name is not None and self.imports.resolve(expr) is not None:
            return None  # a torch (or other imported) name, not a value of the file
        attr = expr.attr.value
        if attr == "data":
            base = self._peek(expr.value, state, frame)
        elif attr in METADATA_ATTRIBUTES:
            base = self._quietly(NO_GRADIENT, expr.value, state, frame)
        else:
            base = self.eval(expr.value, state, frame)
        if isinstance(base, Tensor):
            if attr == "grad":
                written = self._text(expr.value)
                self.facts.grad_reads.append(GradRead(expr, written, base))
            if attr in ("T", "mT", "H", "mH"):
                return base.as_view()
            if attr == "data":
                cut = cuts.cut("GL202", "`.data`", [base])
                return replace(base.as_view(Grad.OFF), cut=cut)
            return None
        if isinstance(base, Obj):
            if name is not None:
                frame.read_parameters.add(name)
            return self._object_attribute(base, attr)
        if isinstance(base, ClassRef):
            return self._class_attribute(base, attr)
        return None

    def _class_attribute(self, cls: ClassRef, attr: str):
        if attr == "apply" and cls.info.kind is ClassKind.AUTOGRAD_FUNCTION:
            return _Apply(cls.info)
        method = self._method(cls.info, attr)
        return Function(method, self._owner_of(method)) if method is not None else None

    def _object_attribute(self, obj: Obj, attr: str):
        if obj.torch_layer:
            if attr in obj.parameters:
                return obj.parameter(attr)
            if attr == "inplace":
                return _inplace_flag(obj)
            return obj.attrs.get(attr)
        if attr not in obj.attrs:
            return None
        value = obj.attrs[attr]
        if isinstance(value, Tensor) and value.described == "parameter":
            # one storage per parameter: every read of `model.w` is the same tensor
            grad = obj.parameter_grad() if obj.frozen else value.grad
            return replace(obj.parameter(attr), grad=grad, shape=value.shape)
        return value

    def _subscript(self, expr: cst.Subscript, state: State, frame: Frame):
        base = self.eval(expr.value, state, frame)
        indices = self._eval_index(expr, state, frame)
        if isinstance(base, Tensor):
            if all(_basic(index) for index in indices):
                return base.as_view()
            grad = base.grad_of_result()
            graph = base.graph if grad is Grad.ON else None
            cut = cuts.inherited([base, *indices])  # `table[t.argmax(1)]`
            return Tensor(new_storage(), grad, is_tensor=True, graph=graph, cut=cut)
        index = indices[0] if len(indices) == 1 else None
        key = index.value if isinstance(index, Const) else None
        if isinstance(base, Seq) and index is _SLICE:
            return self._slice_of(base, expr.slice[0].slice)
        if isinstance(base, Seq):
            return base.item(key if isinstance(key, int) else None)
        if isinstance(base, Mapping):
            return base.get(key if isinstance(key, str) else None)
        if isinstance(base, Obj):
            if isinstance(key, int):
                count = sum(1 for k in base.attrs if k.isdigit())
                return base.attrs.get(str(key % count if count else key)) or base.attrs.get("*")
            return base.attrs.get("*")
        return None

    def _slice_of(self, base: Seq, bounds: cst.Slice) -> Seq:
        """`items[a:b]` of a list or tuple: a list or tuple again (its items exactly when
        the bounds are known numbers), never one of its items."""
        if base.any_length:
            return base
        numbers = []
        for part in (bounds.lower, bounds.upper, bounds.step):
            number = self._literal_of(part) if part is not None else None
            if part is not None and type(number) is not int:
                joined = functools.reduce(join, base.items) if base.items else None
                return Seq((joined,), any_length=True)
            numbers.append(number)
        return Seq(base.items[slice(*numbers)])

    def _literal_of(self, expr: cst.BaseExpression):
        """The Python literal `expr` last evaluated to (None: not a known literal)."""
        found = self.values.get(expr)
        return found[0].value if found is not None and isinstance(found[0], Const) else None

    def _eval_index(self, expr: cst.Subscript, state: State, frame: Frame) -> list:
        values = []
        for element in expr.slice:
            if isinstance(element.slice, cst.Index):
                values.append(self.eval(element.slice.value, state, frame))
            else:
                for part in (element.slice.lower, element.slice.upper, element.slice.step):
                    self.eval(part, state, frame)
                values.append(_SLICE)
        return values

    def _binary(self, expr: cst.BinaryOperation, state: State, frame: Frame):
        left = self.eval(expr.left, state, frame)
        right = self.eval(expr.right, state, frame)
        if not isinstance(left, Tensor) and not isinstance(right, Tensor):
            if AN_INT in (left, right) and all(
                v is AN_INT or (isinstance(v, Const) and type(v.value) is int)
                for v in (left, right)
            ):
                return AN_INT
            if isinstance(left, Const) and isinstance(right, Const):
                return _constant_arithmetic(expr.operator, left.value, right.value)
            if isinstance(left, Seq) or isinstance(right, Seq):
                return _sequence_arithmetic(expr.operator, left, right)
            return cuts.arithmetic(expr.operator, left, right)
        function = _OPERATOR_FUNCTIONS.get(type(expr.operator).__name__)
        facts = knowledge.op(function) if function else None
        label = _snippet(self._text(expr))
        symbol = _OPERATOR_SYMBOLS.get(type(expr.operator).__name__)
        spelled = f"{{0}} {symbol} {{1}}" if symbol else None
        return self._apply(facts, label, spelled, [left, right], state)

    def _apply(self, facts, label: str, spelled: str | None, inputs: list, state: State):
        """A torch op on `inputs` (function-form positions): what torch's own facts say it
        saves for backward, whether it returns a view, and the grad of its result.
        `spelled` formats the op for a witness (`{0}`, `{1}`: the inputs)."""
        base = inputs[0] if inputs and isinstance(inputs[0], Tensor) else None
        tensors = [v for v in inputs if isinstance(v, Tensor)]
        if facts is not None and base is not None and facts.multi_view:
            return _views(base, facts.name.rpartition(".")[2])
        if facts is not None and base is not None and facts.view:
            return base.as_view()
        if facts is not None and base is not None and facts.may_view and base.contiguous:
            return replace(base.as_view(), contiguous=True)  # reshape of a contiguous tensor
        if facts is not None and base is not None and views.splits_only(facts.name, inputs):
            return base.as_view()
        requires = {
            i for i, v in enumerate(inputs) if isinstance(v, Tensor) and v.grad.requires_grad
        }
        storage, saved_storages = new_storage(), set()
        if facts is not None and state.grad and requires:
            for position in facts.saved(requires):
                saved = inputs[position] if position < len(inputs) else None
                if isinstance(saved, Tensor):
                    setup = _saved_input_setup(spelled, position, facts, inputs)
                    self._mark_saved(saved, Saver(label, setup), state)
                    saved_storages.add(saved.storage)
        if state.grad is False:
            grad = Grad.OFF
        elif requires and state.grad and (facts is None or facts.differentiable):
            grad = Grad.ON
        elif (
            tensors
            and all(t.grad is Grad.OFF for t in tensors)
            and all(isinstance(v, Tensor | Const | Number) for v in inputs)
        ):
            grad = Grad.OFF  # no-grad tensors and Python numbers
        else:
            grad = Grad.UNKNOWN
        if not tensors and facts is None:
            return None
        made = grad is Grad.OFF and (
            (state.grad is False and bool(tensors)) or any(t.no_grad_made for t in tensors)
        )
        contiguous = facts is not None and bool(tensors) and all(t.contiguous for t in tensors)
        if facts is not None and state.grad and facts.output_saved(requires):
            saved_storages.add(storage)
        graph = None
        if grad is Grad.ON:
            graph = graphs.record(label, (t.graph for t in tensors), saved_storages)
        result = Tensor(
            storage, grad, is_tensor=True, no_grad_made=made, contiguous=contiguous, graph=graph
        )
        if grad is Grad.OFF and any(t.frozen_made for t in tensors):
            result = replace(result, frozen_made=True)
        if grad is Grad.ON and all(t.plain_leaf for t in tensors if t.grad is not Grad.OFF):
            result = replace(result, plain_leaf=True)
        if storage in saved_storages:
            setup = _saved_output_setup(spelled, len(inputs))
            self._mark_saved(result, Saver(label, setup), state)
            state.uses.saved_output(result.storage)
        return cuts.after_op(result, facts, inputs, state.grad)

    def _inplace_saves(self, method: str, receiver, positional: list, state: State) -> None:
        """What `t.exp_()`-like methods save: their functional form's saved inputs other
        than `t` (overwritten), and `t` itself when the backward reads the result."""
        facts = knowledge.op(knowledge.inplace_method(method) or "")
        if facts is None or not isinstance(receiver, Tensor) or not state.grad:
            return
        inputs = [receiver, *positional]
        requires = {
            i for i, v in enumerate(inputs) if isinstance(v, Tensor) and v.grad.requires_grad
        }
        label = f"Tensor.{method}"
        functional = facts.name.rpartition(".")[2]
        arguments = ", ".join(f"{{{i}}}" for i in range(1, len(inputs)))
        for position in facts.saved(requires):
            if position and position < len(inputs) and isinstance(inputs[position], Tensor):
                spelled = f"{{0}}.{functional}({arguments})"  # saves as the in-place form
                setup = _saved_input_setup(spelled, position, facts, inputs)
                self._mark_saved(inputs[position], Saver(label, setup), state)
        if facts.output_saved(requires):
            sample = ops.INPLACE_TENSOR_METHODS.get(method, "()")
            setup = (
                f"h = torch.randn(4, 4, requires_grad=True)\nt = h * 1\nt.{method}{sample}\nout = t"
            )
            self._mark_saved(receiver, Saver(label, setup), state)

    def _save_for_backward(self, context: Obj, tensors: list, state: State) -> None:
        """`ctx.save_for_backward(...)` in a Function's forward (which runs without grad)."""
        owner = context.attrs["__saves__"].value
        saver = Saver(
            f"{owner}.forward (ctx.save_for_backward)",
            "t = torch.randn(4, 4, requires_grad=True)\nout = t.exp()",
        )
        for value in tensors:
            if isinstance(value, Tensor):
                state.saved.setdefault(value.storage, saver)

    def _mark_saved(self, value: Tensor, saver: Saver, state: State) -> None:
        if state.grad:
            state.saved.setdefault(value.storage, saver)

    # -- calls --------------------------------------------------------------------------

    def _call(self, call: cst.Call, state: State, frame: Frame):
        func = call.func
        qualified = self.imports.resolve(func)
        method = func.attr.value if isinstance(func, cst.Attribute) else None
        quiet = state.uses.quiet
        if carries_no_gradient(method, qualified):
            state.uses.quiet = NO_GRADIENT
        receiver = None
        if method is not None:
            follow = isinstance(func.value, cst.Name) and values_and_indices(method, call)
            mode = FOLLOW if follow and state.uses.quiet is None else state.uses.quiet
            receiver = self._quietly(mode, func.value, state, frame)
        keeps = self._may_keep(func, receiver, state)
        args = self._arguments(call, state, frame, keeps)
        state.uses.quiet = quiet
        self._registration(call, method, receiver, args, state, frame)
        if method == "backward":
            # `loss.backward()`, or `fabric.backward(loss)`: the loss is the argument when
            # the receiver is not a tensor
            operand = dotted(func.value)
            loss, loss_node = receiver, func.value
            if not isinstance(receiver, Tensor) and call.args and not call.args[0].keyword:
                operand = dotted(call.args[0].value)
                loss, loss_node = args[0][0] if args[0] else None, call.args[0].value
            if qualified is None:  # (torch.autograd.backward below)
                limit = 1 if isinstance(receiver, Tensor) else 2
                keeps = graphs.keeps_graph(call, limit, self._truth_of(state, frame))
                self._backward(call, loss, loss_node, keeps, state, frame)
            elif qualified != "torch.autograd.backward":  # of an imported object
                self._trace("backward", call, frame)
            if operand in frame.bound_at:
                frame.backward_calls.append((frame.order, frame.bound_at[operand]))
        if method == "step":
            first = args[0][0] if args[0] else None
            self._trace("step", call, frame, receiver=receiver, argument=first)
            self._step(call, receiver, args, state)
        if method == "zero_grad":
            self._trace("zero_grad", call, frame, receiver=receiver, storages=_held(receiver))
            self._zero_grad(call, receiver, state)
        elif _clears_gradients(call) or _last_name(func) in self.clearing:
            self._trace("clear", call, frame)
        out = _argument(call, "out", None)
        if out is not None and qualified and qualified.startswith("torch."):
            self._edit(_Edit(call, out, "torch.add(x, 1.0, out=t)", out_arg=True), state, frame)
        if qualified in ("torch.autograd.backward", "torch.autograd.grad"):
            backward = qualified == "torch.autograd.backward"
            keyword = "tensors" if backward else "outputs"
            loss_node = _argument(call, keyword, 0)
            keeps = graphs.keeps_graph(call, 2 if backward else 3, self._truth_of(state, frame))
            loss = args[0][0] if args[0] else args[1].get(keyword)
            if loss_node is not None:
                self._backward(call, loss, loss_node, keeps, state, frame)
        if qualified is not None and qualified.startswith("torch."):
            result = self._torch_call(call, qualified, args, state, frame)
            return self._typed(call, qualified.rpartition(".")[2], args, result, state)
        if qualified == "argparse.ArgumentParser":
            return Obj(qualified)
        if qualified in _MATH_OF_NUMBERS and len(args[0]) == 1 and not args[1]:
            number = args[0][0].value if isinstance(args[0][0], Const) else None
            if type(number) in (int, float) and number > 0:  # `x / math.sqrt(head_dim)`
                return Const(_MATH_OF_NUMBERS[qualified](number))
        if qualified is not None and qualified.startswith(("numpy.", "math.")):
            values = [*args[0], *args[1].values()]
            if any(isinstance(v, Tensor | Number) for v in values):
                return cuts.number(f"`{qualified}(...)`", values)
        if isinstance(func, cst.Name) and func.value not in state.env:
            if func.value == "super":
                return _SUPER
            if func.value in _ITERATION_BUILTINS:
                return self._iteration(func.value, args[0])
            if func.value in ("float", "int") and args[0] and isinstance(args[0][0], Tensor):
                return cuts.number(f"`{func.value}(...)`", args[0][:1])
            if func.value in ("len", "int"):
                return AN_INT
            if func.value == "sum" and args[0] and isinstance(args[0][0], Seq):
                return _combined(args[0][0], state)  # `sum(losses)`: a tensor of them all
        if isinstance(func, cst.Attribute) and receiver is _SUPER:
            return self._super_call(call, func.attr.value, args, state, frame)
        callee = receiver if not isinstance(func, cst.Attribute) else None
        if callee is None and not isinstance(func, cst.Attribute):
            callee = self.eval(func, state, frame)
        if isinstance(func, cst.Attribute) and isinstance(receiver, ClassRef):
            callee = self._class_attribute(receiver, func.attr.value)
        if isinstance(receiver, Obj) and receiver.kind == "ctx":
            if func.attr.value == "save_for_backward":
                self._save_for_backward(receiver, args[0], state)
            return None
        if isinstance(func, cst.Attribute) and isinstance(receiver, Obj):
            bound = self._object_attribute(receiver, func.attr.value)
            if bound is None and receiver.info is not None:
                defined = self._method(receiver.info, func.attr.value)
                if defined is not None:
                    self._called(call, defined, receiver, args, state, frame)
                    return self._inline(call, defined, receiver, args, state, frame)
            if bound is not None:
                callee = bound
            else:
                return self._module_method(receiver, func.attr.value, args)
        if isinstance(callee, Obj):
            return self._call_module(call, callee, args, state, frame)
        if isinstance(callee, Function):
            self._called(call, callee.node, callee.bound, args, state, frame)
            return self._inline(call, callee.node, callee.bound, args, state, frame)
        if isinstance(callee, _Apply):
            return self._apply_function(call, callee.info, args, state, frame)
        if isinstance(callee, ClassRef):
            return self._construct(call, callee.info, args, state, frame)
        if isinstance(func, cst.Attribute):
            result = self._method_call(call, func, receiver, args, state, frame)
            if isinstance(receiver, Tensor):
                return self._typed(call, func.attr.value, args, result, state, receiver)
            if receiver is None and func.attr.value in _INTEGER_CASTS:
                # `x.long()`, `x.to(torch.int8)`: a tensor whatever `x` was (modules
                # refuse integer dtypes)
                unknown = Tensor(new_storage())
                typed = self._typed(call, func.attr.value, args, None, state, unknown)
                return typed if isinstance(typed, Tensor) and typed.dtype else None
            return result
        return None

    def _typed(self, call: cst.Call, name: str, args, result, state: State, receiver=None):
        """The dtype of a torch function's (or a tensor method's) result, and the
        (values, indices) pair of max / sort / topk ..."""
        positional, keywords = args
        explicit = dtypes.named(_argument(call, "dtype", None), self.imports)
        if receiver is not None:
            if name in ("to", "type") and explicit is None and call.args:
                explicit = dtypes.named(call.args[0].value, self.imports)
            dtype = dtypes.of_method(name, explicit)
            inputs = [receiver, *positional]
        else:
            dtype = dtypes.of_torch_call(name, explicit, positional)
            inputs = positional
        if dtypes.cannot_require_grad(dtype):
            fresh = receiver is not None or not isinstance(result, Tensor)
            made = Tensor(new_storage(), is_tensor=True) if fresh else result
            cut = cuts.cut("GL203", f"`{name}`", inputs, integer=True)
            made = replace(made, grad=Grad.OFF, dtype=dtype, described="", cut=cut)
            if receiver is None and _truth(keywords.get("requires_grad")) is True:
                written = self._text(call)
                change = RequiresGradChange(call, written, made, True, False, created=True)
                self.facts.requires_grad_changes.append(change)
            return made
        if result is None and receiver is not None and receiver.cut and dtype is not None:
            result = receiver.derived()  # `t.argmax(1).type(torch.float32)`: still cut
        if isinstance(result, Tensor) and dtype is not None:
            leaf = receiver is not None and receiver.grad is Grad.LEAF
            # `.to()` / `.cuda()` giving a new storage is a copy `_moves_or_casts` proved
            proven_copy = leaf and name in ("to", "cuda") and result.storage != receiver.storage
            if leaf and not proven_copy:
                # `w.float()` / `w.to(torch.float32)` returns `w` itself when it has
                # that dtype already: a leaf, or a copy (a non-leaf)
                return replace(result, grad=Grad.UNKNOWN, dtype=dtype)
            if receiver is None or result.storage != receiver.storage:
                return replace(result, dtype=dtype)
            return result
        paired = name in dtypes.ALWAYS_PAIRED or (
            name in dtypes.PAIRED_WITH_DIM
            and ("dim" in keywords or _is_dim(inputs[1] if len(inputs) > 1 else None))
        )
        if paired and isinstance(result, Tensor):
            cut = cuts.cut("GL203", f"the indices of `{name}`", inputs, integer=True)
            indices = Tensor(new_storage(), Grad.OFF, is_tensor=True, dtype="int", cut=cut)
            return Seq((result, indices))
        return result

    def _presence_assumed(self, expr: cst.BaseExpression, state: State) -> bool:
        """`x is None` / `x is not None` on a function argument analysed on its own: its
        truth is the assumption that the caller passed a tensor, which holds for one
        argument at a time, not for a combination (`if a is not None and b is not None:
        raise ...` rejects passing both)."""
        if not isinstance(expr, cst.Comparison) or len(expr.comparisons) != 1:
            return False
        if not isinstance(expr.comparisons[0].operator, cst.Is | cst.IsNot):
            return False
        sides = (expr.left, expr.comparisons[0].comparator)
        values = [state.env.get(side.value) for side in sides if isinstance(side, cst.Name)]
        return any(isinstance(v, Tensor) and v.forward_input is not None for v in values)

    def _truth_of(self, state: State, frame: Frame) -> Callable[[cst.BaseExpression], bool | None]:
        """What an expression's value is as a condition, here (None: unknown)."""
        return lambda node: _truth(self.eval(node, state, frame))

    def _backward(self, call: cst.Call, loss, loss_node, retains, state: State, frame: Frame):
        """A backward through `loss` (a tensor or a list of them): what it meets of the
        graphs' state, and the nodes it frees."""
        tensors = [loss] if isinstance(loss, Tensor) else []
        if isinstance(loss, Seq) and not loss.any_length:
            tensors = [v for v in loss.items if isinstance(v, Tensor)]
        roots = [t.graph for t in tensors if t.grad is Grad.ON]
        live = tuple(n for n in graphs.reachable(roots) if id(n) not in state.graphs.freed)
        accumulates = self.imports.resolve(call.func) != "torch.autograd.grad"
        self._trace("backward", call, frame, accumulates=accumulates, nodes=live)
        freed, stale, state.graphs = state.graphs.traverse(call, roots, retains)
        if not tensors:
            return
        written = self._text(loss_node)
        value = loss if isinstance(loss, Tensor) else None
        event = BackwardCall(call, written, value, retains, freed, stale)
        self.facts.backward_calls.append(event)
        if retains is False:  # what the graph saved is freed: later edits no longer matter
            state.saved.clear()

    def _step(self, call: cst.Call, receiver, args, state: State) -> None:
        """`optimizer.step()` or `scaler.step(optimizer)`: the parameters it updates are
        edited in place."""
        positional = args[0]
        stepped = receiver if isinstance(receiver, Optimizer) else None
        if stepped is None and positional and isinstance(positional[0], Optimizer):
            stepped = positional[0]
        if stepped is None or not stepped.storages:
            return
        written = self._text(call)
        step = graphs.Step(call, written, stepped.storages, graphs.tick())
        state.graphs = state.graphs.step(step)

    def _zero_grad(self, call: cst.Call, receiver, state: State) -> None:
        """`optimizer.zero_grad()` / `model.zero_grad()` sets the gradients to None (not
        with `set_to_none=False`): a step before the next backward edits nothing."""
        if literal_bool(_argument(call, "set_to_none", 0)) is False:
            return
        if isinstance(receiver, Optimizer) and receiver.storages:
            state.graphs = state.graphs.zero_grad(receiver.storages)
            self.facts.zeroed |= receiver.storages
        elif isinstance(receiver, Obj):
            state.graphs = state.graphs.zero_grad(optimizers.owned(receiver))
            self.facts.zeroed |= optimizers.owned(receiver)

    def _iteration(self, builtin: str, positional: list):
        """`enumerate(v)`, `zip(a, b)`, `list(v)`, ...: a sequence of what iterating yields."""
        if builtin == "range":
            bounds = [v.value for v in positional if isinstance(v, Const)]
            if len(bounds) == len(positional) in (1, 2) and all(type(b) is int for b in bounds):
                numbers = range(*bounds)
                if len(numbers) <= 16:
                    return Seq(tuple(Const(n) for n in numbers))
            return Seq((AN_INT,), any_length=True)
        if builtin == "enumerate" and positional:
            return Seq((Seq((AN_INT, _element(positional[0], self.freezes))),), any_length=True)
        if builtin == "zip":
            exact = [v for v in positional if isinstance(v, Seq) and not v.any_length]
            if positional and len(exact) == len(positional):  # as long as the shortest
                rows = zip(*(v.items for v in exact), strict=False)
                return Seq(tuple(Seq(row) for row in rows))
            pairs = tuple(_element(v, self.freezes) for v in positional)
            return Seq((Seq(pairs),), any_length=True)
        if positional and builtin in ("list", "tuple", "reversed", "sorted", "iter"):
            if isinstance(positional[0], Seq):
                return positional[0]
            return Seq((_element(positional[0], self.freezes),), any_length=True)
        return None

    def _arguments(self, call: cst.Call, state: State, frame: Frame, keeps: bool = False):
        """The values of `call`'s arguments; `keeps`: the callee may keep the lists and
        dicts it is given (a ContainerPassed event for each)."""
        positional, keywords = [], {}
        for arg in call.args:
            value = self.eval(arg.value, state, frame)
            if keeps and isinstance(value, Seq | Mapping):
                self.facts.containers_passed.append(ContainerPassed(call, value))
            if arg.star == "*" and isinstance(value, Seq) and not value.any_length:
                positional.extend(value.items)
            elif arg.star == "*" and isinstance(value, Seq) and value.cycle:
                positional.extend([*value.cycle, *value.cycle, _STAR])  # two passes, then more
            elif arg.star:
                positional.append(_STAR)
            elif arg.keyword is not None:
                keywords[arg.keyword.value] = value
            else:
                positional.append(value)
        return positional, keywords

    def _may_keep(self, func: cst.BaseExpression, receiver, state: State) -> bool:
        """A call that may keep the containers it is given: not a builtin that only reads
        or copies them, nor a list's own growth (`xs.extend(ys)` keeps ys's items in xs)."""
        if isinstance(func, cst.Name) and func.value not in state.env:
            return func.value not in _READING_BUILTINS
        if isinstance(func, cst.Attribute) and func.attr.value in _LIST_GROWTH:
            return isinstance(receiver, Obj)  # `blocks.extend(layers)` on a ModuleList
        return True

    def _registration(self, call: cst.Call, method, receiver, args, state: State, frame: Frame):
        """A ModuleRegistration event for `m.add_module(...)`-like calls and `setattr`."""
        positional, _ = args
        if method in _REGISTERING:
            module, label = receiver, positional[0] if positional else None
        elif isinstance(call.func, cst.Name) and call.func.value == "setattr":
            if "setattr" in state.env:
                return
            module = positional[0] if positional else None
            label = positional[1] if len(positional) > 1 else None
            method = "setattr"
        else:
            return
        module = module if isinstance(module, Obj) and module.is_module else None
        name = label.value if isinstance(label, Const) and isinstance(label.value, str) else None
        event = ModuleRegistration(call, method, module, frame.owner, name)
        self.facts.registrations.append(event)

    def _super_call(self, call, name: str, args, state: State, frame: Frame):
        owner = frame.owner
        if owner is None or name != "__init__":
            return None
        base = next(
            (self.index.by_name[b] for b in owner.base_names if b in self.index.by_name), None
        )
        init = self._method(base, "__init__") if base is not None else None
        this = state.env.get("self")
        if init is not None and isinstance(this, Obj) and init not in self.stack:
            owner_of = self._owner_of(init)
            env = self._bind_call(init, owner_of, this, args)
            self.stack.append(init)
            self._block(
                init.body.body, State(env, grad=True), Frame(frame.body, owner_of, MAX_DEPTH)
            )
            self.stack.pop()
        return None

    def _construct(self, call: cst.Call, info: ClassInfo, args, state: State, frame: Frame):
        if info in self.modules or info.kind is ClassKind.PLAIN:
            return self.instance(info, call, args)
        return None

    def _call_module(self, call: cst.Call, obj: Obj, args, state, frame, label=None):
        """`model(x)`: the module's forward run on `args`, traced from start to end."""
        start = graphs.tick()
        output = self._forward(call, obj, args, state, frame, label)
        self._trace("forward", call, frame, receiver=obj, time=start, end=graphs.tick())
        return output

    def _forward(self, call: cst.Call, obj: Obj, args, state, frame, label=None):
        forward = None
        if obj.info is not None and not obj.torch_layer:
            forward = self._method(obj.info, "forward" if obj.info in self.modules else "__call__")
        if forward is None and (name := dotted(call.func)) is not None:
            frame.called_modules.add(name)
        if obj.torch_layer:
            output = self._layer_call(call, obj, args, state, frame, label)
            return self.shapes.layer_output(call, obj, args[0], output)
        if obj.info is None:
            return None
        if label is None and args is not None and obj.info.kind is not ClassKind.UNKNOWN:
            # `call`'s own arguments (not a later stage's), of a class the probe can build
            self.facts.module_calls.append(ModuleCall(obj, call, args, frame.body.node))
        if forward is None:
            return None
        return self._inline(call, forward, obj, args, state, frame)

    def _called(self, call, node: cst.FunctionDef, bound, args, state: State, frame) -> None:
        if args is not None:
            event = FunctionCall(node, bound, call, args, frame.body.node, state.grad)
            self.facts.function_calls.append(event)

    def _inline(self, call, node: cst.FunctionDef, bound: Obj | None, args, state, frame):
        """Interpret a function of the file with the caller's values."""
        owner = self._owner_of(node)
        modes = self.call_modes.setdefault(node, [])
        modes.append(state.grad)
        receiver = _receiver(call, node) if bound is not None else None
        if frame.depth >= MAX_DEPTH or node in self.stack or self.steps > MAX_STEPS or args is None:
            if node in self.stack:
                self.refused.append(node)
            if receiver is not None:  # what it reads is unknown: all of its parameters
                frame.called_modules.add(receiver)
            return None
        env = self._bind_call(node, owner, bound, args)
        callee_grad = state.grad
        for decorator in node.decorators:
            effect = self.scope.grad_effect(decorator.decorator)
            if effect is not None:
                callee_grad = effect
        role = self._role(node, owner)
        arguments = self._alike_own_run(node, role, env, state, frame)
        summary = self._summary_for(node, arguments, callee_grad, frame)
        if summary is not None:
            return self._reuse(summary, call, receiver, state, frame)
        self.inlined.append(node)
        recorded = summaries.lengths(self.facts), self.steps, len(self.inlined), len(self.refused)
        body = Body(
            node,
            role,
            frame.body.differentiated or node in self.differentiated,
            frame.body.standalone,
            self.dirty.get(node, frozenset()),
            node if role == "module_forward" else frame.body.forward,
        )
        callee = Frame(body, owner, frame.depth + 1)
        inner = State(env, dict(state.saved), callee_grad, state.guarded, graphs=state.graphs)
        before = len(self.facts.edits)
        flags_before = len(self.facts.requires_grad_changes)
        self.stack.append(node)
        end = self._block_at(Place("call", call), node.body.body, inner, callee)
        self.stack.pop()
        self._finish(callee)
        exits = [*callee.exits, end] if end is not None else callee.exits
        if arguments is not None:
            self._summarise(node, arguments, (inner, callee_grad, exits), callee, recorded)
        writes = [(at, name) for _, at, name in callee.data_writes]
        _heard(frame, receiver, callee.read_parameters, callee.called_modules, writes)
        state.saved.clear()  # the callee's saved map continues the caller's
        state.saved.update(inner.saved)
        if exits:
            state.graphs = functools.reduce(graphs.Graphs.join, (e.graphs for e in exits))
        if exits and callee.sets_grad:  # `torch.set_grad_enabled(False)` outlives the call
            modes = {e.grad for e in exits}
            state.grad = modes.pop() if len(modes) == 1 else None
        returned = {s for value in callee.returns for s in _storages(value)}
        for_result = bool(callee.returns) and not _discarded(frame.statement, call)
        edits = self.facts.edits[before:]
        self._watch_caller_reads(args, state, frame, edits, returned if for_result else None)
        self._flags_of_arguments(args, state, self.facts.requires_grad_changes[flags_before:])
        return _returned(callee.returns)

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
        if summary.grad_after is not None:
            state.grad = summary.grad_after[0]
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

    def _flags_of_arguments(self, args, state: State, changes) -> None:
        """`t.requires_grad = True` (or `requires_grad_()`) in a callee on a tensor its
        caller passed changes that very tensor: the caller's names of it see the flag."""
        positional, keywords = args
        passed = {v.storage for v in [*positional, *keywords.values()] if isinstance(v, Tensor)}
        for change in changes:
            value = change.value
            if value.storage not in passed or value.view or change.created:
                continue
            grad = Grad.UNKNOWN
            if change.flag is not None and value.grad in (Grad.OFF, Grad.LEAF):
                grad = Grad.LEAF if change.flag else Grad.OFF
            plain = becomes_plain_leaf(value, change.flag)
            for name, bound in list(state.env.items()):
                if isinstance(bound, Tensor) and bound.storage == value.storage and not bound.view:
                    described = "leaf tensor" if grad is Grad.LEAF else bound.described
                    state.env[name] = replace(
                        bound, grad=grad, buffer=False, described=described, plain_leaf=plain
                    )

    def _apply_function(self, call, info: ClassInfo, args, state: State, frame: Frame):
        """`MyFunction.apply(...)`: its forward runs without grad on the same tensors, what
        it hands to `ctx.save_for_backward` is saved, and the result is a new tensor."""
        forward = self._method(info, "forward")
        positional, keywords = args
        inputs = None if _STAR in positional else len(positional)
        self.facts.applied.append(FunctionApplied(call, info, inputs))
        returned = None
        if forward is not None:
            inner = State(dict(state.env), state.saved, False, state.guarded)
            context = Obj("ctx", attrs={"__saves__": Const(info.name)})
            call_args = ([context, *positional], keywords)
            returned = self._inline(call, forward, None, call_args, inner, frame)
            self.call_modes[forward].pop()  # autograd runs it without grad: not a mode choice
        tensors = [v for v in positional if isinstance(v, Tensor)]
        if not (state.grad and any(t.grad.requires_grad for t in tensors)):
            return None
        as_is = [
            t for t in tensors if isinstance(returned, Tensor) and t.storage == returned.storage
        ]
        if as_is and forward is not None and not self.dirty.get(forward):
            # an input returned as-is (or a view of it) is a view autograd cannot rebase
            view = as_is[0].as_view(Grad.ON)
            return replace(view, function_view=f"{info.name}.apply")
        graph = graphs.record("", _histories(tensors), ())
        return Tensor(new_storage(), Grad.ON, is_tensor=True, graph=graph)

    def _bind_call(self, node: cst.FunctionDef, owner, bound: Obj | None, args):
        positional, keywords = args if args is not None else ([], {})
        params = list(node.params.params)
        env: dict[str, Value | None] = {}
        if owner is not None and _takes_self(node) and params:
            env[params[0].name.value] = bound
            params = params[1:]
        star = _STAR in positional
        for index, param in enumerate(params):
            name = param.name.value
            if name in keywords:
                env[name] = keywords[name]
            elif index < len(positional) and not star:
                env[name] = positional[index]
            elif param.default is not None and not star:
                env[name] = self.eval(param.default, State({}), Frame(_NO_BODY, None, MAX_DEPTH))
            else:
                env[name] = None
        star_arg = node.params.star_arg
        if isinstance(star_arg, cst.Param):  # `*args` holds the positionals left over
            rest = positional[len(params) :]
            env[star_arg.name.value] = None if star else Seq(tuple(rest))
        for param in node.params.kwonly_params:
            name = param.name.value
            if name in keywords:
                env[name] = keywords[name]
            elif param.default is not None:
                env[name] = self.eval(param.default, State({}), Frame(_NO_BODY, None, MAX_DEPTH))
        return env

    def _module_method(self, obj: Obj, name: str, args):
        if name in _CHANGING_METHODS:
            self._changed(None if name == "requires_grad_" else obj)
        if name in ("add_module", "register_module") and len(args[0]) == 2:
            label, module = args[0]
            key = label.value if isinstance(label, Const) else None
            if obj.kind == "torch.nn.Sequential":
                key = str(sum(1 for k in obj.attrs if k.isdigit()))
            if isinstance(key, str):
                obj.attrs[key] = module
            return None
        if name in ("register_buffer", "register_parameter") and len(args[0]) >= 2:
            label = args[0][0]
            if isinstance(label, Const) and isinstance(label.value, str):
                obj.attrs[label.value] = args[0][1]
            return None
        if obj.kind == "argparse.ArgumentParser":
            return _argparse(obj, name, args)
        if obj.kind in _CONTAINERS and name in ("append", "extend") and args[0]:
            added = args[0][0]
            items = [added] if name == "append" else [_element(added, self.freezes)]
            for item in items:
                obj.attrs["*"] = join(obj.attrs["*"], item) if "*" in obj.attrs else item
            return None
        if name in _PARAMETER_ITERATORS:
            return Parameters(obj, named=name == "named_parameters")
        if name in ("modules", "children"):
            return Modules(obj)
        if name in ("named_modules", "named_children"):
            return Seq((Seq((None, Modules(obj))),), any_length=True)
        if name in _SAME_MODULE_METHODS:
            if name == "requires_grad_":
                flag = _truth(args[0][0]) if args[0] else True
                if flag is False and not self.undecided:
                    freezing.freeze(obj)
                elif flag is False:
                    obj.frozen = True
                else:
                    obj.frozen = obj.frozen or flag is None
                    freezing.thaw(obj, deep=True)
            return obj
        return None

    def _torch_call(self, call: cst.Call, qualified: str, args, state: State, frame: Frame):
        positional, keywords = args
        first = positional[0] if positional else None
        first = first if isinstance(first, Tensor) else None
        first_node = call.args[0].value if call.args else None
        if qualified in ops.TENSOR_FACTORIES or qualified == "torch.nn.Parameter":
            flag = keywords.get("requires_grad", Const(False))
            if qualified == "torch.nn.Parameter":
                flag = keywords.get("requires_grad", positional[1] if len(positional) > 1 else None)
                flag = Const(True) if flag is None and "requires_grad" not in keywords else flag
            made = _factory(qualified, _truth(flag))
            if qualified == "torch.nn.Parameter":
                self._built(call, made, frame)
            elif qualified in ops.GRAPH_CUT_FUNCTIONS:
                made = replace(made, cut=cuts.cut("GL201", f"`{qualified}(...)`", positional[:1]))
            return made
        if qualified in _DATA_CONVERSIONS:
            cut = cuts.cut("GL201", f"`{qualified}(...)`", positional[:1])
            return Tensor(new_storage(), Grad.OFF, is_tensor=True, cut=cut)
        if qualified == "torch.autograd.Variable":
            variable = _variable(call, first)
            cut = cuts.cut("GL201", f"`{qualified}(...)`", positional[:1])
            return replace(variable, cut=cut) if variable is not None else None
        if qualified in ops.CHECKPOINT_FUNCTIONS and state.grad:
            inputs = positional[2:] if qualified.endswith("_sequential") else positional[1:]
            self.facts.checkpoints.append(CheckpointCall(call, inputs))
        if (
            qualified.startswith("torch.distributions.")
            and qualified.rpartition(".")[2][:1].isupper()
        ):
            return _distribution([*positional, *keywords.values()], state)
        if qualified == "torch.autograd.grad":
            loss = positional[0] if positional else keywords.get("outputs")
            return _gradients(loss, literal_bool(_argument(call, "create_graph", 4)), state)
        if _is_optimizer_class(qualified):
            params = keywords.get("params", positional[0] if positional else None)
            self.facts.optimizers.append(OptimizerBuilt(call, qualified, params))
            built = optimizers.optimizer(params)
            self._trace("optimizer", call, frame, receiver=built)
            return built
        if _is_layer_class(qualified):
            return self._built(call, self.torch_layer(qualified, call, args), frame)
        if qualified.startswith("torch.nn.utils.") and positional:
            return positional[0] if isinstance(positional[0], Obj) else None  # weight_norm(m)
        if _is_module_wrapper(qualified) and positional and isinstance(positional[0], Obj):
            return self.torch_layer(qualified, call, args)  # `DDP(m)`: holds m as `.module`
        if knowledge.inplace_function(qualified) and first_node is not None:
            form = f"{qualified}(t)"
            self._edit(_Edit(call, first_node, form, first, proves_tensor=True), state, frame)
            return first
        facts = knowledge.op(qualified)
        inplace_arg = facts.inplace_arg if facts is not None else None
        if inplace_arg is not None and first_node is not None:
            position, keyword = inplace_arg
            flag = _argument(call, keyword, position)
            if _truth(self.eval(flag, state, frame) if flag is not None else None) is True:
                form = f"{qualified}(t, {keyword}=True)"
                self._edit(_Edit(call, first_node, form, first, proves_tensor=True), state, frame)
                if first is not None and facts is not None and facts.saves_output and state.grad:
                    self._mark_saved(
                        first,
                        Saver(qualified, _saved_output_setup(f"{qualified}({{0}})", 1)),
                        state,
                    )
                return first
        if qualified in ("torch.cat", "torch.stack", "torch.concat") and positional:
            return _combined(positional[0], state)
        if qualified.rpartition(".")[2] in _NO_GRAD_RESULTS:
            return None
        if facts is None and not qualified.startswith(("torch.nn.functional.", "torch.")):
            return None
        spelled = f"{qualified}({', '.join(f'{{{i}}}' for i in range(len(positional)))})"
        return self._apply(facts, qualified, spelled, positional, state)

    def _built(self, call: cst.Call, value, frame: Frame):
        """A layer or Parameter made while a module's forward runs."""
        forward, function = frame.body.standalone, frame.body.node
        owner = self.functions.get(forward) if forward is not None else None
        if owner is not None and owner.is_module and forward.name.value == "forward":
            self.facts.built_in_forward.append(BuiltInForward(call, function, value))
        return value

    def _result_grad(self, operand: Tensor, state: State) -> Grad:
        if state.grad is False:
            return Grad.OFF
        if state.grad is None and operand.grad.requires_grad:
            return Grad.UNKNOWN
        return operand.grad_of_result()

    def _layer_call(self, call: cst.Call, layer: Obj, args, state, frame, label=None):
        """A torch layer called on `args`; `label` names its input when no expression does."""
        kind = layer.kind
        positional, _ = args
        first = positional[0] if positional and isinstance(positional[0], Tensor) else None
        first_node = call.args[0].value if call.args else None
        if kind == "torch.nn.Sequential":
            return self._sequential(call, layer, args, state, frame)
        if kind in _CONTAINERS:
            return None
        facts = knowledge.layer(kind)
        if facts is None:
            return None
        if facts.inplace_arg is not None and _truth(_inplace_flag(layer)) is True:
            if first_node is not None:
                # a stage of a Sequential is reported where it is built, with inplace
                at = layer.constructor if label is not None and layer.constructor else call
                at = layer.inplace_at or at  # reported where the flag was switched on
                form = f"{kind}(inplace=True)(t)"
                edit = _Edit(at, first_node, form, first, proves_tensor=True, written=label)
                self._edit(edit, state, frame)
            if first is not None and facts.saves_output and state.grad:
                setup = _saved_output_setup(f"{kind}()({{0}})", 1)
                self._mark_saved(first, Saver(kind, setup), state)
            return first
        learns = bool(layer.parameters) and not layer.frozen
        params = frozenset(layer.parameter(name).storage for name in layer.parameters if learns)
        if learns and first is not None and first.cut is not None:
            self.facts.cuts_fed.append(CutFed(call, first.cut, params))
        requires = first is not None and first.grad.requires_grad
        saves_input = requires or (learns and facts.saves_input_for_params)
        if first is not None and state.grad and facts.saves_input and saves_input:
            saver = Saver(kind, "t = torch.randn(4, 4)\nout = torch.nn.Linear(4, 4)(t)")
            self._mark_saved(first, saver, state)
        if state.grad is False:
            cut = cuts.Cut("GL202", "computing it under `torch.no_grad()`") if learns else None
            return Tensor(new_storage(), Grad.OFF, is_tensor=True, no_grad_made=learns, cut=cut)
        if learns and state.grad:
            contiguous = kind in _CONTIGUOUS_OUTPUT_LAYERS or (
                first is not None and first.contiguous
            )
            output = Tensor(new_storage(), Grad.ON, is_tensor=True, contiguous=contiguous)
        elif first is not None and not layer.parameters:
            output = first.derived(self._result_grad(first, state), True)
        elif layer.grad_off and all(
            isinstance(v, Tensor) and v.grad is Grad.OFF for v in positional
        ):
            return Tensor(new_storage(), Grad.OFF, is_tensor=True, frozen_made=True)
        else:
            return None
        sequence = facts.shape == "rnn" and not kind.endswith("Cell")
        saves_output = facts.saves_output and output.grad.requires_grad and state.grad
        if saves_output:
            spelled = f"{kind}(4, 4)({{0}})[0]" if sequence else f"{kind}()({{0}})"
            self._mark_saved(output, Saver(f"{kind}()", _saved_output_setup(spelled, 1)), state)
            state.uses.saved_output(output.storage)
        if output.grad is Grad.ON:
            saved = _layer_saved(layer, positional, learns, facts.saves_input and saves_input)
            saved |= {output.storage} if saves_output else set()
            label = f"{self._text(call.func)}(...)"
            graph = graphs.record(label, _histories(positional), saved, params)
            output = replace(output, graph=graph)
        return _recurrent_outputs(kind, output)

    def _sequential(self, call: cst.Call, layer: Obj, args, state: State, frame: Frame):
        """Each stage called on the previous one's output; edits are reported at the call."""
        value = args[0][0] if args[0] else None
        stages = sorted((int(k), v) for k, v in layer.attrs.items() if k.isdigit())
        container = self._text(call.func)
        for number, stage in stages:
            if not isinstance(stage, Obj):
                return None
            label = f"the output of `{container}[{number - 1}]`" if number else None
            value = self._call_module(call, stage, ([value], {}), state, frame, label)
        return value

    def _method_call(self, call, func: cst.Attribute, receiver, args, state: State, frame: Frame):
        method = func.attr.value
        positional, _ = args
        if isinstance(receiver, Parameters | Modules) or method in _PARAMETER_ITERATORS:
            if method in _PARAMETER_ITERATORS and not isinstance(receiver, Tensor):
                return Parameters(None, named=method == "named_parameters")
            return None
        edits_self = knowledge.inplace_method(method) is not None
        if _through_data(func.value):
            if edits_self:
                self._data_write(call, _strip_data(func.value), state, frame)
            return None
        if edits_self:
            if not _copies_itself(call, func):
                sample = ops.INPLACE_TENSOR_METHODS.get(method, "()")
                value = receiver if isinstance(receiver, Tensor) else None
                edit = _Edit(call, func.value, f"t.{method}{sample}", value, proves_tensor=True)
                self._edit(edit, state, frame)
                self._written_into(func.value, positional, state, frame)
                self._inplace_saves(method, receiver, positional, state)
            return _requiring(receiver, positional, state)
        if method == "requires_grad_":
            flag = _truth(positional[0]) if positional else True
            if isinstance(receiver, Tensor):
                written = self._text(func.value)
                change = RequiresGradChange(call, written, receiver, flag, False)
                self.facts.requires_grad_changes.append(change)
                leaf = flag is True and receiver.grad in (Grad.OFF, Grad.LEAF)
                grad = Grad.LEAF if leaf else Grad.UNKNOWN
                plain = becomes_plain_leaf(receiver, flag)
                result = replace(
                    receiver, grad=grad, buffer=False, described="leaf tensor", plain_leaf=plain
                )
                name = dotted(func.value)
                if name is not None and name in state.env:
                    state.env[name] = result
                return result
            return receiver
        if isinstance(receiver, Seq) and method in _LIST_GROWTH:
            self._grow(call, func.value, receiver, method, positional, state, frame)
            return None
        if not isinstance(receiver, Tensor):
            return None
        name = dotted(func.value)
        if method in _TENSOR_ONLY_METHODS and name in state.env and not receiver.is_tensor:
            receiver = state.env[name] = replace(receiver, is_tensor=True)
        if method == "detach":
            cut = cuts.cut("GL202", "`.detach()`", [receiver])
            return replace(receiver.as_view(Grad.OFF), described="", cut=cut)
        if method == "detach_":  # every name of the tensor leaves the graph
            for bound, value in list(state.env.items()):
                if isinstance(value, Tensor) and value.storage == receiver.storage:
                    state.env[bound] = replace(value, grad=Grad.OFF, graph=None)
            return state.env.get(name, receiver)
        if method in ("to", "cuda") and receiver.grad is Grad.LEAF and not receiver.view:
            copies = self._moves_or_casts(call, method)
            if copies:  # `torch.randn(n, requires_grad=True).cuda()` is not a leaf
                return replace(receiver.derived(Grad.ON), described="", shape=receiver.shape)
            if copies is None:
                return replace(receiver, grad=Grad.UNKNOWN, described="")
        if method in _SAME_TENSOR_METHODS or (method == "type" and call.args):
            return receiver  # a cast: its dtype is set by _typed (`t.type()` is a string)
        if method == "is_floating_point" and receiver.dtype in ("int", "bool"):
            return Const(False)
        if method in ("size", "dim", "numel"):
            return AN_INT
        if method in ops.GRAPH_CUT_METHODS:  # `.item()`, `.tolist()`, `.numpy()`
            return cuts.number(f"`.{method}()`", [receiver])
        if method in _NO_GRAD_RESULTS:
            return None
        if method in _DISTRIBUTION_METHODS:
            return self._distribution_method(func, receiver, positional, state)
        facts = knowledge.method(method)
        if facts is None:
            return None
        inputs = [receiver, *positional]
        spelled = "{0}." + method + "(" + ", ".join(f"{{{i}}}" for i in range(1, len(inputs))) + ")"
        result = self._apply(facts, f"Tensor.{method}", spelled, inputs, state)
        if (
            values_and_indices(method, call)
            and isinstance(result, Tensor)
            and state.uses.follow(receiver.storage, result.storage)
        ):
            return Seq((result, Tensor(new_storage(), Grad.OFF, is_tensor=True)))
        return result

    def _distribution_method(self, func: cst.Attribute, receiver: Tensor, positional, state):
        """`dist.log_prob(a)` on a `torch.distributions` object made from tensors: a
        result computed (and saved for backward) from its parameters."""
        if receiver.grad is not Grad.ON or not state.grad:
            return None
        label = f"{self._text(func)}(...)"
        graph = graphs.record(label, _histories([receiver, *positional]), {new_storage()})
        return Tensor(new_storage(), Grad.ON, is_tensor=True, graph=graph)

    # -- masks --------------------------------------------------------------------------

    def _is_mask(self, target: cst.Subscript, state: State) -> bool:
        if len(target.slice) != 1 or not isinstance(target.slice[0].slice, cst.Index):
            return False
        return self._is_mask_expr(target.slice[0].slice.value, state)

    def _is_mask_expr(self, expr: cst.BaseExpression, state: State) -> bool:
        if isinstance(expr, cst.Comparison):
            return all(
                not isinstance(c.operator, cst.In | cst.NotIn | cst.Is | cst.IsNot)
                for c in expr.comparisons
            )
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.BitInvert):
            return self._is_mask_expr(expr.expression, state)
        if isinstance(expr, cst.BinaryOperation) and isinstance(
            expr.operator, cst.BitAnd | cst.BitOr
        ):
            return self._is_mask_expr(expr.left, state) or self._is_mask_expr(expr.right, state)
        if isinstance(expr, cst.Name):
            return expr.value in state.masks
        if isinstance(expr, cst.Call):
            if self.imports.resolve(expr.func) in _MASK_FUNCTIONS_QUALIFIED:
                return True
            return isinstance(expr.func, cst.Attribute) and expr.func.attr.value in _MASK_FUNCTIONS
        return False

    # -- events -------------------------------------------------------------------------

    def _edit(self, edit: _Edit, state: State, frame: Frame) -> None:
        if _through_data(edit.target):
            self._data_write(edit.node, _strip_data(edit.target), state, frame)
            return
        value = edit.value or self._peek(edit.target, state, frame)
        if not isinstance(value, Tensor):
            return
        saver = state.saved.get(value.storage)
        event = InplaceEdit(
            node=edit.node,
            statement=frame.statement,
            target=edit.target,
            form=edit.form,
            value=value,
            body=frame.body,
            grad=state.grad,
            saver=saver,
            mask=edit.mask,
            out_arg=edit.out_arg,
            proves_tensor=edit.proves_tensor,
            guarded=state.guarded,
            written=edit.written,
        )
        self.facts.edits.append(event)
        if state.grad is False:  # the version counter moves in any grad mode
            written = self.module.code_for_node(edit.target)
            step = graphs.Step(edit.node, written, frozenset({value.storage}), graphs.tick(), True)
            state.graphs = state.graphs.edited(step)
        statement = frame.statement
        by_name = isinstance(edit.target, cst.Name) and frame.body.node is not None
        if by_name and _discarded(statement, edit.node):
            # the edit's own value is dropped: the tensor is reached again only by name
            state.uses.edited(event, value.storage, statement)

    def _moves_or_casts(self, call: cst.Call, method: str) -> bool | None:
        """Whether `t.cuda()` / `t.to(...)` of a float32 CPU tensor returns a new tensor
        (a copy on another device or in another dtype); None when a device or dtype held
        in a variable decides."""
        if method == "cuda":
            return True
        copies = False
        for arg in call.args:
            value = arg.value
            if arg.keyword is not None and arg.keyword.value in ("non_blocking", "memory_format"):
                continue
            if arg.keyword is not None and arg.keyword.value == "copy":
                copies = copies or literal_bool(value) is True
                continue
            if isinstance(value, cst.Call) and self.imports.resolve(value.func) == "torch.device":
                value = value.args[0].value if value.args else value
            text = self._literal_of(value)
            if isinstance(text, str):  # a device: "cuda", "cuda:0", "cpu", a name holding one
                copies = copies or not text.startswith("cpu")
                continue
            dtype = (self.imports.resolve(value) or "").removeprefix("torch.")
            if dtype in ("float32", "float"):
                continue
            if dtype in _OTHER_FLOAT_DTYPES:
                copies = True
                continue
            return None
        return copies

    def _grow(self, node, expr, sequence: Seq, method: str, positional: list, state, frame) -> None:
        """`xs.append(v)` (`extend`, `insert`): an exact list one item (or `v`'s items)
        longer; otherwise from then on `xs` holds any number of items, each one of what it
        held or `v` (joined)."""
        if not positional:
            return
        extended = positional[0]
        if method != "extend":
            self._grown_attribute(node, expr, [*sequence.items, positional[-1]], state, frame)
        elif isinstance(extended, Seq):
            self._grown_attribute(node, expr, [*sequence.items, *extended.items], state, frame)
        name = dotted(expr)
        if name is None or name not in state.env:
            return
        if not sequence.any_length and method == "append":  # `layers.append(conv)`
            state.env[name] = Seq((*sequence.items, extended))
            return
        exact = isinstance(extended, Seq) and not extended.any_length
        if not sequence.any_length and method == "extend" and exact:
            state.env[name] = Seq(sequence.items + extended.items)
            return
        added = positional[-1:] if method != "extend" else [_element(extended, self.freezes)]
        item = None
        for position, value in enumerate([*sequence.items, *added]):
            item = value if position == 0 else join(item, value)
        state.env[name] = Seq((item,), any_length=True)

    def _written_into(self, target, sources: list, state: State, frame: Frame) -> None:
        """An in-place write of `sources` into `target`: a tensor that needed no grad
        requires grad once a value that does is written into it (unknown if unknown)."""
        value = self._peek(target, state, frame)
        if not isinstance(value, Tensor):
            return
        updated = _requiring(value, sources, state)
        if updated.grad is value.grad and updated.graph is value.graph:
            return
        for name, bound in list(state.env.items()):
            if isinstance(bound, Tensor) and bound.storage == value.storage:
                state.env[name] = replace(bound, grad=updated.grad, graph=updated.graph)

    def _peek(self, expr: cst.BaseExpression, state: State, frame: Frame):
        """The value of an edit's target, without recording it as read."""
        if isinstance(expr, cst.Name) and expr.value in state.env:
            self.evals += 1
            self.values[expr] = (state.env[expr.value], self.evals)
            return state.env[expr.value]
        pending, read = state.pending, set(frame.read_parameters)
        state.pending = []
        try:
            return self.eval(expr, state, frame)
        finally:
            state.pending, frame.read_parameters = pending, read

    def _data_write(self, node: cst.CSTNode, owner: cst.BaseExpression, state, frame) -> None:
        """A write through `param.data`: flagged in forward (after the parameter was used)
        and between a forward pass and its backward()."""
        name = dotted(owner)
        if name is None:
            return
        value = self._peek(owner, state, frame)
        if not isinstance(value, Tensor) or value.grad is not Grad.LEAF:
            return
        used = name in frame.read_parameters or any(
            name.startswith(module + ".") for module in frame.called_modules
        )
        if frame.body.role == "module_forward" and used:
            where = "inside forward(), after the forward pass used it"
            self.facts.data_writes.append(DataWrite(node, name, where))
            return
        frame.data_writes.append((frame.order, node, name))

    def _finish(self, frame: Frame) -> None:
        for order, node, name in frame.data_writes:
            if any(bound < order < at for at, bound in frame.backward_calls):
                where = "between a forward pass and its backward()"
                self.facts.data_writes.append(DataWrite(node, name, where))


@dataclass
class _Edit:
    node: cst.CSTNode
    target: cst.BaseExpression
    form: str
    value: Tensor | None = None
    mask: bool = False
    proves_tensor: bool = False
    out_arg: bool = False
    written: str | None = None


@dataclass(frozen=True)
class _Apply:
    """`Function.apply` of an autograd.Function of the file."""

    info: ClassInfo


@dataclass(frozen=True)
class Modules:
    """`module.modules()` / `children()`: setting `inplace` on them reaches every layer."""

    owner: Obj | None


class _Marker:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


# Expression type -> the Interpreter method that evaluates it (others are unknown).
_EVALUATORS: dict[type, Callable] = {
    cst.Name: Interpreter._name,
    cst.Attribute: Interpreter._attribute,
    cst.Subscript: Interpreter._subscript,
    cst.Call: Interpreter._call,
    cst.BinaryOperation: Interpreter._binary,
    cst.UnaryOperation: Interpreter._unary,
    cst.Tuple: Interpreter._display,
    cst.List: Interpreter._display,
    cst.Set: Interpreter._display,
    cst.Dict: Interpreter._dict,
    cst.ListComp: Interpreter._comprehension,
    cst.GeneratorExp: Interpreter._comprehension,
    cst.SetComp: Interpreter._comprehension,
    cst.DictComp: Interpreter._comprehension,
    cst.Comparison: Interpreter._comparison,
    cst.IfExp: Interpreter._if_expression,
    cst.BooleanOperation: Interpreter._boolean,
    cst.Integer: Interpreter._literal_constant,
    cst.Float: Interpreter._literal_constant,
    cst.SimpleString: Interpreter._literal_constant,
    cst.Ellipsis: Interpreter._ellipsis,
    cst.NamedExpr: Interpreter._named,
}


_UNSHARED = _Marker("a fact no construction is shared on")


def _fingerprint(value: Value | None):
    """A hashable stand-in equal for values a constructor cannot tell apart; _UNSHARED for
    tensors and numbers cut from them (their storages and graphs are each their own)."""
    if value is None or isinstance(value, ClassRef | Function):
        return value
    if isinstance(value, Obj):
        return value  # by identity
    if isinstance(value, Number) and value.cut is None:
        return value  # a number of unknown value, with no history to keep apart
    if isinstance(value, Const):
        try:
            hash(value.value)
        except TypeError:
            return _UNSHARED
        return (type(value.value), value.value)
    if isinstance(value, Seq):
        items = tuple(_fingerprint(v) for v in value.items)
        cycle = tuple(_fingerprint(v) for v in value.cycle) if value.cycle is not None else None
        if _UNSHARED in items or (cycle is not None and _UNSHARED in cycle):
            return _UNSHARED
        return (Seq, items, value.any_length, cycle)
    if isinstance(value, Mapping):
        items = tuple((k, _fingerprint(v)) for k, v in value.items)
        others = _fingerprint(value.others)
        if others is _UNSHARED or any(f is _UNSHARED for _, f in items):
            return _UNSHARED
        return (Mapping, items, others)
    return _UNSHARED


OPT_IN = Const(_Marker("opt-in flag"))
AN_INT = Const(_Marker("an int"))  # `len(x)`, a `range()` loop variable, `x.size(0)`
_SLICE = Const(_Marker("slice"))  # a flag whose default is False, left to the caller
_SUPER = Const(_Marker("super()"))
_STAR = Const(_Marker("*args"))
_NO_EFFECT = _Marker("no grad effect")
_NO_BODY = Body(None, None, False, None)


# -- helpers over values ------------------------------------------------------------------


def _returned(values: list) -> Value | None:
    """What a call gives back: its returns joined (unknown ones before a known one left out)."""
    result = None
    for value in values:
        result = value if result is None else join(result, value)
    return result


def _heard(frame: Frame, receiver: str | None, parameters, modules, data_writes) -> None:
    """What a method run on `receiver` read and wrote, as its caller's `frame` sees it:
    `self.x` read by the method is `<receiver>.x` there, and a `.data` write in a helper
    happens, for the caller, at the call."""
    if receiver is not None:
        for mine, theirs in ((frame.read_parameters, parameters), (frame.called_modules, modules)):
            mine.update(receiver + name[4:] for name in theirs if name.startswith("self."))
    frame.data_writes.extend((frame.order, at, name) for at, name in data_writes)


def _fingerprints(env: dict[str, Value | None]) -> tuple | None:
    """Each name with its value's `_fingerprint`, or None when a tensor is among them."""
    found = tuple((name, _fingerprint(value)) for name, value in sorted(env.items()))
    return None if any(fingerprint is _UNSHARED for _, fingerprint in found) else found


_NO_GRAPHS = graphs.Graphs()


def _alike(old: Value | None, new: Value | None) -> bool:
    """Whether storing `new` where `old` was changes nothing a run could tell."""
    fingerprint = _fingerprint(old)
    return fingerprint is not _UNSHARED and fingerprint == _fingerprint(new)


def _truth(value) -> bool | None:
    if isinstance(value, Const) and isinstance(value.value, bool | int | str | type(None)):
        return bool(value.value)
    return None


def _discarded(statement: cst.CSTNode | None, node: cst.CSTNode) -> bool:
    """`node` is the whole statement, or an expression statement whose value is dropped."""
    return statement is node or (isinstance(statement, cst.Expr) and statement.value is node)


def _items(container: Seq | Mapping) -> list:
    """What a list, tuple or dict holds (a dict: its values)."""
    if isinstance(container, Seq):
        return list(container.items)
    others = [container.others] if container.others is not None else []
    return [value for _, value in container.items] + others


def _held(value) -> frozenset[int] | None:
    """The parameters an optimizer updates, or a module holds (None: unknown)."""
    if isinstance(value, Optimizer):
        return value.storages or None
    if isinstance(value, Obj) and value.is_module:
        return optimizers.owned(value) or None
    return None


def _names_grad(target: cst.BaseExpression) -> bool:
    """`p.grad` (or a tuple holding one) as an assignment or `del` target."""
    if isinstance(target, cst.Tuple | cst.List):
        return any(_names_grad(element.value) for element in target.elements)
    return isinstance(target, cst.Attribute) and target.attr.value == "grad"


def _clears_gradients(call: cst.Call) -> bool:
    """`zero_grads(m)`, `m.zero_grad_all()`, `p.grad.zero_()`, `p.grad.data.mul_(0)`: a
    call named like zero_grad, or an in-place method on a `.grad`."""
    last = _last_name(call.func) or ""
    if "zero_grad" in last:
        return True
    return last.endswith("_") and ".grad." in (dotted(call.func) or "")


def _last_name(func: cst.BaseExpression) -> str | None:
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return func.value if isinstance(func, cst.Name) else None


def _storages(value, depth: int = 2):
    """The tensors a value holds (itself, or the items of a tuple / list / dict)."""
    if isinstance(value, Tensor):
        yield value.storage
    elif depth and isinstance(value, Seq):
        for item in value.items:
            yield from _storages(item, depth - 1)
    elif depth and isinstance(value, Mapping):
        for _, item in value.items:
            yield from _storages(item, depth - 1)


def _forget_names(node: cst.CSTNode, state: State) -> None:
    """Every plain name `node` mentions becomes unknown (it may bind or delete it)."""
    for child in iter_nodes(node):
        if isinstance(child, cst.Name):
            state.env[child.value] = None


def _unpack(value, count: int) -> list:
    if isinstance(value, Seq):
        if value.any_length:
            return [value.item(0)] * count
        if len(value.items) == count:
            return list(value.items)
    if isinstance(value, Tensor) and value.is_tensor and value.shape is not None:
        rows = value.shape.dims[0] if value.shape.dims else None
        if rows == count:  # `q, k, v = qkv` of a proven (3, ...) tensor: its rows
            return [_element(value, freezes=False)] * count
    return [None] * count


def _element(value, freezes: bool):
    """What iterating over `value` yields (`freezes`: the file switches requires_grad off
    somewhere, so a parameter met in a loop may be frozen)."""
    if isinstance(value, Parameters):  # `named_parameters()` yields (name, parameter)
        parameter = Tensor(new_storage(), Grad.LEAF, is_tensor=True, described="parameter")
        if value.owner is not None:  # one of the owner's parameters (`ANY_PARAMETER`)
            parameter = replace(value.owner.parameter(ANY_PARAMETER), grad=Grad.LEAF)
        if freezes or (value.owner is not None and value.owner.frozen):
            parameter = None
        return Seq((None, parameter)) if value.named else parameter
    if isinstance(value, Seq) and value.any_length:
        return value.item(0)
    if isinstance(value, Seq) and value.items and all(_is_dim(v) for v in value.items):
        return AN_INT
    if isinstance(value, Seq) and value.items:
        return functools.reduce(join, value.items)  # what every element is
    if isinstance(value, Obj) and "*" in value.attrs:
        return value.attrs["*"]
    if isinstance(value, Modules):
        return value
    if isinstance(value, Tensor):  # iterating a tensor unbinds it
        return replace(value.as_view(), multi_view="unbind", shape=row_shape(value.shape))
    return None


def _either_history(first, second):
    """`second` (a comprehension's second element), its tensors with the history of
    either element: a backward through the items goes through both."""
    if isinstance(first, Tensor) and isinstance(second, Tensor) and second.grad is Grad.ON:
        return replace(second, graph=graphs.either(first.graph, second.graph))
    if (
        isinstance(first, Seq)
        and isinstance(second, Seq)
        and len(first.items) == len(second.items)
        and first.any_length == second.any_length
    ):
        items = zip(first.items, second.items, strict=True)
        return Seq(tuple(_either_history(a, b) for a, b in items), second.any_length)
    return second


def _views(base: Tensor, op: str) -> Seq:
    view = replace(base.as_view(), multi_view=op)
    return Seq((view,), any_length=True)


def _is_dim(value) -> bool:
    """A dim argument (`x.max(1)`), not a second tensor (`torch.max(a, b)`)."""
    return value is AN_INT or (isinstance(value, Const) and type(value.value) is int)


def _literal(*values) -> bool:
    """Every value a known str, int or float (not a marker such as AN_INT)."""
    return all(isinstance(v, Const) and type(v.value) in (str, int, float, bool) for v in values)


def _identical(a, b) -> bool | None:
    """`a is b` where one side is None and the other is proven None or not."""
    for value, other in ((a, b), (b, a)):
        if value == Const(None):
            if other == Const(None):
                return True
            if isinstance(other, Tensor | Obj | Seq | Mapping | Function | ClassRef):
                return False
    return None


def _factory(qualified: str, requires_grad: bool | None) -> Tensor:
    """A new tensor from a factory or `nn.Parameter`; `requires_grad` as passed (None:
    decided at run time)."""
    storage = new_storage()
    if requires_grad is None:
        return Tensor(storage, Grad.UNKNOWN, is_tensor=True)
    if qualified == "torch.nn.Parameter":
        grad = Grad.LEAF if requires_grad else Grad.OFF
        return Tensor(storage, grad, is_tensor=True, described="parameter")
    contiguous = not qualified.endswith("_like")  # `*_like` keeps its model's layout
    if requires_grad:
        return Tensor(
            storage,
            Grad.LEAF,
            is_tensor=True,
            described="leaf tensor",
            contiguous=contiguous,
            plain_leaf=True,
        )
    buffer = qualified.rpartition(".")[2].removesuffix("_like") in _BUFFER_FACTORIES
    return Tensor(storage, Grad.OFF, is_tensor=True, buffer=buffer, contiguous=contiguous)


def _recurrent_outputs(kind: str, output: Tensor):
    """What a recurrent layer returns: `(output, h_n)`, `(output, (h_n, c_n))` for an
    LSTM, `(h, c)` for an LSTMCell; every piece comes from the same recorded op."""

    def piece() -> Tensor:
        return replace(output, storage=new_storage())

    if kind in ("torch.nn.RNN", "torch.nn.GRU"):
        return Seq((output, piece()))
    if kind == "torch.nn.LSTM":
        return Seq((output, Seq((piece(), piece()))))
    if kind == "torch.nn.LSTMCell":
        return Seq((output, piece()))
    return output


def _layer_saved(layer: Obj, inputs: list, learns: bool, saves_input: bool) -> set[int]:
    """What a layer call saves: a learning layer its input (for its weights' gradient),
    and its weights when an input requires grad (for that input's gradient)."""
    first = inputs[0] if inputs and isinstance(inputs[0], Tensor) else None
    saved = set()
    if learns or saves_input:
        saved.add(first.storage if first is not None else new_storage())
    if learns and any(isinstance(v, Tensor) and v.grad.requires_grad for v in inputs):
        saved |= {layer.parameter(name).storage for name in layer.parameters}
    return saved


def _requiring(target, sources: list, state: State):
    """`target` after values from `sources` were written into it in place."""
    if isinstance(target, Tensor) and target.grad is Grad.ON and state.grad:
        graph = graphs.record("", [target.graph, *_histories(sources)], ())
        return replace(target, graph=graph) if target.graph is not None else target
    if not isinstance(target, Tensor) or target.grad in (Grad.LEAF, Grad.ON):
        return target
    if any(isinstance(v, Tensor) and v.grad.requires_grad for v in sources) and state.grad:
        return replace(target, grad=Grad.ON, graph=graphs.record("", _histories(sources), ()))
    unknown = any(v is None or (isinstance(v, Tensor) and v.grad is Grad.UNKNOWN) for v in sources)
    if target.grad is Grad.OFF and (unknown or state.grad is None):
        return replace(target, grad=Grad.UNKNOWN)
    return target


def _gradients(loss, create_graph: bool | None, state: State) -> Seq:
    """What `torch.autograd.grad` returns: gradients with no history, or with the loss's
    history under `create_graph=True` (double backward goes through it)."""
    if create_graph is False or state.grad is False:
        gradient = Tensor(new_storage(), Grad.OFF, is_tensor=True)
    elif create_graph and isinstance(loss, Tensor) and loss.grad is Grad.ON:
        graph = graphs.record("", [loss.graph], ())
        gradient = Tensor(new_storage(), Grad.ON, is_tensor=True, graph=graph)
    else:
        gradient = Tensor(new_storage(), Grad.UNKNOWN, is_tensor=True)
    return Seq((gradient,), any_length=True)


def _distribution(parameters: list, state: State) -> Tensor | None:
    """`Normal(mu, sigma)`, `Categorical(logits=z)`: stands for its parameters' history
    (its `log_prob`, `entropy`, `rsample` are computed from them)."""
    tensors = [v for v in parameters if isinstance(v, Tensor)]
    if not state.grad or not any(t.grad is Grad.ON for t in tensors):
        return None
    return Tensor(new_storage(), Grad.ON, graph=graphs.record("", _histories(tensors), ()))


def _histories(values, depth: int = 2) -> list:
    """The autograd histories of `values`, tensors in a tuple included (an LSTM's
    `(h, c)` state)."""
    found = []
    for value in values:
        if isinstance(value, Tensor):
            found.append(value.graph)
        elif isinstance(value, Seq) and depth:
            found.extend(_histories(value.items, depth - 1))
    return found


def _result_of(positional: list, state: State):
    tensors = [v for v in positional if isinstance(v, Tensor)]
    if any(t.grad.requires_grad for t in tensors) and state.grad:
        graph = graphs.record("", _histories(tensors), ())
        return Tensor(new_storage(), Grad.ON, is_tensor=True, graph=graph)
    if tensors and len(tensors) == len(positional) and all(t.grad is Grad.OFF for t in tensors):
        return Tensor(new_storage(), Grad.OFF, is_tensor=True)
    return None


def _saved_input_setup(spelled: str | None, position: int, facts, inputs: list) -> str:
    """A witness program's setup: `t` is the saved input, `out` a result whose backward
    reads it (the other operand requires grad when only it makes torch save `t`)."""
    if spelled is None:
        return "t = torch.randn(4, 4, requires_grad=True) * 1\nout = t * t"
    names = ["w" if i != position else "t" for i in range(len(inputs))]
    names = [n if isinstance(v, Tensor) else "0" for n, v in zip(names, inputs, strict=True)]
    names[position] = "t"
    other_needed = facts.saves_args_if_other_requires_grad
    t_line = "t = torch.randn(4, 4)" if other_needed else "t = torch.randn(4, 4).requires_grad_()"
    return f"{t_line}\nw = torch.randn(4, 4, requires_grad=True)\nout = {spelled.format(*names)}"


def _saved_output_setup(spelled: str | None, arity: int) -> str:
    """A witness program's setup: `t` is an output its op saved, `out` the same tensor."""
    if spelled is None:
        return "h = torch.randn(4, 4, requires_grad=True)\nt = h.exp()\nout = t"
    names = ["h", *["0"] * (arity - 1)]
    return f"h = torch.randn(4, 4, requires_grad=True)\nt = {spelled.format(*names)}\nout = t"


def _variable(call: cst.Call, data) -> Tensor | None:
    """`Variable(t, requires_grad=...)`: a leaf sharing `t`'s storage (detached from `t`'s
    graph), requiring grad only if asked."""
    if not isinstance(data, Tensor):
        return None
    flag = literal_bool(_argument(call, "requires_grad", 1))
    if flag is None and _argument(call, "requires_grad", 1) is not None:
        return replace(data, grad=Grad.UNKNOWN, leaf_view=False, buffer=False)
    if flag:
        plain = becomes_plain_leaf(data, True)
        return replace(
            data,
            grad=Grad.LEAF,
            leaf_view=False,
            buffer=False,
            described="leaf tensor",
            plain_leaf=plain,
        )
    return replace(data, grad=Grad.OFF, leaf_view=False)


def _combined(value, state: State):
    if isinstance(value, Seq):
        result = _result_of(list(value.items), state)
        return replace(result, cut=cuts.inherited(value.items)) if result is not None else None
    return None


def _argparse(parser: Obj, name: str, args):
    """`parser.add_argument("--lr", default=0.1)` records a default; `parse_args()` gives
    a namespace holding every literal default, as a script run without flags has."""
    positional, keywords = args
    if name == "add_argument":
        flags = [v.value for v in positional if isinstance(v, Const) and isinstance(v.value, str)]
        dest = keywords.get("dest")
        long = next((f for f in flags if f.startswith("--")), flags[0] if flags else None)
        key = dest.value if isinstance(dest, Const) else long
        if not isinstance(key, str):
            return None
        action = keywords.get("action")
        default = keywords.get("default", Const(None))
        if isinstance(action, Const) and action.value in ("store_true", "store_false"):
            default = Const(action.value == "store_false")
        parser.attrs[key.lstrip("-").replace("-", "_")] = (
            default if isinstance(default, Const) else None
        )
        return None
    if name in ("parse_args", "parse_known_args"):
        namespace = Obj("argparse.Namespace", attrs=dict(parser.attrs))
        return namespace if name == "parse_args" else Seq((namespace, None))
    return None


def _inplace_flag(layer: Obj):
    if layer.attrs.get("inplace") is not None:
        return layer.attrs["inplace"]
    facts = knowledge.layer(layer.kind)
    if facts is None or facts.inplace_arg is None or layer.constructor is None:
        return Const(False)
    position, keyword = facts.inplace_arg
    flag = _argument(layer.constructor, keyword, position)
    if flag is None:
        return Const(False)
    value = literal_bool(flag)
    if value is not None:
        return Const(value)
    return None


def _force_inplace(obj: Obj | None, statement: cst.CSTNode | None, seen=None) -> None:
    if obj is None:
        return
    seen = seen if seen is not None else set()
    if id(obj) in seen:
        return
    seen.add(id(obj))
    facts = knowledge.layer(obj.kind)
    if facts is not None and facts.inplace_arg is not None:
        obj.attrs["inplace"] = Const(True)
        obj.inplace_at = statement
    for value in obj.attrs.values():
        if isinstance(value, Obj):
            _force_inplace(value, statement, seen)


# math functions of one positive number the interpreter computes (a scale in a formula)
_MATH_OF_NUMBERS = {"math.sqrt": math.sqrt, "math.log": math.log, "math.log2": math.log2}


def _constant_arithmetic(operator, a, b):
    if not isinstance(a, int | float) or not isinstance(b, int | float):
        return None
    if isinstance(a, bool) or isinstance(b, bool):
        return None
    name = type(operator).__name__
    try:
        if name == "Add":
            return Const(a + b)
        if name == "Subtract":
            return Const(a - b)
        if name == "Multiply":
            return Const(a * b)
        if name == "FloorDivide" and b:
            return Const(a // b)
        if name == "Modulo" and b:
            return Const(a % b)
        if name == "Divide" and b:
            return Const(a / b)
        if name == "Power" and abs(b) <= 64 and (a or b > 0):
            result = a**b
            return Const(result) if isinstance(result, int | float) else None
    except OverflowError:
        return None
    return None


def _is_optimizer_class(qualified: str) -> bool:
    """`torch.optim.SGD`, `torch.optim.adamw.AdamW` (not the schedulers)."""
    parts = qualified.split(".")
    return (
        parts[:2] == ["torch", "optim"]
        and len(parts) in (3, 4)
        and parts[-1][:1].isupper()
        and not {"lr_scheduler", "swa_utils"} & set(parts)
    )


def _sequence_arithmetic(operator, a, b):
    """`[x] + rest` and `[x] * n` on lists and tuples (`xs += ys` too)."""
    name = type(operator).__name__.removesuffix("Assign")
    if name == "Add" and isinstance(a, Seq) and isinstance(b, Seq):
        if not a.any_length and not b.any_length:
            return Seq(a.items + b.items)
        if a.cycle is not None and not b.any_length and same_items(a.cycle, b.items):
            return a  # one more pass of the loop that grew it
        return Seq((join(a.item(0), b.item(0)),), any_length=True)
    if name == "Multiply":
        seq = a if isinstance(a, Seq) else b
        if isinstance(seq, Seq) and len(seq.items) == 1:
            return Seq(seq.items, any_length=True)
    return None


def _is_module_wrapper(qualified: str) -> bool:
    """`DataParallel(m)`, `DistributedDataParallel(m)`, FSDP(m): a module holding `m`."""
    last = qualified.rpartition(".")[2]
    wrappers = ("torch.nn.DataParallel", "torch.nn.parallel.", "torch.distributed.fsdp.")
    return qualified.startswith(wrappers) and last[:1].isupper()


def _is_layer_class(qualified: str) -> bool:
    head, _, last = qualified.rpartition(".")
    return (
        (head == "torch.nn" or head.startswith("torch.nn.modules"))
        and last[:1].isupper()
        and qualified not in ops.NN_NON_MODULE_CLASSES
    )


# -- helpers over syntax ------------------------------------------------------------------


def _functions(module: cst.Module, index: ModuleIndex) -> dict[cst.FunctionDef, ClassInfo | None]:
    """Every function of the file, with the class it is a method of."""
    found: dict[cst.FunctionDef, ClassInfo | None] = {}
    # iterators of statement lists, innermost last: no recursion, and no closure that
    # refers to itself (a cycle only the garbage collector would free, the tree with it)
    stack: list[tuple[Iterator[cst.CSTNode], ClassInfo | None]] = [(iter(module.body), None)]
    while stack:
        statements, owner = stack[-1]
        statement = next(statements, None)
        if statement is None:
            stack.pop()
        elif isinstance(statement, cst.FunctionDef):
            found[statement] = owner
            stack.append((iter(statement.body.body), None))
        elif isinstance(statement, cst.ClassDef):
            stack.append((iter(statement.body.body), index.by_node.get(statement)))
        elif isinstance(statement, cst.If | cst.Try | cst.With | cst.For | cst.While):
            stack.append((itertools.chain.from_iterable(nested_blocks(statement)), owner))
    return found


def _bound_once(module: cst.Module) -> set[str]:
    """Names the module's own statements (outside functions and classes) bind once."""
    bindings = _ModuleBindings()
    visit(module, bindings)
    return {name for name, count in bindings.counts.items() if count == 1}


class _ModuleBindings(cst.CSTVisitor):
    """How often the module's own statements bind each name (a loop target counts twice,
    an augmented assignment rebinds); function and class bodies are not entered."""

    def __init__(self) -> None:
        self.counts: collections.Counter[str] = collections.Counter()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.counts[node.name.value] += 1
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.counts[node.name.value] += 1
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        _count_targets(node.target, self.counts)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        _count_targets(node.target, self.counts)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        _count_targets(node.target, self.counts, twice=True)

    def visit_For(self, node: cst.For) -> None:
        _count_targets(node.target, self.counts, twice=True)

    def visit_AsName(self, node: cst.AsName) -> None:
        _count_targets(node.name, self.counts)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        _count_targets(node.target, self.counts)


def _count_targets(target, counts, twice: bool = False) -> None:
    if isinstance(target, cst.Name):
        counts[target.value] += 2 if twice else 1
    elif isinstance(target, cst.Tuple | cst.List):
        for element in target.elements:
            _count_targets(element.value, counts, twice)
    elif isinstance(target, cst.StarredElement):
        _count_targets(target.value, counts, twice)


@dataclass
class _Calls:
    names: set[str] = field(default_factory=set)
    backward: bool = False
    clears: bool = False  # clears gradients (`zero_grad()`, `p.grad = None`, ...)


class CallScan(cst.CSTVisitor):
    """Which names each body calls, and whether it calls backward(). Its hooks ride on the
    engine's one walk of the file (FileContext.walkers); `complete` once it has left the
    module."""

    def __init__(self) -> None:
        self.complete = False
        self.by_body: dict[cst.FunctionDef | None, _Calls] = {None: _Calls()}
        self.stack: list[cst.FunctionDef | None] = [None]
        self.dirty: dict[cst.FunctionDef, set[str]] = {}
        self.freezes = False  # something switches requires_grad off
        self.built_inside: set[str] = set()  # classes called inside a function or method
        self.by_callee: dict[str, list[cst.Call]] = {}  # `f(...)` calls by the name called

    def leave_Module(self, node: cst.Module) -> None:
        self.complete = True

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            attribute = target.target
            if isinstance(attribute, cst.Attribute) and attribute.attr.value == "requires_grad":
                self.freezes = self.freezes or literal_bool(node.value) is not True
            if _names_grad(attribute):
                self.by_body[self.stack[-1]].clears = True

    def visit_Del(self, node: cst.Del) -> None:
        if _names_grad(node.target):
            self.by_body[self.stack[-1]].clears = True

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.stack.append(node)
        self.by_body.setdefault(node, _Calls())

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.stack.pop()

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name):
            self.by_callee.setdefault(node.func.value, []).append(node)
        calls = self.by_body[self.stack[-1]]
        name = dotted(node.func) or ""
        if name and (name.count(".") == 0 or (name.startswith("self.") and name.count(".") == 1)):
            calls.names.add(name)
        func = node.func
        last = func.attr.value if isinstance(func, cst.Attribute) else name
        if last in ("backward", "grad"):
            calls.backward = True
        calls.clears = calls.clears or _clears_gradients(node)
        if last == "requires_grad_" and node.args and literal_bool(node.args[0].value) is False:
            self.freezes = True
        if self.stack[-1] is not None and last[:1].isupper():
            self.built_inside.add(last)
        if last == "mark_dirty" and self.stack[-1] is not None:
            marked = self.dirty.setdefault(self.stack[-1], set())
            marked.update(dotted(a.value) or "" for a in node.args)


def _maps_items(expr, clause, source) -> bool:
    """A comprehension with one clause and no condition over a short sequence of known
    length: it has one item per item of the source."""
    return (
        clause is expr.for_in
        and clause.inner_for_in is None
        and not clause.ifs
        and isinstance(source, Seq)
        and not source.any_length
        and 0 < len(source.items) <= _MAPPED_ITEMS
    )


def _comp_clauses(for_in):
    while for_in is not None:
        yield for_in
        for_in = for_in.inner_for_in


def _backward_role(node: cst.FunctionDef, owner: ClassInfo | None) -> str | None:
    """An autograd.Function's backward: its arguments after ctx are incoming gradients."""
    if owner is not None and owner.kind is ClassKind.AUTOGRAD_FUNCTION:
        return "function_backward" if node.name.value == "backward" else None
    return None


def _takes_self(node: cst.FunctionDef) -> bool:
    return bool(node.params.params) and not any(
        dotted(d.decorator) in ("staticmethod", "classmethod") for d in node.decorators
    )


def _positional(node: cst.FunctionDef, owner: ClassInfo | None, role: str | None) -> list:
    params = list(node.params.params)
    if owner is not None and _takes_self(node):
        params = params[1:]
    if role in ("function_forward", "function_backward") and params:
        params = params[1:]  # ctx
    return params


def _annotated_tensor(param: cst.Param, imports: ImportTable) -> bool:
    """`x: torch.Tensor`, or optional (`torch.Tensor | None`, `Optional[torch.Tensor]`):
    a tensor wherever it is used as one."""
    if param.annotation is None:
        return False
    annotation = param.annotation.annotation
    if isinstance(annotation, cst.BinaryOperation) and isinstance(annotation.operator, cst.BitOr):
        sides = [annotation.left, annotation.right]
    elif (
        isinstance(annotation, cst.Subscript)
        and imports.resolve(annotation.value) == "typing.Optional"
        and len(annotation.slice) == 1
        and isinstance(annotation.slice[0].slice, cst.Index)
    ):
        sides = [annotation.slice[0].slice.value, cst.Name("None")]
    else:
        sides = [annotation]
    tensors = [side for side in sides if imports.resolve(side) == "torch.Tensor"]
    others = [side for side in sides if not (isinstance(side, cst.Name) and side.value == "None")]
    return len(tensors) == 1 and len(others) == 1


def _receiver(call: cst.Call, method: cst.FunctionDef) -> str | None:
    """The dotted name of the object a method runs on at `call`: `self.enc` for
    `self.enc(x)` (its forward) and for `self.enc.encode(x)`, `self` for `super().f(x)`."""
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value == method.name.value:
        owner = func.value
        if isinstance(owner, cst.Call) and dotted(owner.func) == "super":
            return "self"
        return dotted(owner)
    return dotted(func)


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


def _layer_has(layer: cst.Call, attr: str) -> bool:
    """False when the constructor call switched that parameter off (`bias=False`, ...)."""
    for flag in ("affine", "elementwise_affine"):
        if literal_bool(_argument(layer, flag, None)) is False:
            return False
    return not (attr == "bias" and literal_bool(_argument(layer, "bias", None)) is False)


def _basic(index) -> bool:
    """An index that selects without copying (int, slice, None, ...): a view."""
    if index is _SLICE or index is AN_INT or isinstance(index, Size):
        return True
    return isinstance(index, Const) and (
        index.value is None or index.value is Ellipsis or type(index.value) is int
    )


def _copies_itself(call: cst.Call, func: cst.Attribute) -> bool:
    """`t.copy_(t)`: the values do not change."""
    if func.attr.value != "copy_" or not call.args:
        return False
    source = dotted(call.args[0].value)
    return source is not None and source == dotted(func.value)


def _snippet(code: str) -> str:
    line = code.strip().splitlines()[0]
    return line if len(line) <= 60 else line[:57] + "..."


def _chain(expr: cst.BaseExpression):
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


def _zip_arguments(expr) -> list | None:
    if isinstance(expr, cst.Call) and dotted(expr.func) == "zip":
        return [arg.value for arg in expr.args]
    return None
