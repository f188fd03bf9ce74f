"""The shape analysis of one file, computed lazily per function on a rule's first query."""

from __future__ import annotations

import libcst as cst

from gradlint.analysis.context import ClassInfo, ClassKind, ModuleIndex, Scope
from gradlint.analysis.names import ImportTable, dotted
from gradlint.analysis.shapes.flow import (
    BATCH,
    JAXTYPING_KINDS,
    Conflict,
    FunctionShapes,
    SelfRef,
    Value,
    literal_int,
    literal_str,
)
from gradlint.analysis.shapes.model import Shape, Sym

FunctionNode = cst.FunctionDef | None  # None: the module's own top-level statements


class _CallCollector(cst.CSTVisitor):
    """Literal integer arguments of every call to a class defined in this file."""

    def __init__(self, names: set[str]) -> None:
        self.names = names
        self.calls: dict[str, list[cst.Call]] = {}

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value in self.names:
            self.calls.setdefault(node.func.value, []).append(node)


class _SelfAssignments(cst.CSTVisitor):
    """Names of `self.<name>` assigned in a method."""

    def __init__(self) -> None:
        self.names: set[str] = set()

    def _target(self, target: cst.BaseExpression) -> None:
        name = dotted(target)
        if name and name.startswith("self.") and name.count(".") == 1:
            self.names.add(name[5:])

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._target(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._target(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._target(node.target)


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
            found = self._init_attributes(owner)
            self._attributes[owner.node] = found
        return found

    def _init_attributes(self, owner: ClassInfo) -> dict[str, Value]:
        init = owner.methods.get("__init__")
        if init is None:
            return {}
        env = self._constructor_env(owner, init)
        self.collecting_init, self.init_attrs = True, {}
        try:
            FunctionShapes(self, list(init.body.body), env)
            attrs = self.init_attrs
        finally:
            self.collecting_init, self.init_attrs = False, {}
        reassigned = _SelfAssignments()
        for name, method in owner.methods.items():
            if name != "__init__":
                method.visit(reassigned)
        return {name: value for name, value in attrs.items() if name not in reassigned.names}

    def _constructor_env(self, owner: ClassInfo, init: cst.FunctionDef) -> dict:
        """Each `__init__` argument: the literal all same-file calls agree on, else a symbol."""
        params = [p.name.value for p in init.params.params[1:]]
        env: dict = {"self": SelfRef(owner)}
        bound = self._bound_arguments(owner.name, params)
        for name in params:
            env[name] = bound.get(name, Sym(name))
        return env

    def _bound_arguments(self, class_name: str, params: list[str]) -> dict[str, int]:
        if self._calls is None:
            collector = _CallCollector(set(self.index.by_name))
            self.module.visit(collector)
            self._calls = collector.calls
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
