"""Torch semantics: torch functions and tensor methods (their facts, dtypes, views), layers,
in-place edits, tensors saved for backward, `.data` writes."""

from __future__ import annotations

import libcst as cst

from gradlint.analysis import knowledge
from gradlint.analysis import torch_ops as ops
from gradlint.analysis.context import (
    literal_bool,
)
from gradlint.analysis.dataflow import (
    cuts,
    dtypes,
    graphs,
    optimizers,
    views,
)
from gradlint.analysis.dataflow.events import (
    ArrayOfGrad,
    BuiltInForward,
    CheckpointCall,
    CutFed,
    DataWrite,
    InplaceEdit,
    OptimizerBuilt,
    PendingDataWrite,
    RequiresGradChange,
    Saver,
)
from gradlint.analysis.dataflow.interpreter.common import (
    _CONTAINERS,
    _LIST_GROWTH,
    _LIST_SHRINKING,
    _PARAMETER_ITERATORS,
    _SAME_MODULE_METHODS,
    AN_INT,
    _argument,
    _combined,
    _discarded,
    _element,
    _histories,
    _inplace_flag,
    _is_dim,
    _truth,
    keeps_trainable,
)
from gradlint.analysis.dataflow.interpreter.state import Frame, Modules, State, _Edit
from gradlint.analysis.dataflow.uses import (
    values_and_indices,
)
from gradlint.analysis.dataflow.values import (
    Const,
    Function,
    Grad,
    LayerClass,
    Number,
    Obj,
    Parameters,
    Seq,
    Size,
    Tensor,
    becomes_plain_leaf,
    flagged_leaf,
    join,
    new_storage,
    replace,
)
from gradlint.analysis.names import dotted
from gradlint.analysis.walk import iter_nodes

_MASK_FUNCTIONS = frozenset({"isnan", "isinf", "isfinite", "isneginf", "isposinf", "bool"})

# torch's namespaces of functions that take a program (a module, a function) and return
# one: their results are never tensors computed from the example inputs they are given
_PROGRAM_TRANSFORMS = (
    "torch.jit.",
    "torch.compile",
    "torch.fx.",
    "torch.export.",
    "torch.onnx.",
    "torch.func.functional_call",
)


_MASK_FUNCTIONS_QUALIFIED = frozenset(
    {f"torch.{n}" for n in _MASK_FUNCTIONS} | {"torch.logical_not", "torch.logical_and"}
)


_NO_GRAD_RESULTS = frozenset(
    {"argmax", "argmin", "argsort", "size", "dim", "numel", "item", "tolist", "nonzero"}
)


_TENSOR_ONLY_METHODS = frozenset(
    {"view", "permute", "size", "dim", "unsqueeze", "contiguous", "masked_fill", "type_as"}
)


_SAME_TENSOR_METHODS = frozenset({"to", "cuda", "cpu", "type_as"})


_OTHER_FLOAT_DTYPES = frozenset({"float64", "double", "float16", "half", "bfloat16"})


# layers whose output is a fresh contiguous tensor whatever the input's layout (checked in
# torch: a Conv's output follows a channels-last input, a Linear's never does)
_CONTIGUOUS_OUTPUT_LAYERS = frozenset(
    {"torch.nn.Linear", "torch.nn.Bilinear", "torch.nn.Embedding"}
)


_DATA_CONVERSIONS = frozenset({"torch.from_numpy", "torch.as_tensor", "torch.frombuffer"})


_BUFFER_FACTORIES = frozenset({"zeros", "ones", "empty", "full", "tensor", "eye"})


_DISTRIBUTION_METHODS = frozenset({"log_prob", "entropy", "rsample", "cdf", "icdf"})


def _views(base: Tensor, op: str) -> Seq:
    view = replace(base.as_view(), multi_view=op)
    return Seq((view,), any_length=True)


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

    # the output of a whole sequence is transposed back when batch_first (not contiguous)
    sequence = replace(output, contiguous=False, shape=None)
    if kind in ("torch.nn.RNN", "torch.nn.GRU"):
        return Seq((sequence, piece()))
    if kind == "torch.nn.LSTM":
        return Seq((sequence, Seq((piece(), piece()))))
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


def _is_optimizer_class(qualified: str) -> bool:
    """`torch.optim.SGD`, `torch.optim.adamw.AdamW` (not the schedulers)."""
    parts = qualified.split(".")
    return (
        parts[:2] == ["torch", "optim"]
        and len(parts) in (3, 4)
        and parts[-1][:1].isupper()
        and not {"lr_scheduler", "swa_utils"} & set(parts)
    )


def _is_module_wrapper(qualified: str) -> bool:
    """`DataParallel(m)`, `DistributedDataParallel(m)`, FSDP(m): a module holding `m`."""
    last = qualified.rpartition(".")[2]
    wrappers = ("torch.nn.DataParallel", "torch.nn.parallel.", "torch.distributed.fsdp.")
    return qualified.startswith(wrappers) and last[:1].isupper()


def _unknown_keyword(qualified: str, call: cst.Call) -> bool:
    """`call` passes the layer's constructor a keyword it does not take
    (`nn.Linear(..., params_dtype=...)`), as torch's signature says: it raises TypeError."""
    facts = knowledge.layer(qualified)
    return facts is not None and any(
        arg.keyword is not None and not facts.takes_keyword(arg.keyword.value) for arg in call.args
    )


def _is_layer_class(qualified: str) -> bool:
    head, _, last = qualified.rpartition(".")
    return (
        (head == "torch.nn" or head.startswith("torch.nn.modules"))
        and last[:1].isupper()
        and qualified not in ops.NN_NON_MODULE_CLASSES
    )


def _layer_has(layer: cst.Call, attr: str) -> bool:
    """False when the constructor call switched that parameter off (`bias=False`, ...)."""
    for flag in ("affine", "elementwise_affine"):
        if literal_bool(_argument(layer, flag, None)) is False:
            return False
    return not (attr == "bias" and literal_bool(_argument(layer, "bias", None)) is False)


def _copies_itself(call: cst.Call, func: cst.Attribute) -> bool:
    """`t.copy_(t)`: the values do not change."""
    if func.attr.value != "copy_" or not call.args:
        return False
    source = dotted(call.args[0].value)
    return source is not None and source == dotted(func.value)


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
    """The tensor whose `.data` `expr` reaches into, or None. A method call on the way
    that torch does not state returns a view of its receiver ends the reach: `p.data.new(
    size).normal_()` and `p.data.clone().zero_()` fill new tensors; `p.data.view(-1)` and
    `p.data.reshape(n)` (of the contiguous `.data`) are the same memory."""
    for part in _chain(expr):
        if isinstance(part, cst.Attribute) and part.attr.value == "data":
            return part.value
        if isinstance(part, cst.Call) and not _returns_view_of_receiver(part):
            return None
    return None


def _built_by(function: cst.FunctionDef, name: str, imports, depth: int = 3) -> bool:
    """`name` in `function` holds a module the function built itself, or a parameter of
    one (`for _, p in ema_model.named_parameters()` after `ema_model =
    build_model().to(device)`): every binding of it is a call handed none of the
    function's arguments (or `copy.deepcopy(...)`), maybe moved by `.to(...)` /
    `.eval()`, or a loop over such a module's parameters. No forward pass the caller ran
    before calling the function can have used that module: it did not exist yet."""
    arguments = {p.name.value for p in _all_params(function.params)}
    if name in arguments or not depth:
        return False
    bindings = []
    for node in iter_nodes(function.body):
        if isinstance(node, cst.Assign) and any(_binds(t.target, name) for t in node.targets):
            bindings.append(node.value if len(node.targets) == 1 else None)
        elif isinstance(node, cst.For) and _binds(node.target, name):
            bindings.append(node)
        elif _rebinds(node, name):
            return False
    if not bindings:
        return False
    for bound in bindings:
        if isinstance(bound, cst.For):
            call = bound.iter
            method = call.func if isinstance(call, cst.Call) else None
            if not isinstance(method, cst.Attribute) or method.attr.value not in (
                "parameters",
                "named_parameters",
            ):
                return False
            root = _root_name(method.value)
            if root is None or not _built_by(function, root, imports, depth - 1):
                return False
        elif not _fresh_module(bound, arguments, imports):
            return False
    return True


def _all_params(params: cst.Parameters) -> list[cst.Param]:
    star = [params.star_arg] if isinstance(params.star_arg, cst.Param) else []
    rest = [params.star_kwarg] if params.star_kwarg is not None else []
    return [*params.posonly_params, *params.params, *star, *params.kwonly_params, *rest]


def _binds(target: cst.BaseExpression, name: str) -> bool:
    """`target` (of an assignment or a loop) binds `name`, alone or unpacked."""
    if isinstance(target, cst.Name):
        return target.value == name
    if isinstance(target, cst.Tuple | cst.List):
        return any(_binds(element.value, name) for element in target.elements)
    if isinstance(target, cst.StarredElement):
        return _binds(target.value, name)
    return False


def _rebinds(node: cst.CSTNode, name: str) -> bool:
    """`node` binds `name` some other way (`global name`, `name += ...`, `with ... as
    name`), or makes it another scope's."""
    if isinstance(node, cst.Global | cst.Nonlocal):
        return any(n.name.value == name for n in node.names)
    if isinstance(node, cst.AnnAssign | cst.AugAssign | cst.NamedExpr):
        return _binds(node.target, name)
    if isinstance(node, cst.WithItem) and node.asname is not None:
        return _binds(node.asname.name, name)
    return False


def _root_name(expr: cst.BaseExpression) -> str | None:
    while isinstance(expr, cst.Attribute | cst.Subscript):
        expr = expr.value
    return expr.value if isinstance(expr, cst.Name) else None


def _fresh_module(value: cst.BaseExpression | None, arguments: set[str], imports) -> bool:
    """`build_model().to(device)`, `Net(cfg.width)`, `copy.deepcopy(model)`: a call that
    makes a new object, handed none of the function's arguments (a deep copy is new
    whatever it copies), then moved or switched by methods returning the module itself."""
    while (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Attribute)
        and value.func.attr.value in _SAME_MODULE_METHODS
    ):
        value = value.func.value
    if not isinstance(value, cst.Call):
        return False
    if imports.resolve(value.func) == "copy.deepcopy":
        return True
    names = {n.value for n in iter_nodes(value) if isinstance(n, cst.Name)}
    return not names & (arguments | {"self", "cls"})


def _returns_view_of_receiver(call: cst.Call) -> bool:
    """A method call whose result shares its receiver's memory: an in-place method (it
    returns its receiver) or one torch states returns a view (or, of a contiguous tensor,
    the tensor itself)."""
    if not isinstance(call.func, cst.Attribute):
        return False
    name = call.func.attr.value
    if knowledge.inplace_method(name) is not None:
        return True
    facts = knowledge.method(name)
    return facts is not None and facts.aliases_contiguous


# containers whose constructor takes one iterable of the items it registers
_ITERABLE_TAKING = frozenset({"torch.nn.ModuleList", "torch.nn.ParameterList"})


class TorchSemantics:
    """The interpreter's tensors: mixed into `Interpreter`, over its shared state."""

    def torch_layer(self, qualified: str, call: cst.Call, args) -> Obj:
        facts = knowledge.layer(qualified)
        names = tuple(a for a in facts.parameters if _layer_has(call, a)) if facts else ()
        obj = Obj(qualified, None, call, arguments=args, torch_layer=True, parameters=names)
        if (qualified in _CONTAINERS or qualified in _ITERABLE_TAKING) and args is not None:
            positional, _ = args
            items = positional
            if qualified in _ITERABLE_TAKING and positional and isinstance(positional[0], Seq):
                seq = positional[0]
                items = [seq.item(0)] if seq.any_length else list(seq.items)
                obj.attrs["*"] = _element(seq, self.freezes)  # what an unknown index reads
                if seq.parameters and qualified == "torch.nn.ParameterList":
                    # it registers every parameter the list was drawn from, each of them
                    obj.attrs["*"] = Tensor(
                        new_storage(),
                        Grad.LEAF,
                        is_tensor=True,
                        described="parameter",
                        merged=seq.parameters,
                    )
            for number, item in enumerate(items):
                obj.attrs[str(number)] = item
        wrapped = args[0][0] if args is not None and args[0] else None
        if _is_module_wrapper(qualified) and isinstance(wrapped, Obj):
            obj.attrs["module"] = wrapped  # `nn.DataParallel(m)` registers m as `.module`
        return obj

    def _to_numpy(self, call: cst.Call, how: str, values: list, frame: Frame) -> None:
        """`values` handed to numpy at `call`: a tensor among them (or among the items of
        a list or tuple of them, also one a loop grew) that requires grad is an error
        torch raises, recorded when the run is the file's own (a function run on its own
        assumes its grad mode: its caller may hold no_grad)."""
        if frame.body.standalone is not None:
            return
        for value in values:
            items = value.items if isinstance(value, Seq) else (value,)
            for item in items:
                if isinstance(item, Tensor) and item.grad in (Grad.ON, Grad.LEAF):
                    self.facts.arrays_of_grad.append(ArrayOfGrad(call, how, item))
                    return

    def _apply(self, facts, label: str, spelled: str | None, inputs: list, state: State):
        """A torch op on `inputs` (function-form positions): what torch's own facts say it
        saves for backward, whether it returns a view, and the grad of its result.
        `spelled` formats the op for a witness (`{0}`, `{1}`: the inputs)."""
        base = inputs[0] if inputs and isinstance(inputs[0], Tensor) else None
        tensors = [v for v in inputs if isinstance(v, Tensor)]
        if facts is not None and base is not None and facts.multi_view:
            return _views(base, facts.name.rpartition(".")[2])
        if facts is not None and facts.shape == "view" and facts.returns_tuple:
            # views of one tensor returned in a tuple (`tensor_split`, `hsplit`; `split`
            # of a value not known to be a tensor)
            return Seq((base.as_view() if base is not None else None,), any_length=True)
        if facts is not None and base is not None and facts.view:
            return base.as_view()
        # a may_view op its arguments do not decide (not F.dropout(x, p): x only if p == 0)
        if facts is not None and base is not None and facts.aliases_contiguous and base.contiguous:
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
            and all(isinstance(v, Tensor | Const | Number | Size) for v in inputs)
        ):
            grad = Grad.OFF  # no-grad tensors and Python numbers (`x.size(0)` among them)
        else:
            grad = Grad.UNKNOWN
        if not tensors and facts is None:
            return None
        made = grad is Grad.OFF and (
            (state.grad is False and bool(tensors)) or any(t.no_grad_made for t in tensors)
        )
        # contiguous like its inputs where torch's samples say so; not where a string
        # spells the layout (`torch.einsum("lbv->bvl", x)` returns a permuted view)
        contiguous = (
            facts is not None
            and facts.keeps_layout
            and bool(tensors)
            and all(t.contiguous for t in tensors)
            and not any(isinstance(v, Const) and isinstance(v.value, str) for v in inputs)
        )
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
        if state.grad and not value.one_of_many:
            state.saved.setdefault(value.storage, saver)

    def _typed(self, call: cst.Call, name: str, args, result, state: State, receiver=None):
        """The dtype of a torch function's (or a tensor method's) result, and the
        (values, indices) pair of max / sort / topk ..."""
        positional, keywords = args
        given = _argument(call, "dtype", None)
        explicit = dtypes.named(given, self.imports)
        if given is not None and explicit is None:  # `dtype=x.dtype`: held in a variable
            return replace(result, dtype=None) if isinstance(result, Tensor) else result
        if receiver is not None:
            if name in ("to", "type") and explicit is None and call.args:
                explicit = dtypes.named(call.args[0].value, self.imports)
                if explicit is None and self._moves_or_casts(call, name) is None:
                    # `t.to(x.dtype)`, `t.to(other)`: a dtype held in a variable may change it
                    return replace(result, dtype=None) if isinstance(result, Tensor) else result
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
            if receiver.dtype is not None and receiver.dtype != dtype:
                # a cast to another dtype is a copy (`torch.arange(4).float()`)
                return replace(result, storage=new_storage(), view=False, dtype=dtype)
            return replace(result, dtype=dtype)
        paired = name in dtypes.ALWAYS_PAIRED or (
            name in dtypes.PAIRED_WITH_DIM
            and ("dim" in keywords or _is_dim(inputs[1] if len(inputs) > 1 else None))
        )
        if paired and isinstance(result, Tensor):
            cut = cuts.cut("GL203", f"the indices of `{name}`", inputs, integer=True)
            indices = Tensor(new_storage(), Grad.OFF, is_tensor=True, dtype="int", cut=cut)
            return Seq((result, indices))
        return result

    def _chained_parameters(self, call: cst.Call):
        """`itertools.chain(a.parameters(), b.parameters(), ...)` as an optimizer's params
        (a GAN's encoder and generator in one optimizer): what each argument held, as a
        list of groups, when every one is known; None otherwise."""
        first = call.args[0] if call.args else None
        if first is None or first.keyword not in (None,) and first.keyword.value != "params":
            return None
        chain = first.value
        if not isinstance(chain, cst.Call) or self.imports.resolve(chain.func) != "itertools.chain":
            return None
        if not chain.args or any(arg.star or arg.keyword is not None for arg in chain.args):
            return None
        parts = []
        for arg in chain.args:
            found = self.values.get(arg.value)
            value = found[0] if found is not None else None
            if not isinstance(value, Parameters | Seq):
                return None
            parts.append(value)
        return Seq(tuple(parts))

    def _parameters_drawn(self, call: cst.Call, state: State) -> tuple[Parameters | None, bool]:
        """The `m.parameters()` an optimizer's first argument is, through `list(...)` /
        `tuple(...)` and `filter(lambda p: p.requires_grad, ...)` (then True besides)."""
        first = call.args[0] if call.args else None
        keyword = first.keyword.value if first is not None and first.keyword else None
        if first is None or first.star or keyword not in (None, "params"):
            return None, False
        node, trainable_only = first.value, False
        while isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
            builtin, arguments = node.func.value, node.args
            if builtin in state.env or any(arg.star or arg.keyword for arg in arguments):
                break
            if builtin in ("list", "tuple") and len(arguments) == 1:
                node = arguments[0].value
            elif builtin == "filter" and len(arguments) == 2:
                if not keeps_trainable(arguments[0].value):
                    break
                node, trainable_only = arguments[1].value, True
            else:
                break
        found = self.values.get(node)
        drawn = found[0] if found is not None else None
        if isinstance(drawn, Parameters) and not drawn.named:
            return drawn, trainable_only
        return None, False

    def _layer_class(self, expr: cst.BaseExpression) -> LayerClass | None:
        """`nn.ReLU` (not called): the layer class, when torch's knowledge has the layer."""
        qualified = self.imports.resolve(expr)
        if qualified is None or not _is_layer_class(qualified) or not knowledge.layer(qualified):
            return None
        return LayerClass(qualified)

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
            if params is None:
                params = self._chained_parameters(call)
            drawn_from, trainable_only = self._parameters_drawn(call, state)
            self.facts.optimizers.append(
                OptimizerBuilt(call, qualified, params, drawn_from, trainable_only)
            )
            built = optimizers.optimizer(params)
            self._trace("optimizer", call, frame, receiver=built)
            return built
        if _is_layer_class(qualified):
            if _unknown_keyword(qualified, call):
                return None  # torch raises TypeError: no layer is built
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
        joined = qualified in ("torch.cat", "torch.stack", "torch.concat")
        if joined and positional and positional[0] is not None:  # (unknown: as other ops)
            return _combined(positional[0], state)
        if qualified.rpartition(".")[2] in _NO_GRAD_RESULTS:
            return None
        if facts is None and not qualified.startswith(("torch.nn.functional.", "torch.")):
            return None
        given = [v for name, v in keywords.items() if name != "out"]
        if facts is None and knowledge.returns_tuple_with(qualified, len(positional) + len(given)):
            return None  # `torch.where(condition)`: a tuple of index tensors
        if qualified.startswith("torch.utils.data."):
            return None  # datasets, loaders, samplers, random_split: Python objects
        if facts is None and (
            qualified.startswith(_PROGRAM_TRANSFORMS)
            or (positional and isinstance(positional[0], Obj | Function))
        ):
            # a function of torch handed a module or a callable (`torch.jit.trace(m,
            # example)`, `torch.compile(m)`): what it returns is no op of the tensors
            # among its arguments (a traced module is called, moved, saved)
            return None
        if any(isinstance(v, Tensor) for v in given):
            # tensors given by name (`F.cross_entropy(input=x, target=y)`, `weight=w`): the
            # positions torch's facts speak of are not known, so no saved input is marked;
            # the result's grad comes from every argument given by name (an unknown one
            # leaves it unknown unless another requires grad)
            named = [v for v in given if not isinstance(v, Const | Number)]
            return self._apply(None, qualified, None, [*positional, *named], state)
        arguments = ", ".join(f"{{{i}}}" for i in range(len(positional)))
        if len(positional) == 1 and facts is not None and facts.call:
            arguments += facts.call  # what torch ran it with (a softmax's dim given by name)
        spelled = f"{qualified}({arguments})"
        result = self._apply(facts, qualified, spelled, positional, state)
        if None in given and isinstance(result, Tensor) and result.grad is Grad.OFF and state.grad:
            # an argument given by name that is not known may be a tensor requiring grad
            result = replace(result, grad=Grad.UNKNOWN, no_grad_made=False, frozen_made=False)
        return result

    def _built(self, call: cst.Call, value, frame: Frame):
        """A layer or Parameter made while a module's forward runs: the forward analysed on
        its own, or the module forward a run of the file's code is in (a subclass's
        `decode` that its base class's `forward` calls through `self`)."""
        function = frame.body.node
        for forward in (frame.body.standalone, frame.body.forward):
            owner = self.functions.get(forward) if forward is not None else None
            if owner is not None and owner.is_module and forward.name.value == "forward":
                self.facts.built_in_forward.append(BuiltInForward(call, function, value))
                break
        return value

    def _result_grad(self, operand: Tensor, state: State) -> Grad:
        if state.grad is False:
            return Grad.OFF
        if state.grad is None and operand.grad.requires_grad:
            return Grad.UNKNOWN
        return operand.grad_of_result()

    def _inputs_grad(self, inputs: list, state: State) -> Grad:
        """The grad of what a layer without parameters makes of several inputs (a loss of
        a prediction and a target: `nn.MSELoss()(target_v, q)`): it requires grad when one
        of them does, none when every one is a tensor that needs none or a constant, and
        is unknown otherwise."""
        grads = [
            self._result_grad(value, state) if isinstance(value, Tensor) else Grad.UNKNOWN
            for value in inputs
            if not isinstance(value, Const | Number)
        ]
        if Grad.ON in grads:
            return Grad.ON
        return Grad.UNKNOWN if Grad.UNKNOWN in grads else Grad.OFF

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
            # a later stage of a Sequential edits the previous stage's output: unknown when
            # that stage's is (`nn.LazyConv2d`), never the Sequential's own argument
            if first_node is not None and (first is not None or label is None):
                # a stage of a Sequential is reported where it is built, with inplace
                at = layer.constructor if label is not None and layer.constructor else call
                at = layer.inplace_at or at  # reported where the flag was switched on
                form = f"{kind}(inplace=True)(t)"
                edit = _Edit(at, first_node, form, first, proves_tensor=True, written=label)
                self._edit(edit, state, frame)
            if first is not None and facts.inplace_saves and state.grad:
                setup = _saved_output_setup(f"{kind}(inplace=True)({{0}} * 1)", 1)
                self._mark_saved(first, Saver(f"{kind}(inplace=True)", setup), state)
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
            # a layer without parameters (a loss) on what grad mode off made: made so too
            made = learns or any(isinstance(v, Tensor) and v.no_grad_made for v in positional)
            return Tensor(new_storage(), Grad.OFF, is_tensor=True, no_grad_made=made, cut=cut)
        if learns and state.grad:
            contiguous = kind in _CONTIGUOUS_OUTPUT_LAYERS or (
                first is not None and first.contiguous
            )
            output = Tensor(new_storage(), Grad.ON, is_tensor=True, contiguous=contiguous)
        elif first is not None and not layer.parameters:
            inputs = [*positional, *args[1].values()]
            output = first.derived(self._inputs_grad(inputs, state), True)
            output = replace(output, cut=cuts.inherited(inputs))  # cut only if every input is
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
                result = flagged_leaf(receiver, flag)
                name = dotted(func.value)
                if name is not None and name in state.env:
                    state.env[name] = result
                self._switched(receiver, result.grad)
                self._flagged_attribute(func.value, receiver, result, state, frame)
                self._flag_owners(func.value, flag, state, frame)
                return result
            return receiver
        if isinstance(receiver, Seq) and method in _LIST_GROWTH:
            self._grow(call, func.value, receiver, method, positional, state, frame)
            return None
        if isinstance(receiver, Seq) and method in _LIST_SHRINKING:
            self._shrink(func.value, receiver, state, frame, emptied=method == "clear")
            return receiver.item(None) if method == "pop" and receiver.any_length else None
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
        casts = method in ("to", "cuda") or (method == "type" and bool(call.args))
        if casts and receiver.grad is Grad.LEAF and not receiver.view:
            copies = self._moves_or_casts(call, method)
            if copies:  # `torch.randn(n, requires_grad=True).cuda()` is not a leaf
                return replace(receiver.derived(Grad.ON), described="", shape=receiver.shape)
            if copies is None:
                return replace(receiver, grad=Grad.UNKNOWN, described="")
        if method in _SAME_TENSOR_METHODS or (method == "type" and call.args):
            return receiver  # a cast: its dtype is set by _typed (`t.type()` is a string)
        if method == "is_floating_point" and receiver.dtype in ("int", "bool"):
            return Const(False)
        if method == "size" and not call.args:
            return None  # a torch.Size of the dims (the shape flow may know them)
        if method in ("size", "dim", "numel"):
            return AN_INT
        if method in ops.GRAPH_CUT_METHODS:  # `.item()`, `.tolist()`, `.numpy()`
            if method == "numpy" and not call.args:  # (`numpy(force=True)` detaches)
                self._to_numpy(call, "`.numpy()`", [receiver], frame)
            return cuts.number(f"`.{method}()`", [receiver], array=method != "item")
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

    def _shrink(self, expr, sequence: Seq, state: State, frame: Frame, emptied=False) -> None:
        """`xs.pop()` / `remove`: from then on `xs` holds any number of what it held (its
        exact length is no longer known); `xs.clear()` / `del xs[:]` (`emptied`): nothing
        (REINFORCE's `del policy.saved_log_probs[:]` after each episode's backward)."""
        item = None
        for position, value in enumerate(sequence.items):
            item = value if position == 0 else join(item, value)
        shrunk = Seq(()) if emptied else Seq((item,), any_length=True)
        name = dotted(expr)
        if name is not None and name in state.env:
            state.env[name] = shrunk
        elif isinstance(expr, cst.Attribute):
            owner = self._peek(expr.value, state, frame)
            if isinstance(owner, Obj) and owner.attrs.get(expr.attr.value) is sequence:
                self._changed(owner)
                owner.attrs[expr.attr.value] = shrunk

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
        owner = None
        if name not in state.env and isinstance(expr, cst.Attribute):
            owner = self._peek(expr.value, state, frame)  # `self.losses.append(loss)`
            if not isinstance(owner, Obj) or owner.attrs.get(expr.attr.value) is not sequence:
                return
        elif name is None or name not in state.env:
            return
        exact = isinstance(extended, Seq) and not extended.any_length
        if not sequence.any_length and method == "append":  # `layers.append(conv)`
            grown = Seq((*sequence.items, extended))
        elif not sequence.any_length and method == "extend" and exact:
            grown = Seq(sequence.items + extended.items)
        else:
            added = positional[-1:] if method != "extend" else [_element(extended, self.freezes)]
            item = None
            for position, value in enumerate([*sequence.items, *added]):
                item = value if position == 0 else join(item, value)
            grown = Seq((item,), any_length=True)
        if owner is None:
            state.env[name] = grown
        else:
            self._changed(owner)
            owner.attrs[expr.attr.value] = grown

    def _written_into(self, target, sources: list, state: State, frame: Frame) -> None:
        """An in-place write of `sources` into `target`: a tensor that needed no grad
        requires grad once a value that does is written into it (unknown if unknown).
        Not through `.data` (`delta.data[index] = d[index]`): that write records no op, so
        neither the tensor behind it nor any name sharing its storage gains a history."""
        if _through_data(target):
            return
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
        # which parameters it writes: known for one of a known module's parameters
        # (`for p in net.parameters()`) or an attribute of a known module (`net.fc.weight`)
        known = value.merged or (
            isinstance(owner, cst.Attribute)
            and isinstance(self._peek(owner.value, state, frame), Obj)
        )
        written = value.merged | {value.storage} if known else None
        frame.data_writes.append(PendingDataWrite(frame.order, node, name, written))
        function = frame.body.node
        if function is not None and _built_by(function, name.partition(".")[0], self.imports):
            frame.own_module_writes.add(node)
