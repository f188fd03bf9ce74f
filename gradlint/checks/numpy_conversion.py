"""GL207: a tensor that requires grad handed to numpy (`t.numpy()`, `np.array(t)`,
`np.mean(losses)` over a list of losses), decided from the dataflow's events: torch
raises."""

from __future__ import annotations

import libcst as cst

from gradlint.checks import Checker
from gradlint.diagnostic import Witness, headline

NUMPY_ERROR = "Can't call numpy() on Tensor that requires grad"

_WITNESS = Witness(
    "import numpy as np\nimport torch\n"
    "w = torch.ones(2, requires_grad=True)\n"
    "losses = [(w * 2).sum(), (w * 3).sum()]\n"
    "np.mean(losses)\n",
    NUMPY_ERROR,
)


class NumpyOfGradChecker(Checker):
    """GL207 numpy conversion of a tensor that requires grad."""

    codes = ("GL207",)

    def leave_Module(self, node: cst.Module) -> None:
        reported: set[cst.CSTNode] = set()
        for event in self.file.dataflow.arrays_of_grad:
            if event.node in reported:
                continue
            reported.add(event.node)
            self.report(
                event.node,
                "GL207",
                headline(
                    "{how} is given a tensor that requires grad",
                    how=event.how,
                ),
                witness=_WITNESS,
                detail=(
                    f'Torch raises RuntimeError ("{NUMPY_ERROR}. Use tensor.detach().numpy() '
                    'instead."): numpy reads the values out of the tensor, which still '
                    "carries its graph. Keep a number (`loss.item()`) or a detached copy "
                    "(`t.detach().cpu().numpy()`) for logging and plotting."
                ),
            )
