"""Attribute and subscript access: reads of objects' and classes' attributes, slices and
indices, and attribute assignment (module registration, requires_grad)."""

from __future__ import annotations

import functools

import libcst as cst

from gradlint.analysis import knowledge
from gradlint.analysis.context import (
    ClassKind,
)
from gradlint.analysis.dataflow import (
    cuts,
    freezing,
)
from gradlint.analysis.dataflow.events import (
    GradRead,
    ModuleAttributeSet,
    RequiresGradChange,
)
from gradlint.analysis.dataflow.interpreter.common import (
    _UNSHARED,
    AN_INT,
    _fingerprint,
    _inplace_flag,
    _truth,
    note_parameter_read,
)
from gradlint.analysis.dataflow.interpreter.state import Frame, Modules, State, _Apply, _Marker
from gradlint.analysis.dataflow.uses import (
    METADATA_ATTRIBUTES,
    NO_GRADIENT,
)
from gradlint.analysis.dataflow.values import (
    ClassRef,
    Const,
    Function,
    Grad,
    Mapping,
    Obj,
    OneOf,
    Parameters,
    Seq,
    Size,
    Tensor,
    Value,
    flagged_leaf,
    generation,
    join,
    new_storage,
    one_of,
    replace,
)
from gradlint.analysis.names import dotted

_SLICE = Const(_Marker("slice"))  # a flag whose default is False, left to the caller
# torch containers whose slice is a container of the same kind
_SLICED_ALIKE = frozenset({"torch.nn.Sequential", "torch.nn.ModuleList", "torch.nn.ParameterList"})


def _alike(old: Value | None, new: Value | None) -> bool:
    """Whether storing `new` where `old` was changes nothing a run could tell."""
    fingerprint = _fingerprint(old)
    return fingerprint is not _UNSHARED and fingerprint == _fingerprint(new)


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


def _basic(index) -> bool:
    """An index that selects without copying (int, slice, None, ...): a view."""
    if index is _SLICE or index is AN_INT or isinstance(index, Size):
        return True
    return isinstance(index, Const) and (
        index.value is None or index.value is Ellipsis or type(index.value) is int
    )


def _one_of_many(representative: Tensor) -> Tensor:
    """An item of a list that holds any number of tensors (`fused[i]`): the representative
    that stands for each, marked so that what an op saves of it is not taken as saved for
    the others (HRNet's `x_fused[i] = self.relu(x_fused[i])`, an inplace ReLU over each
    branch in turn, does not save the next branch). Saves made before, which hold for all
    of them (the op that made each saved it), still count."""
    return replace(representative, one_of_many=True)


class Members:
    """The interpreter's members: mixed into `Interpreter`, over its shared state."""

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
                if self.undecided and attr in owner.attrs:
                    # set on one arm of an undecided `if` (or again on another): either
                    value = one_of(owner.attrs[attr], value)
            owner.attrs[attr] = value
        if isinstance(owner, Obj) and owner.torch_layer and target.attr.value in owner.parameters:
            self._replaced_parameter(owner, target.attr.value, value)
        if isinstance(owner, Modules) and target.attr.value == "inplace" and _truth(value):
            self._changed(None)
            _force_inplace(owner.owner, frame.statement)

    def _replaced_parameter(self, layer: Obj, attr: str, value) -> None:
        """`self.emb.weight = nn.Parameter(w, requires_grad=False)`: the torch layer's
        parameter is now that tensor. Every parameter replaced by one that requires no grad:
        the layer trains nothing; a replacement of unknown grad (or on one arm of an
        undecided `if`): what it trains is unknown."""
        self._changed(layer)
        known = isinstance(value, Tensor) and value.grad is not Grad.UNKNOWN
        if self.undecided or not known:
            layer.frozen = True
            return
        layer.attrs[attr] = value
        replaced = [layer.attrs.get(name) for name in layer.parameters]
        if all(isinstance(held, Tensor) and held.grad is Grad.OFF for held in replaced):
            layer.frozen = layer.grad_off = True

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

    def _set_requires_grad(self, target, flag: bool | None, state: State, frame: Frame) -> None:
        expr = target.value
        value = self.eval(expr, state, frame)
        name = dotted(expr)
        self._module_attribute(target, value, Const(flag) if flag is not None else None, frame)
        if isinstance(value, Tensor):
            change = RequiresGradChange(target, self._text(expr), value, flag, True)
            self.facts.requires_grad_changes.append(change)
        if isinstance(value, Tensor) and name is not None:
            result = state.env[name] = flagged_leaf(value, flag)
            self._switched(value, result.grad)
            self._flagged_attribute(expr, value, result, state, frame)
        self._flag_owners(expr, flag, state, frame)

    def _switched(self, value: Tensor, grad: Grad) -> None:
        """`value`'s requires_grad was set: every name bound to that tensor later (from a
        tuple holding it, image2reverb's `spec, label, _ = batch`) sees it (on one arm of
        an undecided branch: unknown)."""
        if not value.view:
            self.switched[value.storage] = Grad.UNKNOWN if self.undecided else grad

    def _flagged_attribute(self, expr, before: Tensor, after: Tensor, state, frame) -> None:
        """`self.log_alpha.requires_grad = True` (or `requires_grad_()`) flags the tensor the
        instance holds: its other methods read the attribute with the flag set."""
        if not isinstance(expr, cst.Attribute):
            return
        owner = self._peek(expr.value, state, frame)
        attr = expr.attr.value
        if not isinstance(owner, Obj) or owner.torch_layer:
            return
        held = owner.attrs.get(attr)
        if not isinstance(held, Tensor) or held.storage != before.storage:
            return
        self._changed(owner)
        owner.attrs[attr] = one_of(held, after) if self.undecided else after

    def _flag_owners(self, expr, flag: bool | None, state: State, frame: Frame) -> None:
        """A parameter `expr` reads (`model.fc.weight`) had its requires_grad set to `flag`:
        the modules holding it no longer state it requires grad (or no grad)."""
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

    def _attribute(self, expr: cst.Attribute, state: State, frame: Frame):
        name = dotted(expr)
        if name is not None and name in state.env:
            self._note_read(name, state.env[name], state, frame)
            return state.env[name]
        if name is not None and self.imports.resolve(expr) is not None:
            return self._layer_class(expr)  # a torch (or other imported) name: a layer class
        attr = expr.attr.value
        if attr == "data":
            base = self._detached(expr.value, state, frame, self._peek)
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
            if attr == "requires_grad" and base.grad.requires_grad is not None:
                return Const(base.grad.requires_grad)  # decides `a if t.requires_grad else b`
            if attr == "data":
                cut = cuts.cut("GL202", "`.data`", [base])
                return replace(base.as_view(Grad.OFF), cut=cut)
            return None
        if isinstance(base, Obj):
            if name is not None:
                note_parameter_read(frame, state, name)
            return self._object_attribute(base, attr)
        if isinstance(base, ClassRef):
            return self._class_attribute(base, attr)
        return None

    def _detached(self, expr, state: State, frame: Frame, evaluate):
        """`expr`'s value, read only detached (`.data`, `.detach()`). A temporary
        (`net(x)[:, a:b].data`: a call's result never bound to a name) takes its graph with
        it: what its ops saved is read by no backward, so it is no longer saved (kept when
        the evaluation changed instances: a forward that keeps a tensor on `self`)."""
        root = expr
        while isinstance(root, cst.Subscript | cst.Attribute):
            root = root.value
        if not isinstance(root, cst.Call):
            return evaluate(expr, state, frame)
        saved, heap = set(state.saved), self.heap
        value = evaluate(expr, state, frame)
        if self.heap == heap:
            for storage in set(state.saved) - saved:
                del state.saved[storage]
        return value

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
        value = obj.attrs.get(attr)
        if isinstance(value, OneOf):
            return None  # one of values set on arms of an undecided branch
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
            # indexing a numpy array (or a value not proven a tensor) gives the same kind
            return Tensor(new_storage(), grad, is_tensor=base.is_tensor, graph=graph, cut=cut)
        index = indices[0] if len(indices) == 1 else None
        key = index.value if isinstance(index, Const) else None
        if isinstance(base, Seq) and index is _SLICE:
            return self._slice_of(base, expr.slice[0].slice)
        if isinstance(base, Seq):
            found = base.item(key if isinstance(key, int) else None)
            if base.any_length and isinstance(found, Tensor) and found.described != "parameter":
                return _one_of_many(found)
            return found
        if isinstance(base, Mapping):
            return base.get(key if isinstance(key, str) else None)
        if isinstance(base, Obj) and index is _SLICE:
            return self._slice_of_container(base, expr.slice[0].slice)
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

    def _slice_of_container(self, base: Obj, bounds: cst.Slice) -> Obj | None:
        """`layers[a:b]` of an nn.Sequential, ModuleList or ParameterList: a container of
        the same kind, never one of its items (`list(weights[1:])` lists parameters). Its
        items exactly when they and the bounds are known; a ModuleList or ParameterList
        whose items are not (built from a comprehension) holds what every item is."""
        if not (base.torch_layer and base.kind in _SLICED_ALIKE):
            return None
        sliced = Obj(
            base.kind,
            None,
            base.constructor,
            torch_layer=True,
            frozen=base.frozen,
            grad_off=base.grad_off,
        )
        if "*" in base.attrs:
            if base.kind == "torch.nn.Sequential":
                return None  # its stages, run in order when called, are not known
            sliced.attrs["*"] = base.attrs["*"]
            return sliced
        numbers = []
        for part in (bounds.lower, bounds.upper, bounds.step):
            number = self._literal_of(part) if part is not None else None
            if part is not None and type(number) is not int:
                return None
            numbers.append(number)
        items = [
            item for _, item in sorted((int(k), v) for k, v in base.attrs.items() if k.isdigit())
        ]
        for number, item in enumerate(items[slice(*numbers)]):
            sliced.attrs[str(number)] = item
        return sliced

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
