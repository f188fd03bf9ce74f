"""Statements: blocks, branches joined, loops run twice, with / try, assignments and
bindings (targets, unpacking, loop targets)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

import libcst as cst

from gradlint.analysis.context import literal_value
from gradlint.analysis.dataflow import (
    cuts,
    freezing,
    narrowing,
)
from gradlint.analysis.dataflow.events import (
    Body,
    DataAssigned,
    Place,
    Returned,
)
from gradlint.analysis.dataflow.interpreter.common import (
    _NO_EFFECT,
    OPT_IN,
    _element,
    _names_grad,
    _sequence_arithmetic,
    _truth,
    optional_tensor,
)
from gradlint.analysis.dataflow.interpreter.state import Frame, Modules, State, _Edit, join_states
from gradlint.analysis.dataflow.values import (
    ClassRef,
    Const,
    Function,
    Mapping,
    Number,
    Obj,
    Parameters,
    Seq,
    Tensor,
    Value,
    join,
    options_of,
    replace,
)
from gradlint.analysis.names import dotted
from gradlint.analysis.walk import iter_nodes

_AUG_FORMS = {
    "SubtractAssign": "t -= 1.0",
    "MultiplyAssign": "t *= 2.0",
    "DivideAssign": "t /= 2.0",
}


_GLOBAL_GRAD_SWITCHES = frozenset(
    {"torch.set_grad_enabled", "torch.autograd.set_grad_enabled", "torch._C._set_grad_enabled"}
)


def _writes_data(node: cst.Assign) -> bool:
    """`x.data = value` and no other target."""
    return (
        len(node.targets) == 1
        and isinstance(node.targets[0].target, cst.Attribute)
        and node.targets[0].target.attr.value == "data"
    )


def _string_key(target: cst.Subscript) -> str | None:
    """The key of `d["loss"]`, a string literal; None for any other index."""
    if len(target.slice) != 1 or not isinstance(target.slice[0].slice, cst.Index):
        return None
    key = target.slice[0].slice.value
    return literal_value(key) if isinstance(key, cst.SimpleString) else None


def _items(container: Seq | Mapping) -> list:
    """What a list, tuple or dict holds (a dict: its values)."""
    if isinstance(container, Seq):
        return list(container.items)
    others = [container.others] if container.others is not None else []
    return [value for _, value in container.items] + others


def _whole_slice(target: cst.BaseExpression) -> bool:
    """`xs[:]`."""
    if not isinstance(target, cst.Subscript) or len(target.slice) != 1:
        return False
    part = target.slice[0].slice
    if not isinstance(part, cst.Slice):
        return False
    return part.lower is None and part.upper is None and part.step is None


def _item_written(container: Seq, indices: list, value) -> Seq:
    """A list after `xs[i] = value`: item i replaced when i is a known position, else
    each item may be the value (`xs[a:b] = ys`, which may change its length, is not
    given here)."""
    index = indices[0] if len(indices) == 1 else None
    position = index.value if isinstance(index, Const) and type(index.value) is int else None
    items = list(container.items)
    if position is not None and not container.any_length and -len(items) <= position < len(items):
        items[position] = value
        return Seq(tuple(items))
    return Seq(tuple(join(item, value) for item in items), any_length=container.any_length)


def _forget_attributes(name: str, state: State) -> None:
    """`name` is rebound: what was set on its old value (`p.grad = None` in an earlier
    loop over the parameters) says nothing of the new one."""
    prefix = name + "."
    for key in [key for key in state.env if key.startswith(prefix)]:
        del state.env[key]


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


def _zip_arguments(expr) -> list | None:
    if isinstance(expr, cst.Call) and dotted(expr.func) == "zip":
        return [arg.value for arg in expr.args]
    return None


class Iteration(NamedTuple):
    """What a `for` loop iterates, evaluated once before its passes, and the evaluation
    count before it (where the recorder looks for the causes of an unknown item)."""

    value: Any
    start: int


class Statements:
    """The interpreter's statements: mixed into `Interpreter`, over its shared state."""

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
            start = self.evals
            for small in statement.body:
                frame.statement = small
                if self._small(small, state, frame) is None:
                    return None
            if self.recorder is not None:
                for small in statement.body:
                    self.recorder.after(small, state, frame, self, start)
            return state
        if isinstance(statement, cst.BaseSmallStatement):  # a one-line block: `if c: f(x)`
            return self._small(statement, state, frame)
        if isinstance(statement, cst.If):
            return self._if(statement, state, frame)
        if isinstance(statement, cst.For):
            start = self.evals
            iterated = self.eval(statement.iter, state, frame)  # once, as Python does
            entered = isinstance(iterated, Seq) and not iterated.any_length and bool(iterated.items)
            return self._loop(statement, state, frame, Iteration(iterated, start), entered)
        if isinstance(statement, cst.While):
            self.eval(statement.test, state, frame)
            return self._loop(statement, state, frame, None)
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
            if self.recorder is not None:
                self._class_literals(statement, state.grad)
            return state
        _forget_names(statement, state)  # match and other statements: what they bind is unknown
        return state

    def _class_literals(self, node: cst.ClassDef, grad: bool | None) -> None:
        """For the fact oracle: the names a class body binds to literals (`model_type =
        "bert"`, `expansion: int = 4`), bound once as Python builds the class."""
        body, frame = State({}, grad=grad), Frame(Body(None, None, False, None), None, 0)
        for line in node.body.body:
            if not isinstance(line, cst.SimpleStatementLine):
                continue
            if not all(_binds_literal(small) for small in line.body):
                continue
            start = self.evals
            for small in line.body:
                self._small(small, body, frame)
            for small in line.body:
                self.recorder.after(small, body, frame, self, start)

    def _if(self, statement: cst.If, state: State, frame: Frame) -> State | None:
        test = self.eval(statement.test, state, frame)
        truth = _truth(test)
        branches = []
        self.undecided += truth is None
        if truth is not False:
            then = state.copy()
            then.guarded = state.guarded or test is OPT_IN
            then.env.update(self._narrowed(statement.test, state))
            then.env.update(_none_tested(statement.test, state, True, self.imports))
            kind = "taken" if truth is True and self._invariant(statement.test) else "if"
            then = self._block_at(Place(kind, statement, 0), statement.body.body, then, frame)
            if then is not None:
                then.guarded = state.guarded
            branches.append(then)
        if truth is not True:
            other = state.copy()
            other.env.update(_not_tensors(statement.test, self.imports))
            other.env.update(_none_tested(statement.test, state, False, self.imports))
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

    def _invariant(self, test: cst.BaseExpression) -> bool:
        """A test whose truth holds on every pass of the loops around it: it names no
        target of those loops and takes no remainder (`i % k`, an iteration count)."""
        targets = {
            node.value
            for place in self.path
            if place.kind == "loop" and isinstance(place.node, cst.For)
            for node in iter_nodes(place.node.target)
            if type(node) is cst.Name
        }
        return not any(
            (type(node) is cst.Name and node.value in targets)
            or (isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Modulo))
            for node in iter_nodes(test)
        )

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

    def _loop(
        self, statement, state, frame: Frame, iteration: Iteration | None, entered=False
    ) -> State | None:
        """The body twice: what one iteration saves or binds is seen by the next; the
        states after zero (unless the loop is `entered`: over a sequence of known items),
        one and two iterations are joined. A loop of a called function reached during
        another loop's second pass runs once: its own second pass already ran in the first
        one, and passes would multiply across the loops of nested calls (a block's loop
        over layers whose forward loops over convs: 2**k runs of the innermost body)."""
        if iteration is not None:
            self._freezing_loop(statement, iteration.value, state, frame)
        current: State | None = state.copy()
        exits: list[State | None] = [] if entered else [state.copy()]
        passes = 1 if self.second_passes and frame.depth > 0 else 2
        for number in range(passes):
            if current is None:
                break
            if iteration is not None:
                self._bind_loop_target(statement, iteration.value, current, frame, number)
                if passes == 2:
                    self._bind_counter(statement, current, frame, number)
                if self.recorder is not None:
                    self.recorder.loop_bound(statement, current, frame, self, iteration.start)
            place = Place("loop", statement, number)
            self.second_passes += number
            try:
                current = self._block_at(place, statement.body.body, current, frame)
            finally:
                self.second_passes -= number
            exits.append(current.copy() if current is not None else None)
        if iteration is not None:
            found = _counter(statement)
            if found is not None:
                frame.counters.pop(found[0].value, None)
        if statement.orelse is not None and current is not None:
            exits[-1] = self._block(statement.orelse.body.body, current.copy(), frame)
        if not entered:
            self._bound_by_the_passes(exits, frame)
        return self._merge_into(state, exits)

    def _bound_by_the_passes(self, exits: list[State | None], frame: Frame) -> None:
        """Names the body binds that were unbound before the loop (`output` of `for c in
        name: output, hidden = rnn(c, hidden)`): after zero passes, reading them raises, so
        a read after the loop meets what a pass bound. The zero-pass exit takes that value
        (at module level, imported names are bound without being in the environment: left
        as they are, and so is every name of a file with a star import). Facts kept
        about attributes (`p.grad` after `p.grad = None`) are not bindings: they keep
        the old join."""
        before, passes = exits[0], [e for e in exits[1:] if e is not None]
        module_level = frame.body.node is None
        if before is None or not passes or module_level and self.star_imported:
            return
        for state in passes:
            for name, value in state.env.items():
                if name in before.env or not name.isidentifier():
                    continue
                if module_level and name in self.imports.bindings:
                    continue
                before.env[name] = value

    def _freezing_loop(self, loop: cst.For, source, state: State, frame: Frame) -> None:
        """`for p in m.parameters(): p.requires_grad = False` freezes all of `m`; with `m`
        not known (an item of a set of modules), any module the body can reach may be."""
        unknown_owner = source is None or isinstance(source, Parameters) and source.owner is None
        if unknown_owner and _iterates_parameters(loop):
            flag = freezing.loop_flag(loop, lambda e: _truth(self._peek(e, state, frame)))
            if flag is not None:
                self._changed(None)
                self._may_freeze_reachable(state, thaw=flag is not False)
            return
        if not isinstance(source, Parameters) or source.owner is None:
            return
        flag = freezing.loop_flag(loop, lambda expr: _truth(self._peek(expr, state, frame)))
        if flag is not None:
            self._changed(None)
        if flag is False and not self.undecided:
            freezing.freeze(source.owner)
        elif flag is not None:
            freezing.may_freeze(source.owner)
            freezing.thaw(source.owner, deep=True)

    @staticmethod
    def _may_freeze_reachable(state: State, thaw: bool) -> None:
        """Every module a name of the body holds (`self` among them) may have had its
        parameters' requires_grad switched: none is proven either way."""
        for value in list(state.env.values()):
            for option in options_of(value):
                if isinstance(option, Obj) and option.is_module:
                    freezing.may_freeze(option)
                    if thaw:
                        freezing.thaw(option, deep=True)

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
            if frame.body.node is None and _rebinds_globals(small.value, self.imports):
                # `exec(open("configurator.py").read())` (nanoGPT): any global may change
                for name, value in state.env.items():
                    if not isinstance(value, Function | ClassRef):
                        state.env[name] = None
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
            if isinstance(small, cst.Del) and _whole_slice(small.target):
                emptied = self._peek(small.target.value, state, frame)
                if isinstance(emptied, Seq):
                    self._shrink(small.target.value, emptied, state, frame, emptied=True)
                return state  # `del xs[:]` unbinds no name
            _forget_names(small, state)
        return state

    def _assign(self, node: cst.Assign, state: State, frame: Frame) -> None:
        if _writes_data(node):
            # `w.data = F.normalize(w)`: only the values reach `.data`, so the parameters
            # read to compute them feed no gradient (GL102 counts no use by the forward)
            read = set(frame.read_parameters)
            value = self.eval(node.value, state, frame)
            frame.read_parameters = read
        elif len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            outer, heap = state.uses.carry(), self.heap
            value = self.eval(node.value, state, frame)
            bound = value.storage if isinstance(value, Tensor) and self.heap == heap else None
            state.uses.carried_into(outer, bound)
        else:
            value = self.eval(node.value, state, frame)
        if any(_names_grad(target.target) for target in node.targets):
            self._trace("clear", node, frame)  # `p.grad = None`
        if not isinstance(value, Seq) and len(node.targets) == 1:
            value = self._unpack_shape(node.targets[0].target, node.value, state) or value
        for target in node.targets:
            target = target.target
            if isinstance(target, cst.Subscript):
                container = self.eval(target.value, state, frame)
                indices = self._eval_index(target, state, frame)
                if isinstance(container, Seq | Mapping):  # `self.heads[key] = layer`
                    items = _items(container)
                    self._grown_attribute(node, target.value, [*items, value], state, frame)
                if isinstance(container, Seq) and isinstance(target.value, cst.Name):
                    # `maxes[index] = m` (detr's _max_by_axis): the item written, or any
                    sliced = any(isinstance(e.slice, cst.Slice) for e in target.slice)
                    written = Seq((None,), any_length=True) if sliced else None
                    written = written or _item_written(container, indices, value)
                    state.env[target.value.value] = written
                key = _string_key(target)
                if isinstance(container, Mapping) and isinstance(target.value, cst.Name) and key:
                    kept = tuple(item for item in container.items if item[0] != key)
                    state.env[target.value.value] = Mapping((*kept, (key, value)), container.others)
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
            elif isinstance(target.value, cst.Name):
                # a number (or unknown) item rebinds: `losses[i] += loss` of `[0, 0]`
                # holds the tensor `0 + loss` there (the item written, or any)
                operator = type(node.operator).__name__.removesuffix("Assign")
                if isinstance(element, Const | Number) and isinstance(source, Tensor):
                    item = self._operation(operator, element, source, self._text(node), state)
                else:
                    item = cuts.arithmetic(node.operator, element, source)
                container = state.env.get(target.value.value)
                if isinstance(container, Seq):
                    indices = self._eval_index(target, state, frame)
                    state.env[target.value.value] = _item_written(container, indices, item)
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
            # a number (or unknown) rebinds: `total += t.item()` stays a number, and
            # `total = 0` then `total += loss` makes the tensor `0 + loss`
            if isinstance(current, Const | Number) and isinstance(source, Tensor):
                operator = type(node.operator).__name__.removesuffix("Assign")
                value = self._operation(operator, current, source, self._text(node), state)
            else:
                value = cuts.arithmetic(node.operator, current, source)
            self._bind(target, value, state, frame)

    def _bind(self, target, value, state: State, frame: Frame, source=None) -> None:
        if isinstance(target, cst.Name | cst.Attribute):
            name = dotted(target)
            if name is None:
                return
            switched = self.switched.get(value.storage) if isinstance(value, Tensor) else None
            if switched is not None and switched is not value.grad and not value.view:
                value = replace(value, grad=switched)  # requires_grad set through another name
            if isinstance(target, cst.Attribute):
                self._set_attribute(target, value, state, frame, source)
            elif name in state.env:
                _forget_attributes(name, state)
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

    def _bind_counter(self, loop: cst.For, state: State, frame: Frame, number: int) -> None:
        """Note a loop's counter for this pass: on the first, which is the first iteration,
        it is its start; on the second, which stands for every later one, an int above it
        (`if i == 0:` is taken on the first pass only, `_comparison`). Its value stays what
        the loop target gave it. Not when `enumerate` or `range` is a name of the file."""
        found = _counter(loop)
        if found is None or state.env.get(loop.iter.func.value) is not None:
            return
        name, start = found
        frame.counters[name.value] = (start, number == 0, frame.bound_at.get(name.value, -1))

    def _bind_loop_target(self, loop: cst.For, value, state: State, frame: Frame, number) -> None:
        """The loop variable of round `number`, from the `value` the loop iterates:
        over a literal of two items, each round takes its own (`for t_k in (6, 5)`);
        otherwise what every item is."""
        target = loop.target
        sources = _zip_arguments(loop.iter)
        elements = target.elements if isinstance(target, cst.Tuple) else None
        if sources is not None and elements is not None and len(elements) == len(sources):
            for element, expr in zip(elements, sources, strict=True):
                zipped = self._peek(expr, state, frame)
                self._bind(element.value, _element(zipped, self.freezes), state, frame)
            return
        if isinstance(value, Seq) and not value.any_length and len(value.items) == 2:
            self._bind(target, value.items[number], state, frame)
            return
        self._bind(target, _element(value, self.freezes), state, frame)


def _counter(loop: cst.For) -> tuple[cst.Name, int] | None:
    """The counter of `for i, x in enumerate(xs[, start])` or `for i in range([a, ]b[, s])`
    (a literal start, a literal positive step) and the value it starts from."""
    call = loop.iter
    if not (isinstance(call, cst.Call) and type(call.func) is cst.Name):
        return None
    args = call.args
    if any(arg.star for arg in args):
        return None
    literal = [_int_literal(arg.value) for arg in args]
    target = loop.target
    if call.func.value == "enumerate" and isinstance(target, cst.Tuple | cst.List):
        elements = target.elements
        if len(elements) != 2 or type(elements[0].value) is not cst.Name or not 1 <= len(args) <= 2:
            return None
        if len(args) == 1:
            return elements[0].value, 0
        keyword = args[1].keyword
        if keyword is not None and keyword.value != "start" or literal[1] is None:
            return None
        return elements[0].value, literal[1]
    if call.func.value == "range" and type(target) is cst.Name and 1 <= len(args) <= 3:
        if any(arg.keyword is not None for arg in args):
            return None
        if len(args) == 3 and not (literal[2] is not None and literal[2] > 0):
            return None
        start = 0 if len(args) == 1 else literal[0]
        return (target, start) if start is not None else None
    return None


def _int_literal(expr: cst.BaseExpression) -> int | None:
    if isinstance(expr, cst.Integer):
        return int(expr.evaluated_value)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        inner = _int_literal(expr.expression)
        return -inner if inner is not None else None
    return None


def _not_tensors(test: cst.BaseExpression, imports) -> dict[str, None]:
    """Names the else branch of `if isinstance(x, torch.Tensor):` knows are not tensors
    (whatever x was taken for before: an annotation can be wrong)."""
    tests = narrowing.isinstance_tests(test)
    if len(tests) != 1 or not isinstance(test, cst.Call):
        return {}
    name, classes = tests[0]
    if len(classes) == 1 and imports.resolve(classes[0]) == "torch.Tensor":
        return {name: None}
    return {}


def _none_tested(test: cst.BaseExpression, state: State, taken: bool, imports) -> dict:
    """What `x` is in the branch of `if x is None:` / `if x is not None:` taken when the
    test is `taken`: None, or (not None) the tensor an optional tensor argument is."""
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return {}
    target = test.comparisons[0]
    if not (isinstance(target.comparator, cst.Name) and target.comparator.value == "None"):
        return {}
    if not isinstance(target.operator, cst.Is | cst.IsNot):
        return {}
    name = dotted(test.left)
    if name is None or name not in state.env:
        return {}
    is_none = taken == isinstance(target.operator, cst.Is)
    if is_none:
        return {name: Const(None)}
    value = state.env[name]
    if isinstance(value, Tensor) and not value.is_tensor and value.input_of is not None:
        params = value.input_of.params
        for param in [*params.params, *params.kwonly_params]:
            if param.name.value == value.forward_input and optional_tensor(param, imports):
                return {name: replace(value, is_tensor=True)}
    return {}


def _rebinds_globals(call: cst.BaseExpression, imports) -> bool:
    """`exec(...)` or `globals().update(...)` at module level: it may bind any name."""
    if not isinstance(call, cst.Call):
        return False
    func = call.func
    if isinstance(func, cst.Name):
        return func.value == "exec" and imports.resolve(func) is None
    return (
        isinstance(func, cst.Attribute)
        and func.attr.value == "update"
        and isinstance(func.value, cst.Call)
        and isinstance(func.value.func, cst.Name)
        and func.value.func.value == "globals"
    )


def _iterates_parameters(loop: cst.For) -> bool:
    """`for p in <something>.parameters():` (or `.named_parameters()`)."""
    call = loop.iter
    return (
        isinstance(call, cst.Call)
        and isinstance(call.func, cst.Attribute)
        and call.func.attr.value in ("parameters", "named_parameters")
    )


def _binds_literal(small: cst.CSTNode) -> bool:
    """`name = <literal>` / `name: T = <literal>`: numbers, strings, True / False / None,
    and tuples, lists, sets and dicts of them."""
    if isinstance(small, cst.AnnAssign):
        return isinstance(small.target, cst.Name) and _literal(small.value)
    if isinstance(small, cst.Assign):
        names = all(isinstance(t.target, cst.Name) for t in small.targets)
        return names and _literal(small.value)
    return False


def _literal(expr: cst.BaseExpression | None) -> bool:
    if isinstance(expr, cst.Integer | cst.Float | cst.SimpleString):
        return True
    if isinstance(expr, cst.Name):
        return expr.value in ("True", "False", "None")
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        return _literal(expr.expression)
    if isinstance(expr, cst.Tuple | cst.List | cst.Set):
        return all(isinstance(e, cst.Element) and _literal(e.value) for e in expr.elements)
    if isinstance(expr, cst.Dict):
        return all(
            isinstance(e, cst.DictElement) and _literal(e.key) and _literal(e.value)
            for e in expr.elements
        )
    return False
