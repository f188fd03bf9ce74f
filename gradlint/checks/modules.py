"""Module state that never registers: requires-grad tensors and sub-modules that
`model.parameters()` cannot see."""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from gradlint import fixes
from gradlint.analysis import torch_ops
from gradlint.analysis.context import ClassInfo, ClassKind
from gradlint.analysis.names import dotted
from gradlint.analysis.torch_ops import (
    MODULE_CONTAINERS,
    PARAMETER_CONSTRUCTORS,
    REQUIRES_GRAD_KEYWORD_FUNCTIONS,
)
from gradlint.analysis.walk import visit
from gradlint.checks import Checker
from gradlint.diagnostic import Fix, Witness

_TENSOR_FACTORIES = frozenset(REQUIRES_GRAD_KEYWORD_FUNCTIONS) - PARAMETER_CONSTRUCTORS
# Calls that only read a container: passing `self.layers` to them registers nothing.
_READING_BUILTINS = frozenset(
    {"len", "enumerate", "zip", "range", "reversed", "iter", "print", "isinstance", "sorted"}
)
_WRAPPERS = PARAMETER_CONSTRUCTORS | MODULE_CONTAINERS
_BUILTIN_CONTAINERS = frozenset({"list", "tuple", "set"})
_LIST_METHODS = frozenset({"append", "extend", "insert"})
# A class that enumerates its own state, or registers by name, is not judged.
_SELF_ENUMERATING = frozenset({"parameters", "named_parameters", "children", "named_children"})
_REGISTERING = frozenset({"add_module", "register_module", "register_parameter", "__setattr__"})


def _literal_true(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "True"


def _requires_grad_keyword(call: cst.Call) -> cst.Arg | None:
    return next((a for a in call.args if a.keyword and a.keyword.value == "requires_grad"), None)


@dataclass
class _Local:
    """What a local name of a constructor holds."""

    kind: str  # "module", "tensor", "grad_tensor", "modules" (a container of modules)
    node: cst.CSTNode  # the expression that made it


@dataclass
class _ClassState:
    """What the construction methods of one module class store on `self`."""

    grad_tensors: dict[str, cst.CSTNode] = field(default_factory=dict)  # attr -> assignment
    plain_tensors: set[str] = field(default_factory=set)
    containers: dict[str, cst.CSTNode] = field(default_factory=dict)  # attr -> assignment
    empty_containers: dict[str, cst.CSTNode] = field(default_factory=dict)
    parameters: set[str] = field(default_factory=set)  # attrs wrapped or registered


class ModuleStateChecker(Checker):
    """GL501 unregistered requires-grad tensors, GL502 plain containers of sub-modules."""

    codes = ("GL501", "GL502")

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        info = self.file.index.by_node[node]
        if info.kind is not ClassKind.MODULE or _SELF_ENUMERATING & info.methods.keys():
            return
        state = _ClassState()
        for method in self._construction_methods(info):
            _ConstructionWalker(self, state).run(method)
        if not state.grad_tensors and not state.containers:
            return  # nothing to report: the rest of the class is not walked
        usage = _SelfUsage(self)
        visit(node, usage)
        if usage.registers_dynamically:
            return
        state.parameters.update(usage.registered)
        for attr, assignment in state.grad_tensors.items():
            if attr not in state.parameters and attr not in usage.wrapped:
                self._report_unregistered(info, attr, assignment)
        for attr, assignment in state.containers.items():
            if attr not in usage.wrapped and attr not in usage.passed_on:
                self._report_container(info, attr, assignment)

    def _construction_methods(self, info: ClassInfo) -> list[cst.FunctionDef]:
        """`__init__` and the methods it calls on `self` (build helpers, reset_parameters)."""
        init = info.methods.get("__init__")
        if init is None:
            return []
        calls = _SelfCalls()
        visit(init, calls)
        helpers = [info.methods[n] for n in calls.names if n in info.methods and n != "__init__"]
        return [init, *helpers]

    # -- classification of expressions -----------------------------------------------

    def module_constructor(self, expr: cst.BaseExpression) -> bool:
        """A call building a fresh nn.Module or Parameter (`nn.Linear(...)`, `MyBlock()`)."""
        if not isinstance(expr, cst.Call):
            return False
        qualified = self.resolve(expr.func)
        if qualified is not None:
            if qualified in PARAMETER_CONSTRUCTORS:
                return True
            head, _, last = qualified.rpartition(".")
            return (
                head == "torch.nn"
                and last[:1].isupper()
                and qualified not in torch_ops.NN_NON_MODULE_CLASSES
            )
        if isinstance(expr.func, cst.Name):
            local = self.file.index.by_name.get(expr.func.value)
            return local is not None and local.kind is ClassKind.MODULE
        return False

    def tensor_kind(self, expr: cst.BaseExpression) -> str | None:
        """ "grad_tensor" / "tensor" for a fresh tensor made by a factory (then tensor
        methods), None when not provably such a tensor."""
        if not isinstance(expr, cst.Call):
            return None
        qualified = self.resolve(expr.func)
        if qualified in _TENSOR_FACTORIES:
            flag = _requires_grad_keyword(expr)
            return "grad_tensor" if flag is not None and _literal_true(flag.value) else "tensor"
        func = expr.func
        if qualified is not None or not isinstance(func, cst.Attribute):
            return None
        inner = self.tensor_kind(func.value)
        if inner is None:
            return None
        if func.attr.value == "requires_grad_":
            enables = not expr.args or _literal_true(expr.args[0].value)
            return "grad_tensor" if enables else "tensor"
        if func.attr.value in ("detach", "detach_"):
            return "tensor"
        return inner if func.attr.value in torch_ops.TENSOR_PRESERVING_METHODS else None

    # -- findings ------------------------------------------------------------------------

    def _report_unregistered(self, info: ClassInfo, attr: str, node: cst.CSTNode) -> None:
        self.report(
            node,
            "GL501",
            f"`self.{attr}` is a tensor with requires_grad=True, not an nn.Parameter: "
            f"`{info.name}.parameters()` never yields it, so the optimizer never updates it "
            "(nor does `.to(device)` / `state_dict()` see it); wrap it: "
            f"`self.{attr} = nn.Parameter(...)`",
            witness=_unregistered_witness(attr),
        )

    def _report_container(self, info: ClassInfo, attr: str, node: cst.CSTNode) -> None:
        self.report(
            node,
            "GL502",
            f"`self.{attr}` keeps sub-modules / parameters in a plain Python container: "
            f"`{info.name}.parameters()` does not see them, so the optimizer never trains "
            "them and `.to(device)` / `state_dict()` skip them; use `nn.ModuleList` / "
            "`nn.ModuleDict` (or `nn.ParameterList` / `nn.ParameterDict` for parameters)",
            witness=CONTAINER_WITNESS,
            fix=self._container_fix(node),
        )

    def _container_fix(self, node: cst.CSTNode) -> Fix | None:
        """`[nn.Linear(...) for ...]` -> `nn.ModuleList([...])` (and dicts -> ModuleDict):
        unsafe, the state_dict keys of the wrapped layers appear (`layers.0.weight`)."""
        value = node.value if isinstance(node, cst.Assign) else None
        if isinstance(value, cst.List | cst.ListComp):
            kind = "ModuleList"
        elif isinstance(value, cst.Dict | cst.DictComp):
            kind = "ModuleDict"
        else:
            return None
        items = _elements(value)
        if not items or not all(self._is_torch_layer(item) for item in items):
            return None
        wrapper = fixes.spelling(self.file, f"torch.nn.{kind}")
        if wrapper is None:
            return None
        wrapped = cst.Call(func=cst.parse_expression(wrapper), args=[cst.Arg(value)])
        return fixes.replace(
            self.file, value, wrapped, f"register the layers with nn.{kind}", unsafe=True
        )

    def _is_torch_layer(self, item: cst.BaseExpression) -> bool:
        if not isinstance(item, cst.Call):
            return False
        name = self.resolve(item.func) or ""
        last = name.rsplit(".", 1)[-1]
        return name.startswith("torch.nn.") and last[:1].isupper() and "Parameter" not in last


class _SelfCalls(cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: list[str] = []

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Attribute) and dotted(node.func.value) == "self":
            self.names.append(node.func.attr.value)


class _SelfUsage(cst.CSTVisitor):
    """How a whole class uses its `self.<attr>` values."""

    def __init__(self, checker: ModuleStateChecker) -> None:
        self.checker = checker
        self.registers_dynamically = False
        self.registered: set[str] = set()  # register_parameter("name", ...)
        self.wrapped: set[str] = set()  # attrs assigned a Parameter or container anywhere
        self.passed_on: set[str] = set()  # attrs handed to a call that may register them

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        name = func.attr.value if isinstance(func, cst.Attribute) else dotted(func)
        if name in _REGISTERING or name == "setattr":
            first = node.args[0].value if node.args else None
            if isinstance(first, cst.SimpleString) and name == "register_parameter":
                self.registered.add(first.evaluated_value)
            else:
                self.registers_dynamically = True
        if name in _READING_BUILTINS or (
            isinstance(func, cst.Attribute) and func.attr.value in _LIST_METHODS
        ):
            return
        for arg in node.args:
            attr = _self_attribute(arg.value)
            if attr is not None:
                self.passed_on.add(attr)
            for element in _elements(arg.value):
                attr = _self_attribute(element)
                if attr is not None:
                    self.passed_on.add(attr)

    def visit_Assign(self, node: cst.Assign) -> None:
        if not isinstance(node.value, cst.Call):
            return
        if self.checker.resolve(node.value.func) not in _WRAPPERS:
            return
        for target in node.targets:
            attr = _self_attribute(target.target)
            if attr is not None:
                self.wrapped.add(attr)


def _self_attribute(expr: cst.BaseExpression) -> str | None:
    if isinstance(expr, cst.Attribute) and dotted(expr.value) == "self":
        return expr.attr.value
    return None


def _elements(expr: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The items a container literal or comprehension holds (dict values), else []."""
    if isinstance(expr, cst.List | cst.Tuple | cst.Set):
        return [el.value for el in expr.elements]
    if isinstance(expr, cst.Dict):
        return [el.value for el in expr.elements if isinstance(el, cst.DictElement)]
    if isinstance(expr, cst.ListComp | cst.SetComp | cst.GeneratorExp):
        return [expr.elt]
    if isinstance(expr, cst.DictComp):
        return [expr.value]
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Multiply):
        return _elements(expr.left) or _elements(expr.right)  # `[nn.Linear(4, 4)] * n`
    if _is_builtin_container_call(expr):
        return _elements(expr.args[0].value)  # `list(nn.Linear(4, 4) for _ in ...)`
    return []


def _is_builtin_container_call(expr: cst.BaseExpression) -> bool:
    return (
        isinstance(expr, cst.Call)
        and dotted(expr.func) in _BUILTIN_CONTAINERS
        and len(expr.args) == 1
        and not expr.args[0].star
    )


class _ConstructionWalker(cst.CSTVisitor):
    """Follows one construction method in source order, tracking locals and `self.x`."""

    def __init__(self, checker: ModuleStateChecker, state: _ClassState) -> None:
        self.checker = checker
        self.state = state
        self.locals: dict[str, _Local] = {}
        self.passed_locals: set[str] = set()  # local containers handed to other calls
        self.registered_locals: set[str] = set()  # module locals also stored on self
        self.container_sources: dict[str, str] = {}  # attr -> the local list it holds

    def run(self, method: cst.FunctionDef) -> None:
        visit(method.body, self)
        for attr, source in self.container_sources.items():
            if source in self.passed_locals:  # also handed to nn.Sequential(*layers), ...
                self.state.containers.pop(attr, None)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        name = func.attr.value if isinstance(func, cst.Attribute) else dotted(func)
        if isinstance(func, cst.Attribute) and name in _LIST_METHODS:
            self._grow(func.value, node)
            return
        if name in _READING_BUILTINS:
            return
        for arg in node.args:
            if isinstance(arg.value, cst.Name):
                self.passed_locals.add(arg.value.value)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._assign(target.target, node.value, node)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.operator, cst.AddAssign):
            self._grow(node.target, node)

    # -- bindings ---------------------------------------------------------------------

    def _assign(self, target: cst.BaseExpression, value: cst.BaseExpression, node) -> None:
        if isinstance(target, cst.Subscript):  # `self.heads["a"] = nn.Linear(...)`
            self._grow(target.value, node, value)
            return
        if isinstance(target, cst.Attribute) and target.attr.value == "requires_grad":
            self._enable_grad(target.value, value)
            return
        attr = _self_attribute(target)
        if attr is not None:
            self._assign_self(attr, value, node)
        elif isinstance(target, cst.Name):
            local = self._classify(value)
            if local is None:
                self.locals.pop(target.value, None)
            else:
                self.locals[target.value] = local

    def _assign_self(self, attr: str, value: cst.BaseExpression, node) -> None:
        state = self.state
        for table in (state.grad_tensors, state.containers, state.empty_containers):
            table.pop(attr, None)
        state.plain_tensors.discard(attr)
        if isinstance(value, cst.Name) and value.value in self.locals:
            local = self.locals[value.value]
            if local.kind == "module":
                self.registered_locals.add(value.value)
            if local.kind == "modules":
                self.container_sources[attr] = value.value
            kind = local.kind
        else:
            local = self._classify(value)
            kind = local.kind if local is not None else None
            if isinstance(value, cst.List | cst.Dict) and not _elements(value):
                state.empty_containers[attr] = node
        if kind == "grad_tensor":
            state.grad_tensors[attr] = node
        elif kind == "tensor":
            state.plain_tensors.add(attr)
        elif kind == "modules":
            state.containers[attr] = node
        if self.checker.resolve(_callee(value)) in PARAMETER_CONSTRUCTORS:
            state.parameters.add(attr)

    def _classify(self, value: cst.BaseExpression) -> _Local | None:
        if self.checker.module_constructor(value):
            return _Local("module", value)
        if isinstance(value, cst.Name) and value.value in self.locals:
            return self.locals[value.value]
        kind = self.checker.tensor_kind(value)
        if kind is not None:
            return _Local(kind, value)
        if any(self._holds_module(el) for el in _elements(value)):
            return _Local("modules", value)
        if isinstance(value, cst.List | cst.Dict) and not _elements(value):
            return _Local("empty", value)
        return None

    def _holds_module(self, element: cst.BaseExpression) -> bool:
        """A fresh module or parameter, or a nested container holding one."""
        if self.checker.module_constructor(element):
            return True
        if any(self._holds_module(inner) for inner in _elements(element)):
            return True
        if isinstance(element, cst.Name):
            local = self.locals.get(element.value)
            return (
                local is not None
                and local.kind == "module"
                and element.value not in self.registered_locals
            )
        return False

    def _grow(self, container: cst.BaseExpression, node, item=None) -> None:
        """`x.append(m)`, `x.extend([...])`, `x += [...]`, `x[k] = m` on a container."""
        items: list[cst.BaseExpression] = []
        if item is not None:
            items = [item]
        elif isinstance(node, cst.AugAssign):
            items = _elements(node.value)
        elif isinstance(node, cst.Call) and node.args:
            value = node.args[-1].value
            extend = isinstance(node.func, cst.Attribute) and node.func.attr.value == "extend"
            items = _elements(value) if extend else [value]
        if not any(self._holds_module(i) for i in items):
            return
        attr = _self_attribute(container)
        if attr is not None and attr in self.state.empty_containers:
            # reported where the modules go in: the empty literal is not the mistake
            self.state.empty_containers.pop(attr)
            self.state.containers[attr] = node
        elif isinstance(container, cst.Name):
            local = self.locals.get(container.value)
            if local is not None and local.kind == "empty":
                self.locals[container.value] = _Local("modules", local.node)

    def _enable_grad(self, owner: cst.BaseExpression, value: cst.BaseExpression) -> None:
        """`t.requires_grad = True` on a plain tensor local or attribute."""
        if not _literal_true(value):
            return
        attr = _self_attribute(owner)
        if attr is not None and attr in self.state.plain_tensors:
            self.state.grad_tensors[attr] = owner
        elif isinstance(owner, cst.Name):
            local = self.locals.get(owner.value)
            if local is not None and local.kind == "tensor":
                self.locals[owner.value] = _Local("grad_tensor", local.node)


def _callee(value: cst.BaseExpression) -> cst.BaseExpression:
    return value.func if isinstance(value, cst.Call) else value


def _unregistered_witness(attr: str) -> Witness:
    expect = f"requires-grad tensor attribute `{attr}` is missing from parameters()"
    program = f"""import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.{attr} = torch.zeros(3, requires_grad=True)


model = Model()
if not any(p is model.{attr} for p in model.parameters()):
    raise AssertionError({expect!r})
"""
    return Witness(program, expect)


CONTAINER_WITNESS = Witness(
    """import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = [torch.nn.Linear(4, 4) for _ in range(2)]


if not list(Model().parameters()):
    raise AssertionError("sub-modules in a plain list are missing from parameters()")
""",
    "sub-modules in a plain list are missing from parameters()",
)
