"""Which reshapes return a view whatever the strides: splitting a dim in several (and
adding or dropping dims of size 1) never needs a copy, so `reshape` of a piece of
`split` / `chunk` / `unbind` is still that piece's view (an in-place edit of it raises)."""

from __future__ import annotations

from gradlint.analysis.dataflow.shapes import as_dim, shape_value
from gradlint.analysis.dataflow.values import Tensor
from gradlint.analysis.shapes import model

RESHAPES = frozenset({"torch.reshape", "torch.Tensor.reshape"})


def splits_only(op: str, inputs: list) -> bool:
    """`op(base, *sizes)` (`inputs`: base and sizes) is a reshape that only splits
    `base`'s dims (its shape known)."""
    base = inputs[0]
    shape = base.shape if isinstance(base, Tensor) else None
    if op not in RESHAPES or shape is None or shape.dims is None:
        return False
    wanted = [shape_value(v) for v in inputs[1:]]
    if len(wanted) == 1 and isinstance(wanted[0], tuple):
        wanted = list(wanted[0])
    dims = [as_dim(size) for size in wanted]
    if not dims or any(dim is None for dim in dims):
        return False
    new = model.resolve_view_sizes(shape, dims)
    groups = model.merge_groups(shape.dims, new) if new is not None else None
    return groups is not None and all(len(olds) == 1 for olds, _ in groups)
