"""GL208: the result of an out-of-place tensor op thrown away (`t.clamp(-1, 1)`,
`scores.masked_fill(mask, -inf)`, `x.contiguous()` as a statement of their own): the op
returns a new tensor and leaves its receiver as it was, so the statement has no effect."""

from __future__ import annotations

import libcst as cst

from gradlint.analysis import knowledge
from gradlint.analysis.dataflow.values import Tensor, options_of
from gradlint.analysis.names import dotted
from gradlint.checks import Checker
from gradlint.diagnostic import Witness, headline

_WITNESS = Witness(
    "import torch\n"
    "g = torch.tensor([5.0, -5.0])\n"
    "g.clamp(-1, 1)\n"
    "assert g.tolist() == [1.0, -1.0], 'the result of g.clamp(-1, 1) was discarded'\n",
    "the result of g.clamp(-1, 1) was discarded",
)

# Context managers whose body is expected to raise or warn: a statement there is a test.
_EXPECTING = ("raises", "Raises", "warns", "Warns", "assertRaises", "assertWarns")


class DiscardedResultChecker(Checker):
    """GL208 the result of an out-of-place tensor op used as a statement of its own."""

    codes = ("GL208",)

    def __init__(self, file) -> None:
        super().__init__(file)
        self._functions = 0  # depth of enclosing function definitions
        self._quiet = 0  # depth of `try` bodies and `with pytest.raises(...)` blocks

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._functions += 1

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._functions -= 1

    def visit_Try(self, node: cst.Try) -> None:
        self._quiet += 1

    def leave_Try(self, node: cst.Try) -> None:
        self._quiet -= 1

    def visit_With(self, node: cst.With) -> None:
        if _expects_error(node):
            self._quiet += 1

    def leave_With(self, node: cst.With) -> None:
        if _expects_error(node):
            self._quiet -= 1

    def visit_Expr(self, node: cst.Expr) -> None:
        # Module-level statements are skipped: in a notebook the last one of a cell is
        # the value it displays.
        if not self._functions or self._quiet:
            return
        call = node.value
        if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute):
            return
        name = call.func.attr.value
        if knowledge.method(name) is None:
            return  # not an out-of-place Tensor op (in-place ones end in `_`)
        if not self._tensor(call.func.value):
            return
        spelled = dotted(call.func.value) or "the tensor"
        self.report(
            node,
            "GL208",
            headline(
                "The result of `{receiver}.{name}(...)` is discarded: `{receiver}` is unchanged",
                receiver=spelled,
                name=name,
            ),
            witness=_WITNESS,
            detail=(
                f"`Tensor.{name}` returns a new tensor and leaves `{spelled}` as it was, so "
                "this statement has no effect. Assign the result "
                f"(`{spelled} = {spelled}.{name}(...)`)"
                + (
                    f" or use the in-place form `{spelled}.{name}_(...)`."
                    if knowledge.inplace_method(f"{name}_") is not None
                    else "."
                )
            ),
        )

    def _tensor(self, expr: cst.BaseExpression) -> bool:
        """The dataflow proves `expr` a tensor on every path (not only a value it reads as
        one: an argument of an autograd.Function's forward may be a list), or `expr` is the
        gradient of one (`p.grad`, `p.grad.data`: the interpreter keeps no value for a
        gradient, which is a tensor once a backward reached `p`)."""
        if isinstance(expr, cst.Attribute) and expr.attr.value == "data":
            expr = expr.value
        if isinstance(expr, cst.Attribute) and expr.attr.value == "grad":
            expr = expr.value
        value = self.file.dataflow.value_of(expr)
        options = options_of(value)
        return value is not None and all(isinstance(o, Tensor) and o.is_tensor for o in options)


def _expects_error(node: cst.With) -> bool:
    """`with pytest.raises(...)`, `with self.assertRaises(...)`: a block meant to fail."""
    for item in node.items:
        expr = item.item
        func = expr.func if isinstance(expr, cst.Call) else expr
        name = dotted(func) or ""
        if name.rpartition(".")[2] in _EXPECTING:
            return True
    return False
