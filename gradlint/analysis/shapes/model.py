"""Symbolic dims and shapes, and the pure shape algebra torch applies to them.

A dim is a known `int`, a named `Sym` (a constructor argument, a batch symbol), an opaque
`Sym` (unknown but the same object wherever it is read, so `x.view(x.size(0), -1)` keeps
its first dim), or a `Prod` of those. A `Shape` is a tuple of dims (or unknown rank) and
the memory order of each dim. Every function here answers None when the answer is not
proven: callers never turn unknown into a finding.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from dataclasses import dataclass, field

import libcst as cst

_fresh_ids = itertools.count()


@dataclass(frozen=True)
class Sym:
    """A symbolic positive size. Opaque symbols stand for sizes nobody named."""

    name: str
    opaque: bool = False
    uid: int = 0  # tells apart sizes named alike (`B` of two unpacked shapes)

    def __str__(self) -> str:
        return "?" if self.opaque else self.name


@dataclass(frozen=True)
class Prod:
    """A product of symbols and an integer coefficient (`c*h`, `2*hidden`)."""

    coef: int
    syms: tuple[Sym, ...]  # sorted by name

    def __str__(self) -> str:
        parts = ([str(self.coef)] if self.coef != 1 else []) + [str(s) for s in self.syms]
        return "*".join(parts)


Dim = int | Sym | Prod


def fresh(hint: str = "") -> Sym:
    return Sym(f"?{hint}{next(_fresh_ids)}", opaque=True)


def named(name: str) -> Sym:
    """A size the code names (`B, L, H, D = x.shape`), distinct from any other."""
    return Sym(name, uid=next(_fresh_ids))


def factors(dim: Dim) -> tuple[int, Counter]:
    if isinstance(dim, int):
        return dim, Counter()
    if isinstance(dim, Sym):
        return 1, Counter({dim: 1})
    return dim.coef, Counter(dim.syms)


def _from_factors(coef: int, syms: Counter) -> Dim:
    ordered = tuple(sorted(syms.elements(), key=lambda s: s.name))
    if not ordered:
        return coef
    if coef == 1 and len(ordered) == 1:
        return ordered[0]
    return Prod(coef, ordered)


def mul(*dims: Dim) -> Dim:
    coef, syms = 1, Counter()
    for dim in dims:
        c, s = factors(dim)
        coef, syms = coef * c, syms + s
    return _from_factors(coef, syms)


def div(a: Dim, b: Dim) -> Dim | None:
    """a / b when it is proven to be a whole product, else None."""
    ca, sa = factors(a)
    cb, sb = factors(b)
    if cb == 0 or ca % cb or sb - sa:
        return None
    return _from_factors(ca // cb, sa - sb)


def floordiv(a: Dim, b: Dim) -> Dim:
    """`a // b`: the exact quotient when proven, else a size of its own, the same one
    wherever `a // b` is written again (`C // h` in `reshape(B, N, h, C // h)`)."""
    exact = div(a, b)
    if exact is not None:
        return exact
    return Sym(f"{a}//{b}", uid=hash((a, b)))


def provably_different(a: Dim, b: Dim) -> bool:
    """True when no positive values of the symbols can make a == b."""
    ca, sa = factors(a)
    cb, sb = factors(b)
    if sa == sb:
        return ca != cb
    if not sa and not sb:
        return ca != cb
    return False


def not_dividing(total: Dim, part: Dim) -> bool:
    """True when `part` provably does not divide `total` (symbols may not help)."""
    ct, st = factors(total)
    cp, sp = factors(part)
    if sp - st:
        return False
    leftover = st - sp
    return not leftover and cp != 0 and ct % cp != 0


def show(dim: Dim) -> str:
    return str(dim)


@dataclass(frozen=True)
class Shape:
    """A tensor's shape and memory layout.

    `order[i]` is the memory position of dim i (0 = outermost; a contiguous tensor has
    0, 1, 2, ...); None when unknown. `min_rank` bounds an unknown rank from below (from
    a `dim=` argument the tensor accepted) and `lead` is its known first dim.
    """

    dims: tuple[Dim, ...] | None
    order: tuple[int, ...] | None = None
    min_rank: int = 0
    lead: Dim | None = None
    dense: bool = False  # contiguous although the rank is unknown (a fresh topk result)
    # dims narrowed (a piece of split / chunk / narrow / a slice) below the stride of the
    # dim just outside them in memory: merging the two cannot be a view
    gaps: frozenset[int] = frozenset()
    swap: tuple[int, int] | None = None  # rank unknown: a dense tensor with these dims swapped
    # one loss per element (`reduction='none'`), or what elementwise ops made of it
    unreduced: bool = False
    origin: cst.CSTNode | None = field(default=None, compare=False)  # reshape that made it

    @classmethod
    def contiguous(cls, dims, origin: cst.CSTNode | None = None) -> Shape:
        dims = tuple(dims)
        return cls(dims, tuple(range(len(dims))), origin=origin)

    @classmethod
    def unknown(cls, min_rank: int = 0, lead: Dim | None = None) -> Shape:
        return cls(None, None, min_rank, lead)

    @property
    def rank(self) -> int | None:
        return None if self.dims is None else len(self.dims)

    @property
    def is_contiguous(self) -> bool:
        return self.order is not None and self.order == tuple(range(len(self.order)))

    def numel(self) -> Dim:
        return mul(*self.dims) if self.dims is not None else fresh()

    def __str__(self) -> str:
        if self.dims is None:
            return "(...)"
        inner = ", ".join(show(d) for d in self.dims)
        return f"({inner},)" if len(self.dims) == 1 else f"({inner})"


def normalize_dim(dim: int, rank: int) -> int | None:
    """A non-negative dim index, or None when out of range."""
    if dim < 0:
        dim += rank
    return dim if 0 <= dim < rank else None


def _padded(a: Shape, b: Shape) -> tuple[tuple[Dim, ...], tuple[Dim, ...]]:
    rank = max(len(a.dims), len(b.dims))
    return (1,) * (rank - len(a.dims)) + a.dims, (1,) * (rank - len(b.dims)) + b.dims


def broadcast(a: Shape, b: Shape) -> Shape | None:
    """The broadcast of two known shapes, with the layout of the first full-rank operand."""
    if a.dims is None or b.dims is None or broadcast_conflict(a, b) is not None:
        return None
    pa, pb = _padded(a, b)
    dims = []
    for x, y in zip(pa, pb, strict=True):
        if x == 1 or x == y:
            dims.append(y)
        elif y == 1 or isinstance(x, int):  # a symbol meeting an int is 1 or that int
            dims.append(x)
        elif isinstance(y, int):
            dims.append(y)
        else:
            dims.append(fresh())
    unreduced = (a.unreduced or b.unreduced) and bool(dims)
    return Shape(tuple(dims), _result_order(a, b, len(pa)), unreduced=unreduced)


def _result_order(a: Shape, b: Shape, rank: int) -> tuple[int, ...] | None:
    """TensorIterator lays the result out like its first operand of full rank."""
    for operand in (a, b):
        if operand.rank == rank and 1 not in operand.dims:
            return operand.order
    return None


def broadcast_conflict(a: Shape, b: Shape) -> tuple[int, Dim, Dim] | None:
    """(dim, size_a, size_b) of the first dims that are known ints, not 1, and differ."""
    if a.dims is None or b.dims is None:
        return None
    pa, pb = _padded(a, b)
    for i, (x, y) in enumerate(zip(pa, pb, strict=True)):
        if isinstance(x, int) and isinstance(y, int) and 1 not in (x, y) and x != y:
            return i, x, y
    return None


def matmul(a: Shape, b: Shape) -> Shape | None:
    """torch.matmul's result shape (None when unknown or the inner dims conflict)."""
    if a.dims is None or b.dims is None or not a.dims or not b.dims:
        return None
    if matmul_conflict(a, b) is not None:
        return None
    da, db = a.dims, b.dims
    if len(da) == 1 and len(db) == 1:
        return Shape.contiguous(())
    if len(db) == 1:
        return Shape.contiguous(da[:-1])
    if len(da) == 1:
        return Shape.contiguous(db[:-2] + db[-1:])
    batch = broadcast(Shape.contiguous(da[:-2]), Shape.contiguous(db[:-2]))
    if batch is None:
        return None
    return Shape.contiguous(batch.dims + (da[-2], db[-1]))


def matmul_conflict(a: Shape, b: Shape) -> tuple[Dim, Dim] | None:
    """(inner of a, inner of b) when the contracted dims provably differ."""
    if a.dims is None or b.dims is None or not a.dims or not b.dims:
        return None
    inner_a = a.dims[-1]
    inner_b = b.dims[0] if len(b.dims) == 1 else b.dims[-2]
    return (inner_a, inner_b) if provably_different(inner_a, inner_b) else None


def resolve_view_sizes(shape: Shape, sizes: list[Dim | None]) -> list[Dim] | None:
    """The new dims of `view(*sizes)`, with `-1` inferred; None when a size is unknown."""
    if shape.dims is None or any(s is None for s in sizes):
        return None
    holes = [i for i, s in enumerate(sizes) if s == -1]
    if len(holes) > 1:
        return None
    if not holes:
        return list(sizes)
    known = mul(*(s for s in sizes if s != -1))
    inferred = div(shape.numel(), known)
    if inferred is None:
        return None
    result = list(sizes)
    result[holes[0]] = inferred
    return result


def reshape_count_conflict(shape: Shape, sizes: list[Dim | None]) -> tuple[Dim, Dim] | None:
    """(input numel, requested numel or divisor) when the element counts cannot match."""
    if shape.dims is None or any(s is None for s in sizes):
        return None
    total = shape.numel()
    known = [s for s in sizes if s != -1]
    if any(isinstance(s, int) and s < 0 for s in known) or sizes.count(-1) > 1:
        return None
    product = mul(*known) if known else 1
    if -1 in sizes:
        if product == 0:
            return None
        return (total, product) if not_dividing(total, product) else None
    return (total, product) if provably_different(total, product) else None


def merge_groups(old: tuple[Dim, ...], new: list[Dim]) -> list[tuple[list[int], list[int]]] | None:
    """Pair runs of old dims with runs of new dims whose products are equal.

    Size-1 dims are left out (a view can insert or drop them freely). None when the
    products cannot be matched without knowing more.
    """
    old_idx = [i for i, d in enumerate(old) if d != 1]
    new_idx = [j for j, d in enumerate(new) if d != 1]
    groups: list[tuple[list[int], list[int]]] = []
    i = j = 0
    while i < len(old_idx) and j < len(new_idx):
        olds, news = [old_idx[i]], [new_idx[j]]
        po, pn = old[old_idx[i]], new[new_idx[j]]
        i, j = i + 1, j + 1
        while po != pn:
            if div(po, pn) is not None and j < len(new_idx):
                news.append(new_idx[j])
                pn = mul(pn, new[new_idx[j]])
                j += 1
            elif div(pn, po) is not None and i < len(old_idx):
                olds.append(old_idx[i])
                po = mul(po, old[old_idx[i]])
                i += 1
            elif j == len(new_idx):  # the last new dim takes every old dim left: the
                olds.extend(old_idx[i:])  # counts match, or torch raises on the count
                i, pn = len(old_idx), po
            elif i == len(old_idx):
                news.extend(new_idx[j:])
                j, po = len(new_idx), pn
            else:
                return None
        groups.append((olds, news))
    if i != len(old_idx) or j != len(new_idx):
        return None
    return groups


def out_of_order_merge(shape: Shape, new: list[Dim]) -> list[int] | None:
    """The old dims a view merges although they are not neighbours in memory, if any.

    Merging dims a, b (b written right after a, sizes not 1) needs b to be the dim just
    inside a in memory: when b lies outside a, or another dim of size > 1 lies between
    them, stride(a) != stride(b) * size(b) whatever the sizes are.
    """
    if shape.dims is None or shape.order is None:
        return None
    groups = merge_groups(shape.dims, new)
    if groups is None:
        return None
    sized = [i for i, d in enumerate(shape.dims) if d != 1]
    for olds, _news in groups:
        for a, b in itertools.pairwise(olds):
            low, high = shape.order[a], shape.order[b]
            if high < low or any(low < shape.order[c] < high for c in sized) or b in shape.gaps:
                return olds
    return None


def swapped_merge(shape: Shape, sizes: list[Dim | None]) -> bool:
    """A view of a tensor of unknown rank whose dims a and b were swapped, merging both:
    `x.transpose(1, 2).view(x.size(0), -1)` fails at every rank (sizes taken > 1)."""
    if shape.dims is not None or shape.swap is None or -1 not in sizes:
        return False
    if sizes == [-1]:
        return True
    return sizes == [shape.lead, -1] and shape.lead is not None and shape.swap[0] >= 1


def reordered(old: tuple[Dim, ...], new: list[Dim]) -> bool:
    """The same sizes in another order (`(B, L, H, D) -> (B, H, L, D)`, rank >= 3): a view
    that reinterprets memory where a permute was meant. The moved sizes must be ones the
    code tells apart (distinct, not 1). Sizes of 1 a view adds or drops are left out:
    `(B, 1, W, H, D) -> (B, D, H, W)` moves D, H and W all the same."""
    ones = Counter({1: max(len(old), len(new))})
    if len(old) < 3 or Counter(old) - ones != Counter(new) - ones:
        return False
    kept = [d for d in old if d != 1]
    written = [d for d in new if d != 1]
    moved = [d for d, n in zip(kept, written, strict=True) if d != n]
    return bool(moved) and len(set(moved)) == len(moved)


Group = tuple[tuple[int, ...], tuple[int, ...]]  # old dims <-> new dims of one product
_MATCH_LIMIT = 64  # matchings enumerated per reshape (ranks are small)


def _subsets(indices: list[int], least: int) -> list[tuple[int, ...]]:
    return [
        chosen
        for size in range(least, len(indices) + 1)
        for chosen in itertools.combinations(indices, size)
    ]


def _matchings(old: list[Dim], new: list[Dim], left: list[int], right: list[int]):
    """Every way of pairing the dims `left` of old with the dims `right` of new into
    groups of one old dim and its equal new dim, several old dims merged into one new
    dim, or one old dim split into several new dims."""
    if not right:
        if not left:
            yield []
        return
    j = right[0]
    options: list[Group] = []
    for chosen in _subsets(left, 1):
        if mul(*(old[i] for i in chosen)) == new[j]:
            options.append((chosen, (j,)))
    rest = right[1:]
    for i in left:
        for others in _subsets(rest, 1):
            if mul(*(new[k] for k in (j, *others))) == old[i]:
                options.append(((i,), (j, *others)))
    for olds, news in options:
        remaining_old = [i for i in left if i not in olds]
        remaining_new = [k for k in right if k not in news]
        for tail in _matchings(old, new, remaining_old, remaining_new):
            yield [(olds, news), *tail]


def _in_order(groups: list[Group]) -> bool:
    ordered = sorted(groups, key=lambda g: g[1][0])
    olds = [i for g in ordered for i in g[0]]
    news = [j for g in ordered for j in g[1]]
    return olds == sorted(olds) and news == sorted(news)


def moved_while_merging(old: tuple[Dim, ...], new: list[Dim]) -> list[Group] | None:
    """Dims a reshape moves while it merges or splits others, when every reading of the
    new sizes as the old ones merged, split or kept puts some in another order:
    `(B, H, S, D) -> (B, S, H * D)` (H merged with D across S), `(B, N, HW, d) -> (B, N,
    d, H, W)`. None when some reading keeps the order, when none exists, or when the
    only change is a reorder of whole dims (`reordered`). Sizes of 1 are left out."""
    if max(len(old), len(new)) < 3:
        return None
    left = [i for i, d in enumerate(old) if d != 1]
    right = [j for j, d in enumerate(new) if d != 1]
    found = list(itertools.islice(_matchings(list(old), list(new), left, right), _MATCH_LIMIT))
    if not found or len(found) == _MATCH_LIMIT or any(_in_order(g) for g in found):
        return None
    groups = found[0]
    if all(len(olds) == 1 and len(news) == 1 for olds, news in groups):
        return None
    return groups


def permuted(shape: Shape, perm: list[int]) -> Shape | None:
    if shape.dims is None or sorted(perm) != list(range(len(shape.dims))):
        return None
    order = tuple(shape.order[p] for p in perm) if shape.order is not None else None
    gaps = frozenset(j for j, p in enumerate(perm) if p in shape.gaps)
    return Shape(tuple(shape.dims[p] for p in perm), order, gaps=gaps)


def reduced(shape: Shape, dims: list[int] | None, keepdim: bool) -> Shape | None:
    """A reduction over `dims` (all dims when None)."""
    if dims is None:
        return Shape.contiguous(())
    if shape.dims is None:
        return None
    rank = len(shape.dims)
    picked = {normalize_dim(d, rank) for d in dims}
    if None in picked:
        return None
    if keepdim:
        return Shape.contiguous(1 if i in picked else d for i, d in enumerate(shape.dims))
    return Shape.contiguous(d for i, d in enumerate(shape.dims) if i not in picked)


def arange_length(start: int, end: int, step: int) -> int | None:
    if step == 0:
        return None
    return max(0, math.ceil((end - start) / step))
