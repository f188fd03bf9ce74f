"""Calls: dispatch, argument binding, inlining of the file's functions and methods, module
calls and forward, constructors, builtins' iteration, summaries' caller effects."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import libcst as cst

from gradlint.analysis import knowledge
from gradlint.analysis.context import (
    ClassInfo,
    ClassKind,
)
from gradlint.analysis.dataflow import (
    cuts,
    freezing,
    graphs,
    loaders,
    optimizers,
    summaries,
)
from gradlint.analysis.dataflow.events import (
    Body,
    ContainerPassed,
    FunctionApplied,
    FunctionCall,
    ModuleCall,
    ModuleRegistration,
    Place,
)
from gradlint.analysis.dataflow.interpreter.common import (
    _CONTAINERS,
    _LIST_GROWTH,
    _PARAMETER_ITERATORS,
    _SAME_MODULE_METHODS,
    AN_INT,
    MAX_DEPTH,
    MAX_STEPS,
    _argument,
    _clears_gradients,
    _combined,
    _discarded,
    _element,
    _fresh_result,
    _heard,
    _histories,
    _last_name,
    _returned,
    _storages,
    _takes_self,
    _truth,
    keeps_trainable,
)
from gradlint.analysis.dataflow.interpreter.state import (
    Frame,
    Modules,
    State,
    _Apply,
    _Edit,
    _Marker,
    saved_after,
)
from gradlint.analysis.dataflow.uses import (
    FOLLOW,
    NO_GRADIENT,
    carries_no_gradient,
    values_and_indices,
)
from gradlint.analysis.dataflow.values import (
    ClassRef,
    Const,
    Function,
    Grad,
    LayerClass,
    Mapping,
    Number,
    Obj,
    Optimizer,
    Parameters,
    Seq,
    Tensor,
    Value,
    becomes_plain_leaf,
    join,
    new_storage,
    replace,
)
from gradlint.analysis.names import dotted
from gradlint.analysis.walk import iter_nodes

_INTEGER_CASTS = frozenset({"to", "type", "long", "int"})


_ITERATION_BUILTINS = frozenset(
    {"enumerate", "zip", "list", "tuple", "reversed", "sorted", "iter", "range"}
)


# builtins that only read the containers they are given, or copy their items
_READING_BUILTINS = _ITERATION_BUILTINS | {"len", "print", "isinstance", "set"}


# calls registering a module's attribute by name
_REGISTERING = frozenset({"add_module", "register_module", "register_parameter", "__setattr__"})


# module methods `_module_method` models by changing the instance (or its layers)
_CHANGING_METHODS = _REGISTERING | _LIST_GROWTH | {"register_buffer", "requires_grad_"}


_CHANGING_METHODS |= {"add_argument"}  # argparse's


_SUPER = Const(_Marker("super()"))


_STAR = Const(_Marker("*args"))


_NO_BODY = Body(None, None, False, None)
# classes whose keyword arguments become attributes: a config object
_NAMESPACES = frozenset({"types.SimpleNamespace", "argparse.Namespace"})
# numpy functions that convert a tensor argument itself into an array
_NUMPY_CONSTRUCTORS = frozenset(
    {"numpy.array", "numpy.asarray", "numpy.asanyarray", "numpy.ascontiguousarray"}
)


def _length(value):
    """`len(value)`: the count of a list or tuple of known items; any int otherwise."""
    if isinstance(value, Seq) and not value.any_length:
        return Const(len(value.items))
    return AN_INT


def _held(value) -> frozenset[int] | None:
    """The parameters an optimizer updates, or a module holds (None: unknown)."""
    if isinstance(value, Optimizer):
        return value.storages or None
    if isinstance(value, Obj) and value.is_module:
        return optimizers.owned(value) or None
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


# math functions of one positive number the interpreter computes (a scale in a formula)
_MATH_OF_NUMBERS = {"math.sqrt": math.sqrt, "math.log": math.log, "math.log2": math.log2}


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


class Calls:
    """The interpreter's calls: mixed into `Interpreter`, over its shared state."""

    def _isinstance(self, value, classes: cst.BaseExpression) -> bool | None:
        """`isinstance(value, classes)` when the value's kind decides it: a tuple or list
        against classes naming both `tuple` and `list`, a tensor against `torch.Tensor`,
        and either against plain types it cannot be; None otherwise (a tuple and a list
        are one kind of value here)."""
        nodes = [e.value for e in classes.elements] if isinstance(classes, cst.Tuple) else [classes]
        names = set()
        for node in nodes:
            name = self.imports.resolve(node) or (
                node.value if isinstance(node, cst.Name) else None
            )
            if name is None:
                return None
            names.add(name)
        plain = {"int", "float", "str", "bool", "dict", "bytes"}
        if isinstance(value, Seq):
            if {"tuple", "list"} <= names:
                return True
            return False if names <= plain | {"torch.Tensor"} else None
        if isinstance(value, Tensor) and value.is_tensor:
            if "torch.Tensor" in names:
                return True
            return False if names <= plain | {"tuple", "list"} else None
        return None

    def _defines(self, receiver, name: str) -> bool:
        """Whether `receiver` is an instance of a file's class that defines method `name`."""
        return (
            isinstance(receiver, Obj)
            and receiver.info is not None
            and (self._method(receiver.info, name) is not None)
        )

    def _call(self, call: cst.Call, state: State, frame: Frame):
        self.evaluated[call] += 1
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
            if method == "detach" and not call.args:
                quietly = functools.partial(self._quietly, mode)
                receiver = self._detached(func.value, state, frame, quietly)
            else:
                receiver = self._quietly(mode, func.value, state, frame)
        keeps = self._may_keep(func, receiver, state)
        args = self._arguments(call, state, frame, keeps)
        state.uses.quiet = quiet
        self._registration(call, method, receiver, args, state, frame)
        if method == "backward" and not self._defines(receiver, "backward"):
            # `loss.backward()`, or `fabric.backward(loss)`: the loss is the argument when
            # the receiver is not a tensor (an instance of a file's class defining its own
            # `backward` runs it: its `loss.backward()` is the one)
            operand = dotted(func.value)
            loss, loss_node = receiver, func.value
            if not isinstance(receiver, Tensor) and call.args and not call.args[0].keyword:
                operand = dotted(call.args[0].value)
                loss, loss_node = args[0][0] if args[0] else None, call.args[0].value
            if qualified is None:  # (torch.autograd.backward below)
                limit = 1 if isinstance(receiver, Tensor) else 2
                accepted = knowledge.backward_keywords("torch.Tensor.backward")
                keeps = graphs.keeps_graph(call, limit, self._truth_of(state, frame), accepted)
                self._backward(call, loss, loss_node, keeps, state, frame)
            elif qualified != "torch.autograd.backward":  # of an imported object
                self._trace("backward", call, frame)
            if operand in frame.bound_at:
                reached = graphs.storages_reached(loss.graph) if isinstance(loss, Tensor) else None
                frame.backward_calls.append((frame.order, frame.bound_at[operand], reached))
        if method == "step":
            first = args[0][0] if args[0] else None
            idle = self._idle_step(receiver, args, state)
            self._trace("step", call, frame, receiver=receiver, argument=first, idle=idle)
            self._step(call, receiver, args, state)
        if method == "zero_grad":
            self._trace("zero_grad", call, frame, receiver=receiver, storages=_held(receiver))
            self._zero_grad(call, receiver, state)
        elif _clears_gradients(call) or (
            # a call that may be the file's function of that name clearing gradients: not
            # a method of a value known to be something else (`optimizer.step()` when a
            # GAN class's own `step` clears its generator), nor one of the receiver's own
            # class, which runs inline with its own events
            _last_name(func) in self.clearing and (isinstance(func, cst.Name) or receiver is None)
        ):
            self._trace("clear", call, frame)
        out = _argument(call, "out", None)
        if out is not None and qualified and qualified.startswith("torch."):
            self._edit(_Edit(call, out, "torch.add(x, 1.0, out=t)", out_arg=True), state, frame)
        if qualified in ("torch.autograd.backward", "torch.autograd.grad"):
            backward = qualified == "torch.autograd.backward"
            keyword = "tensors" if backward else "outputs"
            loss_node = _argument(call, keyword, 0)
            limit, accepted = 2 if backward else 3, knowledge.backward_keywords(qualified)
            keeps = graphs.keeps_graph(call, limit, self._truth_of(state, frame), accepted)
            loss = args[0][0] if args[0] else args[1].get(keyword)
            if loss_node is not None:
                self._backward(call, loss, loss_node, keeps, state, frame)
        mapping = isinstance(receiver, Mapping) and receiver.others is None
        if method == "values" and mapping and not call.args:  # `optimizers.values()`
            return Seq(tuple(value for _, value in receiver.items))
        if qualified in loaders.LOADERS and _STAR not in args[0]:
            batches = loaders.loader(args[0], args[1])
            if batches is not None:
                return batches
        if qualified is not None and qualified.startswith("torch."):
            result = self._torch_call(call, qualified, args, state, frame)
            return self._typed(call, qualified.rpartition(".")[2], args, result, state)
        if qualified == "argparse.ArgumentParser":
            return Obj(qualified)
        if qualified is not None and qualified.startswith("torchvision.") and _STAR not in args[0]:
            known = loaders.transform(qualified, args[0]) or loaders.dataset(
                qualified, args[1], AN_INT
            )
            if known is not None:
                return known
        if qualified in _NAMESPACES and not args[0]:  # a config object
            return Obj(qualified, arguments=([], dict(args[1])), attrs=dict(args[1]))
        if qualified in _MATH_OF_NUMBERS and len(args[0]) == 1 and not args[1]:
            number = args[0][0].value if isinstance(args[0][0], Const) else None
            if type(number) in (int, float) and number > 0:  # `x / math.sqrt(head_dim)`
                return Const(_MATH_OF_NUMBERS[qualified](number))
        if qualified is not None and qualified.startswith(("numpy.", "math.")):
            values = [*args[0], *args[1].values()]
            if qualified.count(".") == 1 and args[0]:
                self._numpy_function(call, qualified, args[0][0], frame)
            if any(isinstance(v, Tensor | Number) for v in values):
                return cuts.number(f"`{qualified}(...)`", values, qualified.startswith("numpy."))
        if isinstance(func, cst.Name) and func.value not in state.env:
            if func.value == "super":
                return _SUPER
            if func.value in _ITERATION_BUILTINS:
                return self._iteration(func.value, args[0])
            if func.value == "filter" and len(args[0]) == 2 and not args[1]:
                return self._filtered(call, args[0][1])
            if func.value in ("float", "int") and args[0] and isinstance(args[0][0], Tensor):
                return cuts.number(f"`{func.value}(...)`", args[0][:1])
            if func.value == "len" and len(args[0]) == 1 and not args[1]:
                return _length(args[0][0])
            if func.value in ("len", "int"):
                return AN_INT
            if func.value == "isinstance" and len(call.args) == 2 and len(args[0]) == 2:
                decided = self._isinstance(args[0][0], call.args[1].value)
                if decided is not None:
                    return Const(decided)
            if func.value == "sum" and args[0] and isinstance(args[0][0], Seq):
                return _combined(args[0][0], state)  # `sum(losses)`: a tensor of them all
            if func.value == "dict" and not args[0]:
                return Mapping(tuple(args[1].items()))  # `dict(x=..., y=...)`
            if func.value == "type" and len(args[0]) == 1 and isinstance(args[0][0], Obj):
                info = args[0][0].info  # `type(self)(...)`: the instance's own class
                return ClassRef(info) if info is not None else None
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
                if func.attr.value in ("train", "eval") and receiver.is_module:
                    mode = _mode_set(func.attr.value, args)
                    self._trace("mode", call, frame, receiver=receiver, mode=mode)
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
        if isinstance(callee, LayerClass):  # `ACTIVATION_DICT[name]()`, `norm_layer(c)`
            return self._torch_call(call, callee.qualified, args, state, frame)
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

    def _switches_grad(self, decorator: cst.BaseExpression) -> bool:
        """A decorator that is (or whose factory is) a function of the file using a grad
        mode switch (yolov5's `smart_inference_mode()` wraps in `torch.inference_mode()`)."""
        target = decorator.func if isinstance(decorator, cst.Call) else decorator
        node = self.top_level.get(target.value) if isinstance(target, cst.Name) else None
        if node is None:
            return False
        return any(
            isinstance(inner, cst.Attribute | cst.Name)
            and self.imports.resolve(inner) in _GRAD_SWITCHES
            for inner in iter_nodes(node)
        )

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

    def _numpy_function(self, call: cst.Call, qualified: str, first, frame: Frame) -> None:
        """`np.mean([loss, ...])`, `np.array(t)`: numpy turns a list or tuple into an
        array item by item, and its array constructors turn a tensor into one; other
        functions given a tensor call its own method (`np.mean(t)` is `t.mean(axis=...)`)."""
        if isinstance(first, Seq) or qualified in _NUMPY_CONSTRUCTORS:
            self._to_numpy(call, f"`{qualified}(...)`", [first], frame)

    def _filtered(self, call: cst.Call, iterable):
        """`filter(lambda p: p.requires_grad, m.parameters())`: the parameters of `m` not
        proven frozen (an optimizer's usual argument); other filters are unknown."""
        if not isinstance(iterable, Parameters) or not keeps_trainable(call.args[0].value):
            return None
        storages = optimizers.drawn(iterable, trainable_only=True)
        element = _element(iterable, self.freezes)
        return Seq((element,), any_length=True, parameters=storages)

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
            storages = None
            if builtin in ("list", "tuple") and isinstance(positional[0], Parameters):
                storages = optimizers.drawn(positional[0])
            element = _element(positional[0], self.freezes)
            return Seq((element,), any_length=True, parameters=storages)
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
            elif arg.star == "**" and isinstance(value, Mapping) and value.others is None:
                keywords.update(value.items)  # a dict of known keys: each a keyword
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
        # a helper function run from a method registers for that method's class (x-
        # transformers' `set_module_by_path(net, path, wrapper)`, a setattr by path)
        within = frame.owner or self.functions.get(frame.body.standalone)
        event = ModuleRegistration(call, method, module, within, name)
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
            before = len(self.facts.edits)
            output = self._layer_call(call, obj, args, state, frame, label)
            if label is None and args is not None:
                self._watch_layer_side_edits(call, args, output, state, frame, before)
            return self.shapes.layer_output(call, obj, args[0], output)
        if obj.info is None:
            return None
        if label is None and args is not None and obj.info.kind is not ClassKind.UNKNOWN:
            # `call`'s own arguments (not a later stage's), of a class the probe can build
            self.facts.module_calls.append(ModuleCall(obj, call, args, frame.body.node))
        if forward is None:
            return self._sequential_subclass(call, obj, args, state, frame)
        return self._inline(call, forward, obj, args, state, frame)

    def _watch_layer_side_edits(self, call, args, output, state, frame, before: int) -> None:
        """A torch layer (a Sequential whose first stage is `ReLU(inplace=True)`) called
        for a result of its own that edited an argument in place on the way: the caller
        reading that argument again reads the edited values."""
        if not isinstance(output, Tensor) or _discarded(frame.statement, call):
            return
        positional, keywords = args
        edited = [
            value
            for value in [*positional, *keywords.values()]
            if isinstance(value, Tensor) and value.storage != output.storage
        ]
        if edited:
            edits = self.facts.edits[before:]
            self._watch_caller_reads((edited, {}), state, frame, edits, {output.storage})

    def _sequential_subclass(self, call: cst.Call, obj: Obj, args, state, frame):
        """A file's subclass of `nn.Sequential` that defines no forward (its `__init__`
        fills it with `add_module` or attribute assignments): nn.Sequential's forward runs
        the registered modules in their order, each on the previous one's output."""
        if not self._extends(obj.info, "torch.nn.Sequential") or args is None:
            return None
        value = args[0][0] if len(args[0]) == 1 and not args[1] else None
        stages = [(k, v) for k, v in obj.attrs.items() if isinstance(v, Obj) and v.is_module]
        if value is None or not stages:
            return None
        container, previous = self._text(call.func), None
        for name, stage in stages:
            label = f"the output of `{container}.{previous}`" if previous else None
            value = self._call_module(call, stage, ([value], {}), state, frame, label)
            previous = name
        return value

    def _extends(self, info: ClassInfo | None, qualified: str) -> bool:
        """The file's class derives from `qualified` (through the file's own classes)."""
        seen = set()
        while info is not None and info not in seen:
            seen.add(info)
            if any(self.imports.resolve_name(base) == qualified for base in info.base_names):
                return True
            info = next(
                (self.index.by_name[b] for b in info.base_names if b in self.index.by_name), None
            )
        return False

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
        self.inlined_at[call, node] += 1
        env = self._bind_call(node, owner, bound, args)
        callee_grad = state.grad
        for decorator in node.decorators:
            effect = self.scope.grad_effect(decorator.decorator)
            if effect is not None:
                callee_grad = effect
            elif self._switches_grad(decorator.decorator):
                callee_grad = None  # a decorator of the file that may run it in another mode
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
        own = callee.own_module_writes
        callee.data_writes = [w for w in callee.data_writes if w.node not in own]
        exits = [*callee.exits, end] if end is not None else callee.exits
        if arguments is not None:
            self._summarise(node, arguments, (inner, callee_grad, exits), callee, recorded)
        reads = callee.read_parameters, callee.called_modules
        _heard(frame, receiver, *reads, callee.data_writes)
        state.saved.clear()  # the callee's saved map continues the caller's
        state.saved.update(saved_after(inner, exits))
        if exits:
            state.graphs = functools.reduce(graphs.Graphs.join, (e.graphs for e in exits))
        if exits and callee.sets_grad:  # `torch.set_grad_enabled(False)` outlives the call
            modes = {e.grad for e in exits}
            state.grad = modes.pop() if len(modes) == 1 else None
            frame.sets_grad = True  # and the call outlives this one (`train_epoch()`)
        for storage in _fresh_result(callee.returns, exits):
            state.uses.saved_output(storage)
        returned = {s for value in callee.returns for s in _storages(value)}
        for_result = bool(callee.returns) and not _discarded(frame.statement, call)
        edits = self.facts.edits[before:]
        self._watch_caller_reads(args, state, frame, edits, returned if for_result else None)
        self._flags_of_arguments(args, state, self.facts.requires_grad_changes[flags_before:])
        return _returned(callee.returns)

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
            return Seq((Seq((None, Modules(obj, item=True))),), any_length=True)
        if name in _SAME_MODULE_METHODS:
            if name == "requires_grad_":
                flag = _truth(args[0][0]) if args[0] else True
                if flag is False and not self.undecided:
                    freezing.freeze(obj)
                elif flag is False:
                    freezing.may_freeze(obj)
                else:
                    if flag is None:
                        freezing.may_freeze(obj)
                    freezing.thaw(obj, deep=True)
            return obj
        return None


def _mode_set(name: str, args) -> bool | None:
    """The mode `module.eval()` (False) or `module.train(mode=True)` sets (None: a flag
    not known)."""
    if name == "eval":
        return False
    positional, keywords = args
    given = positional[0] if positional else keywords.get("mode", Const(True))
    return _truth(given)


_GRAD_SWITCHES = frozenset(
    {"torch.no_grad", "torch.inference_mode", "torch.enable_grad", "torch.set_grad_enabled"}
)
