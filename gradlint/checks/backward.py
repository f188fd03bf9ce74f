"""`backward()` / `autograd.grad` gradients whose proven shape torch rejects (GL301, GL302)."""

from __future__ import annotations

import libcst as cst

from gradlint import fixes
from gradlint.analysis.shapes import Shape
from gradlint.analysis.shapes.model import provably_different
from gradlint.analysis.shapes.witness import Concretizer
from gradlint.checks import Checker
from gradlint.diagnostic import Fix, Witness

_MISMATCH = "Mismatch in shape: grad_output[0] has a shape of"
_NOT_SCALAR = "grad can be implicitly created only for scalar outputs"


def _argument(call: cst.Call, index: int, keyword: str) -> cst.BaseExpression | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == keyword:
            return arg.value
    positional = [arg for arg in call.args if arg.keyword is None and not arg.star]
    return positional[index].value if index < len(positional) else None


def _has_star(call: cst.Call) -> bool:
    return any(arg.star for arg in call.args)


def _shapes_differ(a: Shape, b: Shape) -> bool:
    """torch's `_make_grads` demands the gradient's shape to equal the output's exactly."""
    if a.dims is None or b.dims is None:
        return False
    if len(a.dims) != len(b.dims):
        return True
    return any(provably_different(x, y) for x, y in zip(a.dims, b.dims, strict=True))


def _provably_not_scalar(shape: Shape) -> bool:
    """numel() != 1 for sure: some dim is an integer (or a multiple) greater than 1."""
    if shape.dims is None:
        return False
    for dim in shape.dims:
        coefficient = dim if isinstance(dim, int) else getattr(dim, "coef", 1)
        if coefficient > 1:
            return True
    return False


def _elements(expr: cst.BaseExpression) -> list[cst.BaseExpression]:
    if isinstance(expr, cst.Tuple | cst.List):
        return [e.value for e in expr.elements if not isinstance(e, cst.StarredElement)]
    return [expr]


class BackwardGradientChecker(Checker):
    """GL301 gradient shape differs from the output's; GL302 implicit gradient of a non-scalar."""

    codes = ("GL301", "GL302")

    def visit_Call(self, node: cst.Call) -> None:
        if _has_star(node):
            return
        func = node.func
        qualified = self.resolve(func)
        if qualified == "torch.autograd.backward":
            outputs, gradients = _argument(node, 0, "tensors"), _argument(node, 1, "grad_tensors")
        elif qualified == "torch.autograd.grad":
            outputs, gradients = _argument(node, 0, "outputs"), _argument(node, 2, "grad_outputs")
        elif (
            isinstance(func, cst.Attribute) and func.attr.value == "backward" and qualified is None
        ):
            outputs, gradients = func.value, _argument(node, 0, "gradient")
        else:
            return
        if outputs is None:
            return
        if gradients is None or (isinstance(gradients, cst.Name) and gradients.value == "None"):
            for output in _elements(outputs):
                self._check_implicit(node, output)
            return
        pairs = zip(_elements(outputs), _elements(gradients), strict=False)
        if len(_elements(outputs)) == len(_elements(gradients)):
            for output, gradient in pairs:
                self._check_gradient(node, output, gradient)

    def _shape(self, expr: cst.BaseExpression) -> Shape | None:
        return self.file.shapes.here(self.scope).shape_of(expr)

    def _check_gradient(self, call, output: cst.BaseExpression, gradient) -> None:
        output_shape, gradient_shape = self._shape(output), self._shape(gradient)
        if output_shape is None or gradient_shape is None:
            return
        if not _shapes_differ(output_shape, gradient_shape):
            return
        name = self.file.code_for(output)
        values = Concretizer()
        program = (
            f"import torch\ny = {values.tensor(output_shape, ', requires_grad=True')} * 2\n"
            f"y.backward({values.tensor(gradient_shape)})\n"
        )
        self.report(
            call,
            "GL301",
            f"backward() gradient has shape {gradient_shape} but {name} has shape "
            f"{output_shape}: torch raises '{_MISMATCH} ...'; pass a gradient of exactly the "
            f"output's shape (e.g. `torch.ones_like({name})`), or reduce the output to a "
            "scalar and call `.backward()` without one",
            witness=Witness(program, _MISMATCH),
            fix=self._drop_unit_gradient(call, output_shape, gradient),
        )

    def _drop_unit_gradient(self, call: cst.Call, output_shape: Shape, gradient) -> Fix | None:
        """`loss.backward(torch.ones(1))` on a 0-dim loss -> `loss.backward()`: the implicit
        gradient of a scalar is exactly 1, so the fix is safe."""
        if output_shape.dims != () or len(call.args) != 1 or call.args[0].value is not gradient:
            return None
        if not isinstance(call.func, cst.Attribute) or call.func.attr.value != "backward":
            return None
        if not (
            isinstance(gradient, cst.Call)
            and self.resolve(gradient.func) == "torch.ones"
            and len(gradient.args) == 1
            and gradient.args[0].keyword is None
            and self.file.code_for(gradient.args[0].value) in ("1", "(1,)", "[1]")
        ):
            return None
        return fixes.replace(
            self.file, call, call.with_changes(args=()), "drop the gradient: a scalar's is 1"
        )

    def _check_implicit(self, call, output: cst.BaseExpression) -> None:
        shape = self._shape(output)
        if shape is None or not _provably_not_scalar(shape):
            return
        name = self.file.code_for(output)
        values = Concretizer()
        program = (
            f"import torch\ny = {values.tensor(shape, ', requires_grad=True')} * 2\ny.backward()\n"
        )
        self.report(
            call,
            "GL302",
            f"{name} has shape {shape}, not a scalar, and no gradient is given: torch raises "
            f"'{_NOT_SCALAR}'; reduce it first (`{name}.mean().backward()` / `.sum()`), or "
            f"pass the upstream gradient (`{name}.backward(torch.ones_like({name}))`)",
            witness=Witness(program, _NOT_SCALAR),
        )
