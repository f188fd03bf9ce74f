"""Custom autograd: `backward` methods autograd never calls, `autograd.Function` contracts."""

from __future__ import annotations

import re
from functools import cached_property

import libcst as cst

from gradlint.analysis.context import ClassInfo, ClassKind
from gradlint.analysis.dataflow.values import Const, Seq, Tensor
from gradlint.analysis.names import dotted
from gradlint.analysis.walk import iter_nodes, visit
from gradlint.checks import Checker
from gradlint.diagnostic import Severity, Witness, headline

_BACKWARD_NAME = re.compile(r"(^backward$|_backward$|Backward$)")
# Parameter names that carry an incoming gradient: grad_output, grad, dout, d_y, delta...
_GRADIENT_PARAM = re.compile(r"grad|delta|upstream|^d_?(out|output|outputs|y|z|h|l|loss)$", re.I)


def _parameter_names(node: cst.FunctionDef) -> list[str]:
    return [p.name.value for p in (*node.params.posonly_params, *node.params.params)]


def _is_static(node: cst.FunctionDef) -> bool:
    return any(dotted(d.decorator) == "staticmethod" for d in node.decorators)


class _References(cst.CSTVisitor):
    """How a class body uses `self.<name>`: called, or passed on as a value (a hook)."""

    def __init__(self) -> None:
        self.called: set[cst.Attribute] = set()
        self.values: set[str] = set()
        self.runs_autograd = False

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Attribute):
            self.called.add(node.func)
            if node.func.attr.value in ("backward", "grad"):
                self.runs_autograd = True

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node not in self.called and dotted(node.value) == "self":
            self.values.add(node.attr.value)


class ModuleBackwardChecker(Checker):
    """GL303: a `backward` method on an nn.Module, which autograd never calls."""

    codes = ("GL303",)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        owner = self.file.index.by_node[node]
        if not owner.is_module:
            return
        candidates = [
            (name, method)
            for name, method in owner.methods.items()
            if _BACKWARD_NAME.search(name)
            and any(_GRADIENT_PARAM.search(p) for p in _parameter_names(method)[1:])
        ]
        if not candidates:  # the class body is walked only for a backward-like method
            return
        hooks = _References()
        visit(node, hooks)
        called_by_functions = self._called_from_autograd_functions
        for name, method in candidates:
            if name in hooks.values:
                continue
            if name in called_by_functions:  # `ctx.layer._backward(g)` in a Function's backward
                continue
            body = _References()
            visit(method, body)
            if body.runs_autograd:  # a helper that hands the gradient on to autograd
                continue
            self.report(
                method.name,
                "GL303",
                headline("{method} is never called by autograd", method=f"`{owner.name}.{name}`"),
                witness=_module_backward_witness(owner.name, name),
                detail=(
                    "`loss.backward()` differentiates the operations of `forward` and ignores "
                    "methods of an nn.Module. To define a custom gradient write a "
                    "`torch.autograd.Function` with static `forward(ctx, ...)` / "
                    "`backward(ctx, ...)` and call it via `.apply`."
                ),
            )

    @cached_property
    def _called_from_autograd_functions(self) -> set[str]:
        """Method names called on anything inside the file's autograd.Function classes."""
        names: set[str] = set()
        for info in self.file.index.by_node.values():
            if info.kind is ClassKind.AUTOGRAD_FUNCTION:
                calls = _References()
                visit(info.node, calls)
                names.update(call.attr.value for call in calls.called)
        return names


def _module_backward_witness(class_name: str, method: str) -> Witness:
    expect = f"autograd never called {class_name}.{method}"
    program = f"""import torch


class {class_name}(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(3))
        self.called = False

    def forward(self, x):
        return (x * self.weight).sum()

    def {method}(self, grad_output):
        self.called = True
        return grad_output


module = {class_name}()
module(torch.randn(3)).backward()
if not module.called:
    raise AssertionError({expect!r})
"""
    return Witness(program, expect)


# -- GL304 ---------------------------------------------------------------------------

_BUILTIN_NON_TENSORS = {"int": "int", "float": "float", "bool": "bool", "len": "int", "str": "str"}
_NON_TENSOR_METHODS = {"item": "float", "tolist": "list", "size": "torch.Size", "dim": "int"}
_NON_TENSOR_LITERALS = {
    cst.Integer: "int",
    cst.Float: "float",
    cst.SimpleString: "str",
    cst.FormattedString: "str",
    cst.ConcatenatedString: "str",
    cst.List: "list",
    cst.ListComp: "list",
    cst.Tuple: "tuple",
    cst.Dict: "dict",
    cst.Set: "set",
}
# Decorators that leave a backward's return value alone.
_TRANSPARENT_DECORATORS = re.compile(r"(^|\.)(staticmethod|once_differentiable|custom_bwd)$")
_CONTEXT_NAMES = ("ctx", "self")


def _gradient_count(value) -> int | None:
    """How many gradients a returned value hands back, None when unknown."""
    if isinstance(value, Seq) and not value.any_length:
        return len(value.items)
    if isinstance(value, Tensor) or value == Const(None):
        return 1
    return None


def _trailing_nones(value, keep: int) -> bool:
    """Whether every returned gradient after the first `keep` is None (torch accepts
    extra gradients that are None)."""
    items = value.items if isinstance(value, Seq) else ()
    return all(item == Const(None) for item in items[keep:])


class _Bindings(cst.CSTVisitor):
    """Names a function body loads, and names it binds."""

    def __init__(self) -> None:
        self.loaded: dict[str, cst.Name] = {}
        self.bound: set[str] = set()

    def visit_Name(self, node: cst.Name) -> None:
        self.loaded.setdefault(node.value, node)

    def _bind(self, target: cst.CSTNode | None) -> None:
        if target is not None:
            for name in _names_in(target):
                self.bound.add(name)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._bind(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._bind(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._bind(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._bind(node.target)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._bind(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:
        self._bind(node.name)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._bind(node.target)

    def visit_Param(self, node: cst.Param) -> None:
        self.bound.add(node.name.value)

    def visit_Global(self, node: cst.Global) -> None:
        self.bound.update(n.name.value for n in node.names)


def _names_in(target: cst.CSTNode) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, cst.Tuple | cst.List):
        return [n for el in target.elements for n in _names_in(el.value)]
    if isinstance(target, cst.StarredElement):
        return _names_in(target.value)
    return []


def _outputs_non_differentiable(forward: cst.FunctionDef) -> bool:
    """Every value `forward` returns is a name it hands to `ctx.mark_non_differentiable`
    (`ctx.mark_non_differentiable(dist, idx); return dist, idx`): no output requires grad,
    so autograd never calls backward, whatever it returns."""
    marked: set[str] = set()
    returned: list[cst.BaseExpression | None] = []
    for node in iter_nodes(forward.body):  # a nested def's return counts: unmarked
        if (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value == "mark_non_differentiable"
        ):
            marked.update(a.value.value for a in node.args if isinstance(a.value, cst.Name))
        elif isinstance(node, cst.Return):
            returned.append(node.value)
    if not returned or not marked:
        return False
    for value in returned:
        items = value.elements if isinstance(value, cst.Tuple) else [value]
        for item in items:
            item = item.value if isinstance(item, cst.Element) else item
            if not isinstance(item, cst.Name) or item.value not in marked:
                return False
    return True


class FunctionContractChecker(Checker):
    """GL304: `torch.autograd.Function` subclasses that break autograd's calling contract."""

    codes = ("GL304",)

    def __init__(self, file) -> None:
        super().__init__(file)
        # `fn = MyFn()`: local name -> (the function binding it, the Function class)
        self._instances: dict[str, tuple[cst.FunctionDef | None, ClassInfo]] = {}
        self._backwards: list[tuple[ClassInfo, cst.FunctionDef]] = []  # checked at the end
        self._module_names = {
            name
            for statement in file.module.body
            if isinstance(statement, cst.SimpleStatementLine)
            for small in statement.body
            if isinstance(small, cst.Assign)
            for target in small.targets
            for name in _names_in(target.target)
        }

    # -- the class itself ----------------------------------------------------------------

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        info = self.file.index.by_node[node]
        if info.kind is not ClassKind.AUTOGRAD_FUNCTION:
            return
        nested = self.scope.function is not None
        for role in ("forward", "backward"):
            method = info.methods.get(role)
            if method is None:
                continue
            if _is_static(method):
                self._check_static_signature(info, method)
            else:
                self._check_legacy_state(info, method)
            if not nested:
                self._check_unbound_context(info, method)
        backward = info.methods.get("backward")
        if backward is not None:
            self._backwards.append((info, backward))  # against the dataflow's facts

    def leave_Module(self, node: cst.Module) -> None:
        for info, backward in self._backwards:
            self._check_gradient_count(info, backward)

    def _check_static_signature(self, info: ClassInfo, method: cst.FunctionDef) -> None:
        params = method.params
        names = _parameter_names(method)
        role = method.name.value
        if names[:2] == ["self", "ctx"]:
            self.report(
                method.name,
                "GL304",
                headline(
                    "Static {method} takes both `self` and `ctx`", method=f"`{info.name}.{role}`"
                ),
                severity=Severity.ERROR,
                detail=(
                    "Autograd passes the context as the first argument, so every argument "
                    f"shifts by one and torch raises TypeError. Drop `self` and write "
                    f"`{role}(ctx, ...)`."
                ),
            )
        elif role == "backward" and len(names) == 1 and not isinstance(params.star_arg, cst.Param):
            self.report(
                method.name,
                "GL304",
                headline(
                    "Static {method} takes a single argument", method=f"`{info.name}.backward`"
                ),
                severity=Severity.ERROR,
                detail=(
                    "Autograd calls it as `backward(ctx, *grad_outputs)` and raises TypeError "
                    "(takes 1 positional argument but 2 were given). Write "
                    "`backward(ctx, grad_output)`."
                ),
            )

    def _check_legacy_state(self, info: ClassInfo, method: cst.FunctionDef) -> None:
        """A non-static method reading state that only a legacy `__init__` sets."""
        names = _parameter_names(method)
        init = info.methods.get("__init__")
        if init is None or not names:
            return
        receiver = names[0]
        state = {
            attr
            for attr in _self_attributes_assigned(init)
            if attr not in _self_attributes_assigned(method)
        }
        read = sorted(_attributes_read(method, receiver) & state)
        if not read:
            return
        role = method.name.value
        self.report(
            method.name,
            "GL304",
            headline(
                "{method} is a legacy non-static method reading {state} set in `__init__`",
                method=f"`{info.name}.{role}`",
                state=f"`{receiver}.{read[0]}`",
            ),
            severity=Severity.ERROR,
            detail=(
                "Autograd functions are never instantiated (`.apply` passes a fresh ctx, so "
                f"this raises AttributeError). Make `{role}` a @staticmethod taking `ctx`, and "
                "pass the settings to `.apply(...)` as arguments."
            ),
            witness=_legacy_state_witness(info.name, read[0]),
        )

    def _check_unbound_context(self, info: ClassInfo, method: cst.FunctionDef) -> None:
        """`self` where `ctx` is meant (or the reverse): a name the method never binds."""
        names = _Bindings()
        visit(method, names)
        for context in _CONTEXT_NAMES:
            node = names.loaded.get(context)
            if node is None or context in names.bound:
                continue
            if context in self._module_names or context in self.imports.bindings:
                continue
            given = _parameter_names(method)[:1]
            instead = f"`{given[0]}`" if given else "a `ctx` parameter"
            self.report(
                node,
                "GL304",
                headline(
                    "{context} is not defined in {method}",
                    context=f"`{context}`",
                    method=f"`{info.name}.{method.name.value}`",
                ),
                severity=Severity.ERROR,
                detail=(
                    f"The context object autograd passes is {instead}. Python raises "
                    "NameError here."
                ),
            )

    def _check_gradient_count(self, info: ClassInfo, backward: cst.FunctionDef) -> None:
        """One gradient per input `.apply` passes (the file's call sites), else per input
        forward's signature takes, from the values the interpreter proves returned."""
        if not all(
            _TRANSPARENT_DECORATORS.search(dotted(d.decorator) or "") for d in backward.decorators
        ):
            return
        forward, has_setup = self._forward_of(info)
        if forward is None or _outputs_non_differentiable(forward):
            return
        params = forward.params
        if isinstance(params.star_arg, cst.Param) or params.kwonly_params or params.star_kwarg:
            return
        inputs = [*params.posonly_params, *params.params][0 if has_setup else 1 :]
        facts = self.file.dataflow
        sites = {a.inputs for a in facts.applied if a.function is info}
        if sites and None not in sites:
            least, most = max(sites), min(sites)
        else:
            sites = set()
            least = len(inputs) if has_setup else sum(1 for p in inputs if p.default is None)
            most = len(inputs)
        for returned in facts.returns:
            if returned.function is not backward:
                continue
            count = _gradient_count(returned.value)
            if count is None:
                continue
            too_many = count > most and not _trailing_nones(returned.value, most)
            if count >= least and not too_many:
                continue
            expected = least if count < least else most
            if sites:
                takes = f"`{info.name}.apply(...)` passes {expected} input(s)"
            else:
                names = ", ".join(p.name.value for p in inputs)
                takes = f"`forward` takes {expected} input(s) ({names})"
            self.report(
                returned.node,
                "GL304",
                headline(
                    "{method} returns {count} gradient(s) but {takes}",
                    method=f"`{info.name}.backward`",
                    count=str(count),
                    takes=takes,
                ),
                severity=Severity.ERROR,
                detail=(
                    "Autograd raises RuntimeError (returned an incorrect number of gradients). "
                    "Return one gradient per forward input, `None` for inputs that need none."
                ),
                witness=_gradient_count_witness(info.name, expected, count),
            )

    def _forward_of(self, info: ClassInfo) -> tuple[cst.FunctionDef | None, bool]:
        """The forward the class runs (its own or a local base's), and whether a
        `setup_context` takes the context out of forward's signature."""
        forward = None
        has_setup = False
        seen: set[str] = set()
        pending = [info]
        while pending:
            current = pending.pop(0)
            if current.name in seen:
                continue
            seen.add(current.name)
            forward = forward or current.methods.get("forward")
            has_setup = has_setup or "setup_context" in current.methods
            for base in current.base_names:
                local = self.file.index.by_name.get(base)
                if local is not None:
                    pending.append(local)
                elif self.imports.resolve_name(base) != "torch.autograd.Function":
                    return None, False  # an unknown base may define either
        return forward, has_setup

    # -- how the class is used ---------------------------------------------------------

    def visit_Assign(self, node: cst.Assign) -> None:
        info = self._instantiated(node.value)
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                if info is None:
                    self._instances.pop(target.target.value, None)
                else:
                    self._instances[target.target.value] = (self._frame(), info)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        instance = self._instantiated(func)
        if instance is None and isinstance(func, cst.Name) and func.value in self._instances:
            frame, info = self._instances[func.value]
            instance = info if frame is self._frame() else None
        if instance is not None:
            self._report_instance_call(node, instance)
            return
        if isinstance(func, cst.Attribute) and func.attr.value in ("forward", "backward"):
            self._check_direct_method_call(node, func)
        if isinstance(func, cst.Attribute) and func.attr.value == "save_for_backward":
            self._check_saved_values(node)

    def _frame(self) -> cst.FunctionDef | None:
        frame = self.scope.function
        return frame.node if frame is not None else None

    def _function_class(self, expr: cst.BaseExpression) -> ClassInfo | None:
        if not isinstance(expr, cst.Name):
            return None
        info = self.file.index.by_name.get(expr.value)
        if info is None or info.kind is not ClassKind.AUTOGRAD_FUNCTION:
            return None
        return info

    def _instantiated(self, expr: cst.BaseExpression) -> ClassInfo | None:
        """The Function class `expr` instantiates (`MyFn()` / `MyFn(3)`), if any."""
        if isinstance(expr, cst.Call):
            return self._function_class(expr.func)
        return None

    def _report_instance_call(self, node: cst.Call, info: ClassInfo) -> None:
        self.report(
            node,
            "GL304",
            headline("{function} is called through an instance", function=f"`{info.name}`"),
            severity=Severity.ERROR,
            detail=(
                "Torch raises RuntimeError (Legacy autograd function with non-static forward "
                f"method is deprecated). Call `{info.name}.apply(...)` with static "
                "`forward(ctx, ...)` / `backward(ctx, ...)`."
            ),
            witness=INSTANCE_CALL_WITNESS,
        )

    def _check_direct_method_call(self, node: cst.Call, func: cst.Attribute) -> None:
        info = self._function_class(func.value)
        caller = self.scope.method_class
        if info is None or (caller is not None and caller.kind is ClassKind.AUTOGRAD_FUNCTION):
            return  # one Function's forward reusing another's is deliberate
        role = func.attr.value
        self.report(
            node,
            "GL304",
            headline("{call} is called directly", call=f"`{info.name}.{role}(...)`"),
            severity=Severity.WARNING,
            detail=(
                f"Autograd does not record the call as `{info.name}`, so the custom `backward` "
                "never runs (the result carries autograd's own gradient, or none). Call "
                f"`{info.name}.apply(...)`."
            ),
        )

    def _check_saved_values(self, node: cst.Call) -> None:
        owner = self.scope.method_class
        if owner is None or owner.kind is not ClassKind.AUTOGRAD_FUNCTION:
            return
        locals_ = self._single_assignments()
        for index, arg in enumerate(node.args):
            if arg.star:
                return  # positions after a starred argument are unknown
            value = arg.value
            if isinstance(value, cst.Name) and value.value in locals_:
                value = locals_[value.value]
            kind = self._non_tensor_kind(value)
            if kind is None:
                continue
            written = self.file.code_for(arg.value)
            self.report(
                arg.value,
                "GL304",
                headline(
                    "`save_for_backward` is given a non-tensor {kind} ({written})",
                    kind=kind,
                    written=f"`{written}`",
                ),
                severity=Severity.ERROR,
                detail=(
                    "Torch raises TypeError (save_for_backward can only save variables, but "
                    f"argument {index} is of type {kind}). Save tensors only and keep other "
                    "values as attributes (`ctx.scale = scale`)."
                ),
                witness=SAVE_NON_TENSOR_WITNESS,
            )

    def _single_assignments(self) -> dict[str, cst.BaseExpression]:
        """Names the current function binds exactly once, by a plain `name = value`."""
        frame = self.scope.function
        if frame is None or not isinstance(frame.node, cst.FunctionDef):
            return {}
        values: dict[str, cst.BaseExpression] = {}
        counts: dict[str, int] = {}

        class Assignments(cst.CSTVisitor):
            def visit_Assign(self, node: cst.Assign) -> None:
                for target in node.targets:
                    if isinstance(target.target, cst.Name):
                        values[target.target.value] = node.value

            def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
                for name in _names_in(node.target):
                    counts[name] = counts.get(name, 0) + 1

        visit(frame.node.body, Assignments())
        parameters = set(_parameter_names(frame.node))
        return {
            name: value
            for name, value in values.items()
            if counts.get(name) == 1 and name not in parameters
        }

    def _non_tensor_kind(self, expr: cst.BaseExpression) -> str | None:
        """The Python type of a value that is certainly not a tensor (None when unknown)."""
        for literal, kind in _NON_TENSOR_LITERALS.items():
            if isinstance(expr, literal):
                return kind
        if isinstance(expr, cst.Name) and expr.value in ("True", "False"):
            return "bool"
        if isinstance(expr, cst.Attribute) and expr.attr.value in ("shape", "needs_input_grad"):
            return "torch.Size" if expr.attr.value == "shape" else "tuple"
        if not isinstance(expr, cst.Call):
            return None
        func = expr.func
        if isinstance(func, cst.Name) and func.value not in self.imports.bindings:
            return _BUILTIN_NON_TENSORS.get(func.value)
        if isinstance(func, cst.Attribute) and func.attr.value in _NON_TENSOR_METHODS:
            if func.attr.value == "size" and expr.args:
                return "int"
            return _NON_TENSOR_METHODS[func.attr.value]
        return None


def _self_attributes_assigned(method: cst.FunctionDef) -> set[str]:
    names = _parameter_names(method)
    receiver = names[0] if names else "self"
    found = set()

    class Targets(cst.CSTVisitor):
        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            target = node.target
            if isinstance(target, cst.Attribute) and dotted(target.value) == receiver:
                found.add(target.attr.value)

    visit(method, Targets())
    return found


def _attributes_read(method: cst.FunctionDef, receiver: str) -> set[str]:
    found = set()

    class Reads(cst.CSTVisitor):
        def visit_Attribute(self, node: cst.Attribute) -> None:
            if dotted(node.value) == receiver:
                found.add(node.attr.value)

    visit(method, Reads())
    return found


def _legacy_state_witness(class_name: str, attribute: str) -> Witness:
    program = f"""import torch


class {class_name}(torch.autograd.Function):
    def __init__(self, value):
        super().__init__()
        self.{attribute} = value

    def forward(self, x):
        return x * self.{attribute}

    def backward(self, grad_output):
        return grad_output * self.{attribute}


{class_name}.apply(torch.randn(3, requires_grad=True))
"""
    return Witness(program, f"'{class_name}Backward' object has no attribute '{attribute}'")


def _gradient_count_witness(class_name: str, inputs: int, returned: int) -> Witness:
    names = [f"x{i}" for i in range(inputs)]
    grads = ", ".join(["grad_output"] * returned) + ("," if returned == 1 else "")
    program = f"""import torch


class {class_name}(torch.autograd.Function):
    @staticmethod
    def forward(ctx, {", ".join(names)}):
        return x0 * 2

    @staticmethod
    def backward(ctx, grad_output):
        return ({grads})


inputs = [torch.randn(3, requires_grad=True) for _ in range({inputs})]
{class_name}.apply(*inputs).sum().backward()
"""
    expect = (
        f"function {class_name}Backward returned an incorrect number of gradients "
        f"(expected {inputs}, got {returned})"
    )
    return Witness(program, expect)


INSTANCE_CALL_WITNESS = Witness(
    """import torch


class Double(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * 2


Double()(torch.randn(3, requires_grad=True))
""",
    "Legacy autograd function with non-static forward method is deprecated",
)

SAVE_NON_TENSOR_WITNESS = Witness(
    """import torch


class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x, 3)
        return x * 3

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * 3


Scale.apply(torch.randn(3, requires_grad=True))
""",
    "save_for_backward can only save variables",
)
