"""Concrete sizes for witness programs: each symbol becomes its own small integer > 1."""

from __future__ import annotations

from gradlint.analysis.shapes.model import Dim, Prod, Shape, Sym

_SIZES = (3, 5, 7, 11, 13, 17, 19, 23)


class Concretizer:
    """Replaces symbols by distinct small primes, the same one each time a symbol recurs."""

    def __init__(self) -> None:
        self._values: dict[Sym, int] = {}

    def dim(self, dim: Dim) -> int:
        if isinstance(dim, int):
            return dim
        if isinstance(dim, Prod):
            value = dim.coef
            for sym in dim.syms:
                value *= self.dim(sym)
            return value
        if dim not in self._values:
            self._values[dim] = _SIZES[len(self._values) % len(_SIZES)]
        return self._values[dim]

    def dims(self, dims) -> tuple[int, ...]:
        return tuple(self.dim(d) for d in dims)

    def tensor(self, shape: Shape, extra: str = "") -> str:
        """`torch.randn(...)` text building a tensor of this shape and memory layout."""
        dims = self.dims(shape.dims)
        wide = [d + 1 if i in shape.gaps else d for i, d in enumerate(dims)]
        narrowed = "".join(f".narrow({i}, 0, {dims[i]})" for i in sorted(shape.gaps))
        order = shape.order or tuple(range(len(dims)))
        if order == tuple(range(len(dims))):
            return f"torch.randn({_tuple(wide)}{extra}){narrowed}"
        base = [0] * len(dims)
        for i, position in enumerate(order):
            base[position] = wide[i]
        return f"torch.randn({_tuple(base)}{extra}).permute{_tuple(order)}{narrowed}"


def _tuple(values) -> str:
    values = tuple(values)
    return f"({values[0]},)" if len(values) == 1 else str(values)
