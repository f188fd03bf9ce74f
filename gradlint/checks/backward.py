"""`backward()` / `autograd.grad` gradients whose proven shape torch rejects (GL301, GL302)."""

from __future__ import annotations

import libcst as cst

from gradlint import fixes
from gradlint.analysis.dataflow.events import ShapeConflict
from gradlint.analysis.shapes import Shape
from gradlint.analysis.shapes.witness import Concretizer
from gradlint.checks import Checker
from gradlint.diagnostic import Fix, Witness, headline

_MISMATCH = "Mismatch in shape: grad_output[0] has a shape of"
_NOT_SCALAR = "grad can be implicitly created only for scalar outputs"


class BackwardGradientChecker(Checker):
    """GL301 gradient shape differs from the output's; GL302 implicit gradient of a
    non-scalar: decided from the shapes the dataflow interpreter proved at the call."""

    codes = ("GL301", "GL302")

    def leave_Module(self, node: cst.Module) -> None:
        reported: set[tuple[cst.CSTNode, cst.CSTNode]] = set()
        for by_kind in self.file.dataflow.shape_conflicts.values():
            for conflict in by_kind.values():
                key = (conflict.node, conflict.extra[0]) if conflict.extra else None
                if conflict.kind not in ("gradient", "implicit") or key in reported:
                    continue
                reported.add(key)
                if conflict.kind == "gradient":
                    self._check_gradient(conflict)
                else:
                    self._check_implicit(conflict)

    def _check_gradient(self, conflict: ShapeConflict) -> None:
        call = conflict.node
        output_shape, gradient_shape = conflict.operands
        output, gradient = conflict.extra
        name = self.file.code_for(output)
        values = Concretizer()
        program = (
            f"import torch\ny = {values.tensor(output_shape, ', requires_grad=True')} * 2\n"
            f"y.backward({values.tensor(gradient_shape)})\n"
        )
        named = any(arg.keyword is not None and arg.value is gradient for arg in call.args)
        self.report(
            gradient if named else call,  # `grad_outputs=...`: the argument at fault
            "GL301",
            headline(
                "The backward() gradient has shape {gradient} but {name} has shape {output}",
                gradient=str(gradient_shape),
                name=f"`{name}`",
                output=str(output_shape),
            ),
            witness=Witness(program, _MISMATCH),
            detail=(
                f"Torch raises '{_MISMATCH} ...'. Pass a gradient of exactly the output's shape "
                f"(e.g. `torch.ones_like({name})`), or reduce the output to a scalar and call "
                "`.backward()` without one."
            ),
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

    def _check_implicit(self, conflict: ShapeConflict) -> None:
        call = conflict.node
        (shape,) = conflict.operands
        (output,) = conflict.extra
        name = self.file.code_for(output)
        if shape.unreduced:
            self._check_unreduced(call, name, shape)
            return
        values = Concretizer()
        program = (
            f"import torch\ny = {values.tensor(shape, ', requires_grad=True')} * 2\ny.backward()\n"
        )
        self.report(
            call,
            "GL302",
            headline(
                "{name} has shape {shape}, not a scalar, and no gradient is given",
                name=f"`{name}`",
                shape=str(shape),
            ),
            witness=Witness(program, _NOT_SCALAR),
            detail=(
                f"Torch raises '{_NOT_SCALAR}'. Reduce it first (`{name}.mean().backward()` / "
                f"`.sum()`), or pass the upstream gradient "
                f"(`{name}.backward(torch.ones_like({name}))`)."
            ),
        )

    def _check_unreduced(self, call: cst.CSTNode, name: str, shape: Shape) -> None:
        """GL302 clause: a loss computed with `reduction='none'` (one value per element),
        differentiated with no gradient, whatever shape the model gives it."""
        what = f"shape {shape}" if shape.dims is not None else "one value per sample"
        self.report(
            call,
            "GL302",
            headline(
                "{name} is a loss computed with reduction='none' ({what}) and no gradient is given",
                name=f"`{name}`",
                what=what,
            ),
            witness=_UNREDUCED_WITNESS,
            detail=(
                f"It is not a scalar: torch raises '{_NOT_SCALAR}' for any batch of more than "
                f"one element. Reduce it first (`{name}.mean().backward()`, or weight it and "
                "then `.sum()` / `.mean()`), or build the loss with the default reduction."
            ),
        )


_UNREDUCED_WITNESS = Witness(
    "import torch\n"
    "logits = torch.randn(4, 3, requires_grad=True)\n"
    "loss = torch.nn.CrossEntropyLoss(reduction='none')(logits, torch.tensor([0, 2, 1, 0]))\n"
    "loss.backward()\n",
    _NOT_SCALAR,
)
