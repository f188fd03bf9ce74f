"""Expressions: names, literals, displays, comprehensions, operators and conditionals."""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from gradlint.analysis import knowledge
from gradlint.analysis.context import (
    literal_value,
)
from gradlint.analysis.dataflow import (
    cuts,
    graphs,
)
from gradlint.analysis.dataflow.interpreter.calls import Calls
from gradlint.analysis.dataflow.interpreter.common import (
    AN_INT,
    OPT_IN,
    _element,
    _sequence_arithmetic,
    _storages,
    _truth,
    note_parameter_read,
)
from gradlint.analysis.dataflow.interpreter.members import Members
from gradlint.analysis.dataflow.interpreter.scan import _comp_clauses, _maps_items
from gradlint.analysis.dataflow.interpreter.state import Frame, State
from gradlint.analysis.dataflow.shapes import REFINED
from gradlint.analysis.dataflow.uses import (
    NO_GRADIENT,
)
from gradlint.analysis.dataflow.values import (
    ClassRef,
    Const,
    Function,
    Grad,
    Mapping,
    Obj,
    Seq,
    Tensor,
    join,
    new_storage,
    replace,
)

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


def _literal(*values) -> bool:
    """Every value a known str, int or float (not a marker such as AN_INT)."""
    return all(isinstance(v, Const) and type(v.value) in (str, int, float, bool) for v in values)


_MIRRORED = {
    cst.Equal: cst.Equal,
    cst.NotEqual: cst.NotEqual,
    cst.LessThan: cst.GreaterThan,
    cst.GreaterThan: cst.LessThan,
    cst.LessThanEqual: cst.GreaterThanEqual,
    cst.GreaterThanEqual: cst.LessThanEqual,
}


def _against_counter(expr: cst.Comparison, left, operator, right, frame: Frame) -> bool | None:
    """`i == 0`, `i > 0`, ... where `i` names the counter of the loop being run, not bound
    again since (`Frame.counters`), and the other side is an int constant, when that
    decides it: on the first pass the counter is its start; on the second it is some int
    above its start, so `i == c` is false for every c <= start, `i > c` true."""
    kind = type(operator)
    if kind not in _MIRRORED:
        return None
    named, other = expr.left, expr.comparisons[0].comparator
    if type(named) is not cst.Name or named.value not in frame.counters:
        named, other, right, kind = other, named, left, _MIRRORED[kind]
    if type(named) is not cst.Name or named.value not in frame.counters:
        return None
    start, first, order = frame.counters[named.value]
    if frame.bound_at.get(named.value) != order:
        return None
    if not (isinstance(right, Const) and type(right.value) is int):
        return None
    c, b = right.value, start
    if first:
        return {
            cst.Equal: b == c,
            cst.NotEqual: b != c,
            cst.LessThan: b < c,
            cst.GreaterThan: b > c,
            cst.LessThanEqual: b <= c,
            cst.GreaterThanEqual: b >= c,
        }[kind]
    if kind is cst.Equal and c <= b:
        return False
    if kind is cst.NotEqual and c <= b:
        return True
    if kind is cst.GreaterThan and c <= b:
        return True
    if kind is cst.GreaterThanEqual and c <= b + 1:
        return True
    if kind is cst.LessThan and c <= b + 1:
        return False
    if kind is cst.LessThanEqual and c <= b:
        return False
    return None


def _identical(a, b) -> bool | None:
    """`a is b` where one side is None and the other is proven None or not."""
    for value, other in ((a, b), (b, a)):
        if value == Const(None):
            if other == Const(None):
                return True
            if isinstance(other, Tensor | Obj | Seq | Mapping | Function | ClassRef):
                return False
    return None


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


def _snippet(code: str) -> str:
    line = code.strip().splitlines()[0]
    return line if len(line) <= 60 else line[:57] + "..."


class Expressions:
    """The interpreter's expressions: mixed into `Interpreter`, over its shared state."""

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
                for side in (left, rights[0]):
                    if isinstance(side, Tensor) and side.forward_input and not side.is_tensor:
                        self.assumed_given.add(side.forward_input)
                return Const(same == isinstance(operator, cst.Is))
        if isinstance(operator, cst.Equal | cst.NotEqual) and _literal(left, rights[0]):
            return Const((left.value == rights[0].value) == isinstance(operator, cst.Equal))
        if operator is not None:
            decided = _against_counter(expr, left, operator, rights[0], frame)
            if decided is not None:
                return Const(decided)
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
        layer_class = self._layer_class(expr)  # `from torch.nn import ReLU`
        return layer_class if layer_class is not None else self.shapes.constant(name)

    def _note_read(self, name: str, value, state: State, frame: Frame) -> None:
        note_parameter_read(frame, state, name)
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

    def _literal_of(self, expr: cst.BaseExpression):
        """The Python literal `expr` last evaluated to (None: not a known literal)."""
        found = self.values.get(expr)
        return found[0].value if found is not None and isinstance(found[0], Const) else None

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
        operator = type(expr.operator).__name__
        return self._operation(operator, left, right, self._text(expr), state)

    def _operation(self, operator: str, left, right, text: str, state: State):
        """`left <operator> right` with a tensor on a side: torch's op (`operator` is
        libcst's class name, `Add`); `text` labels the result."""
        function = _OPERATOR_FUNCTIONS.get(operator)
        facts = knowledge.op(function) if function else None
        symbol = _OPERATOR_SYMBOLS.get(operator)
        spelled = f"{{0}} {symbol} {{1}}" if symbol else None
        result = self._apply(facts, _snippet(text), spelled, [left, right], state)
        proven = any(isinstance(v, Tensor) and v.is_tensor for v in (left, right))
        if isinstance(result, Tensor) and result.is_tensor and not proven:
            # numpy arrays take the same operators: `x @ w + b` of values not proven
            # tensors is not proven a tensor either
            result = replace(result, is_tensor=False)
        return result


# Expression type -> the interpreter method that evaluates it (others are unknown).
_EVALUATORS: dict[type, Callable] = {
    cst.Name: Expressions._name,
    cst.Attribute: Members._attribute,
    cst.Subscript: Members._subscript,
    cst.Call: Calls._call,
    cst.BinaryOperation: Expressions._binary,
    cst.UnaryOperation: Expressions._unary,
    cst.Tuple: Expressions._display,
    cst.List: Expressions._display,
    cst.Set: Expressions._display,
    cst.Dict: Expressions._dict,
    cst.ListComp: Expressions._comprehension,
    cst.GeneratorExp: Expressions._comprehension,
    cst.SetComp: Expressions._comprehension,
    cst.DictComp: Expressions._comprehension,
    cst.Comparison: Expressions._comparison,
    cst.IfExp: Expressions._if_expression,
    cst.BooleanOperation: Expressions._boolean,
    cst.Integer: Expressions._literal_constant,
    cst.Float: Expressions._literal_constant,
    cst.SimpleString: Expressions._literal_constant,
    cst.Ellipsis: Expressions._ellipsis,
    cst.NamedExpr: Expressions._named,
}
