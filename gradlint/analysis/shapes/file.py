"""The shape analysis of one file, computed lazily per function on a rule's first query."""

from __future__ import annotations

from functools import cached_property

import libcst as cst

from gradlint.analysis.context import ClassInfo, ClassKind, ModuleIndex, Scope
from gradlint.analysis.names import ImportTable, dotted
from gradlint.analysis.shapes.flow import (
    BATCH,
    JAXTYPING_KINDS,
    Conflict,
    FunctionShapes,
    Layer,
    SelfRef,
    Value,
    literal_int,
    literal_str,
)
from gradlint.analysis.shapes.model import Prod, Shape, Sym
from gradlint.analysis.walk import iter_nodes

FunctionNode = cst.FunctionDef | None  # None: the module's own top-level statements


def _calls_to(module: cst.Module, names: set[str]) -> dict[str, list[cst.Call]]:
    """Every call of a class defined in this file, by class name."""
    calls: dict[str, list[cst.Call]] = {}
    for node in iter_nodes(module):
        if (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Name)
            and node.func.value in names
        ):
            calls.setdefault(node.func.value, []).append(node)
    return calls


def _self_assigned(method: cst.FunctionDef) -> set[str]:
    """Names of `self.<name>` assigned anywhere in a method."""
    names = set()
    for node in iter_nodes(method.body):
        if isinstance(node, cst.AssignTarget | cst.AugAssign | cst.AnnAssign):
            name = dotted(node.target)
            if name and name.startswith("self.") and name.count(".") == 1:
                names.add(name[5:])
    return names


class FileShapes:
    """`shape_of(node, function)` for any expression, answered from a cached analysis."""

    def __init__(self, module: cst.Module, imports: ImportTable, index: ModuleIndex) -> None:
        self.module = module
        self.imports = imports
        self.index = index
        self.constants = _module_constants(module)
        self._analyses: dict[FunctionNode, FunctionShapes] = {}
        self._attributes: dict[cst.ClassDef, dict[str, Value]] = {}
        self._calls: dict[str, list[cst.Call]] | None = None
        self.collecting_init = False
        self.init_attrs: dict[str, Value] = {}

    # -- queries ------------------------------------------------------------------------

    def analysis(self, function: FunctionNode, owner: ClassInfo | None = None) -> FunctionShapes:
        found = self._analyses.get(function)
        if found is None:
            found = self._analyse(function, owner)
            self._analyses[function] = found
        return found

    @cached_property
    def module_attribute_names(self) -> frozenset[str]:
        """`self.<name>` assigned by statements of an nn.Module's `__init__` in this file."""
        names = set()
        for owner in self.index.by_node.values():
            init = owner.methods.get("__init__")
            if owner.is_module and init is not None:
                names |= _self_assigned(init)
        return frozenset(names)

    def here(self, scope: Scope) -> FunctionShapes:
        """The analysis of the function the traversal is in (the module body outside any)."""
        frame = scope.function
        if frame is None or not isinstance(frame.node, cst.FunctionDef):
            return self.analysis(None)
        return self.analysis(frame.node, frame.owner)

    def shape_of(
        self, node: cst.CSTNode, function: FunctionNode, owner: ClassInfo | None = None
    ) -> Shape | None:
        return self.analysis(function, owner).shape_of(node)

    def value_of(
        self, node: cst.CSTNode, function: FunctionNode, owner: ClassInfo | None = None
    ) -> Value:
        return self.analysis(function, owner).value_of(node)

    def conflicts_at(
        self, node: cst.CSTNode, function: FunctionNode, owner: ClassInfo | None = None
    ) -> list[Conflict]:
        return self.analysis(function, owner).conflicts_at(node)

    # -- building -----------------------------------------------------------------------

    def _analyse(self, function: FunctionNode, owner: ClassInfo | None) -> FunctionShapes:
        if function is None:
            body = [
                s for s in self.module.body if not isinstance(s, cst.FunctionDef | cst.ClassDef)
            ]
            return FunctionShapes(self, body, {})
        return FunctionShapes(self, list(function.body.body), self._parameters(function, owner))

    def _parameters(self, function: cst.FunctionDef, owner: ClassInfo | None) -> dict:
        env: dict = {}
        params = list(function.params.posonly_params) + list(function.params.params)
        is_method = owner is not None and params and not _is_static(function)
        if is_method:
            env["self"] = SelfRef(owner)
            params = params[1:]
        is_forward = (
            is_method and owner.kind is ClassKind.MODULE and function.name.value == "forward"
        )
        for param in params + list(function.params.kwonly_params):
            annotated = None
            if param.annotation is not None:
                annotated = self.annotation_shape(param.annotation.annotation)
            if annotated is not None:
                env[param.name.value] = annotated
            elif is_forward and param.default is None and param.annotation is None:
                env[param.name.value] = Shape.unknown(lead=BATCH)
        return env

    def annotation_shape(self, annotation: cst.BaseExpression) -> Shape | None:
        """`Float[Tensor, "batch 20"]` (jaxtyping) -> (batch, 20)."""
        if not isinstance(annotation, cst.Subscript) or len(annotation.slice) != 2:
            return None
        kind = dotted(annotation.value)
        if kind is None or kind.rpartition(".")[2] not in JAXTYPING_KINDS:
            return None
        spec = annotation.slice[1].slice
        text = literal_str(spec.value) if isinstance(spec, cst.Index) else None
        if text is None:
            return None
        dims = []
        for token in text.split():
            if token.isdigit():
                dims.append(int(token))
            elif token.isidentifier() and token != "_":
                dims.append(Sym(token))
            else:
                return None  # variadic (`...`, `*batch`) or anonymous dims
        return Shape.contiguous(dims)

    def attributes(self, owner: ClassInfo) -> dict[str, Value]:
        """`self.<name>` values built in `__init__` and never reassigned elsewhere."""
        found = self._attributes.get(owner.node)
        if found is None:
            self._attributes[owner.node] = {}  # `__init__` reading its own attributes
            found = self._init_attributes(owner)
            self._attributes[owner.node] = found
        return found

    def _init_attributes(self, owner: ClassInfo) -> dict[str, Value]:
        init = owner.methods.get("__init__")
        if init is None:
            return {}
        params = [p.name.value for p in init.params.params[1:]]
        symbols = {name: Sym(name) for name in params}
        attrs = self._run_init(owner, init, symbols)
        if not attrs:
            return {}
        if any(_mentions(value, set(symbols.values())) for value in attrs.values()):
            bound = self._bound_arguments(owner.name, params)
            if bound:  # sizes built from constructor arguments: bind the literal calls
                attrs = self._run_init(owner, init, {**symbols, **bound})
        reassigned = set()
        for name, method in owner.methods.items():
            if name != "__init__":
                reassigned |= _self_assigned(method)
        return {name: value for name, value in attrs.items() if name not in reassigned}

    def _run_init(self, owner: ClassInfo, init: cst.FunctionDef, env: dict) -> dict[str, Value]:
        self.collecting_init, self.init_attrs = True, {}
        try:
            FunctionShapes(self, list(init.body.body), {"self": SelfRef(owner), **env})
            return self.init_attrs
        finally:
            self.collecting_init, self.init_attrs = False, {}

    def _bound_arguments(self, class_name: str, params: list[str]) -> dict[str, int]:
        if self._calls is None:
            self._calls = _calls_to(self.module, set(self.index.by_name))
        calls = self._calls.get(class_name, [])
        seen: dict[str, set] = {}
        for call in calls:
            for position, arg in enumerate(call.args):
                if arg.star:
                    return {}
                if arg.keyword is not None:
                    name = arg.keyword.value
                elif position < len(params):
                    name = params[position]
                else:
                    continue
                seen.setdefault(name, set()).add(literal_int(arg.value))
        return {
            name: values.pop()
            for name, values in seen.items()
            if len(values) == 1
            and None not in values
            and len(calls) == _count_binding(calls, name, params)
        }


def _mentions(value: Value, symbols: set[Sym]) -> bool:
    """A layer or shape built from one of `symbols`."""
    if isinstance(value, Layer):
        parts = value.args
    elif isinstance(value, Shape):
        parts = value.dims or ()
    else:
        parts = (value,)
    for part in parts:
        if isinstance(part, Prod) and symbols.intersection(part.syms):
            return True
        if isinstance(part, Sym) and part in symbols:
            return True
    return False


def _count_binding(calls: list[cst.Call], name: str, params: list[str]) -> int:
    """How many calls pass `name` (an argument left to its default is not bound)."""
    count = 0
    for call in calls:
        for position, arg in enumerate(call.args):
            keyword = arg.keyword.value if arg.keyword is not None else None
            if keyword == name or (
                keyword is None and position < len(params) and params[position] == name
            ):
                count += 1
                break
    return count


def _is_static(function: cst.FunctionDef) -> bool:
    return any(dotted(d.decorator) in ("staticmethod", "classmethod") for d in function.decorators)


def _module_constants(module: cst.Module) -> dict[str, int]:
    """`NAME = <int>` assignments at module level."""
    constants: dict[str, int] = {}
    for statement in module.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if (
                isinstance(small, cst.Assign)
                and len(small.targets) == 1
                and isinstance(small.targets[0].target, cst.Name)
            ):
                value = literal_int(small.value)
                name = small.targets[0].target.value
                if value is not None:
                    constants[name] = value
                else:
                    constants.pop(name, None)
    return constants
