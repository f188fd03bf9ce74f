"""GL206: a tensor that is not a leaf handed to an optimizer (torch raises "can't optimize
a non-leaf Tensor") or used as a weight whose `.grad` is read (it stays None), decided
from the dataflow's optimizer and `.grad` events."""

from __future__ import annotations

import libcst as cst

from gradlint.analysis.dataflow.values import Grad, Mapping, Seq, Tensor
from gradlint.checks import Checker
from gradlint.diagnostic import Severity, Witness, headline

NONLEAF_ERROR = "can't optimize a non-leaf Tensor"


def nonleaf_parameters(params) -> list[Tensor]:
    """The tensors of an optimizer's `params` (a list of tensors, or of param groups
    `{"params": [...]}`) proven to be results of recorded ops."""
    if isinstance(params, Tensor):
        return [params] if params.grad is Grad.ON else []
    if isinstance(params, Mapping):
        return nonleaf_parameters(params.get("params"))
    if isinstance(params, Seq):
        return [t for item in params.items for t in nonleaf_parameters(item)]
    return []


class NonLeafOptimizedChecker(Checker):
    codes = ("GL206",)

    def leave_Module(self, node: cst.Module) -> None:
        reported: set[cst.CSTNode] = set()
        for built in self.file.dataflow.optimizers:
            found = nonleaf_parameters(built.params)
            if not found or built.node in reported:
                continue
            reported.add(built.node)
            what = "a view of a leaf" if found[0].leaf_view else "the result of an op"
            short = built.kind.rpartition(".")[2]
            self.report(
                built.node,
                "GL206",
                headline(
                    "{optimizer} is given a tensor that is {what}, not a leaf",
                    optimizer=f"`{short}`",
                    what=what,
                ),
                severity=Severity.ERROR,
                detail=(
                    f'Torch raises ValueError ("{NONLEAF_ERROR}"), and its `.grad` would stay '
                    "None anyway. Optimize the leaf itself (apply the scale or slice inside the "
                    "computation, or make the leaf with `(t * c).detach().requires_grad_()`)."
                ),
                witness=WITNESS,
            )
        reads = [r for r in self.file.dataflow.grad_reads if r.value.grad is Grad.ON]
        if reads and "retain_grad" in self.file.module.code:
            return  # `.grad` of a non-leaf is kept after `t.retain_grad()`
        storages: set[int] = set()
        for read in reads:
            if read.value.storage in storages:
                continue  # one finding per weight
            storages.add(read.value.storage)
            self.report(
                read.node,
                "GL206",
                headline(
                    "{written} is the result of an op (not a leaf), so backward() never fills "
                    "its `.grad`",
                    written=f"`{read.written}`",
                ),
                severity=Severity.ERROR,
                detail=(
                    f"`{read.written}.grad` stays None (torch warns that a non-leaf's `.grad` "
                    "is being accessed). Make the weight a leaf "
                    "(`(torch.randn(n) * c).requires_grad_()`, `nn.Parameter(...)`)."
                ),
                witness=GRAD_WITNESS,
            )


GRAD_WITNESS = Witness(
    "import torch\n"
    "w = torch.randn(3, requires_grad=True) / 10\n"
    "(w * 2).sum().backward()\n"
    "if w.grad is None:\n"
    "    raise AssertionError('the non-leaf weight has no gradient')\n",
    "the non-leaf weight has no gradient",
)
WITNESS = Witness(
    "import torch\nw = torch.randn(3, requires_grad=True) * 0.01\ntorch.optim.SGD([w], lr=0.1)\n",
    NONLEAF_ERROR,
)
