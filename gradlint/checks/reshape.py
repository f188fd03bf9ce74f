"""Reshapes and products whose proven shapes torch rejects or silently mis-reads (GL401-GL404)."""

from __future__ import annotations

from pathlib import PurePath

import libcst as cst

from gradlint import fixes
from gradlint.analysis.dataflow.events import ShapeConflict as Conflict
from gradlint.analysis.shapes import Shape, model
from gradlint.analysis.shapes.model import show
from gradlint.analysis.shapes.witness import Concretizer
from gradlint.analysis.walk import iter_nodes
from gradlint.checks import Checker
from gradlint.diagnostic import Fix, Witness, headline

_VIEW_MESSAGE = "view size is not compatible with input tensor's size and stride"
_MATMUL_MESSAGE = "mat1 and mat2 shapes cannot be multiplied"
_KINDS = frozenset(
    {
        "view_order",
        "reshape_count",
        "reordered",
        "moved",
        "split_order",
        "batch_literal",
        "reshape_feeds_layer",
        "matmul",
        "linear",
        "broadcast",
    }
)


def _call_name(node: cst.Call) -> str | None:
    func = node.func
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return func.value if isinstance(func, cst.Name) else None


class ShapeConflictChecker(Checker):
    """GL401-GL404 from the shape conflicts the dataflow interpreter proved."""

    codes = ("GL401", "GL402", "GL403", "GL404")

    def leave_Module(self, node: cst.Module) -> None:
        for by_kind in self.file.dataflow.shape_conflicts.values():
            for conflict in by_kind.values():
                if conflict.kind in ("reshape_count", "moved") and "batch_literal" in by_kind:
                    continue  # the hard-coded batch size is the cause: one finding
                if conflict.kind == "batch_literal" and self._test_model(conflict.node):
                    continue  # a test builds the inputs of the size the model was written for
                if conflict.kind in _KINDS:
                    getattr(self, f"_{conflict.kind}")(conflict)

    # -- GL401 -------------------------------------------------------------------------

    def _view_order(self, conflict: Conflict) -> None:
        (shape,) = conflict.operands
        new, merged = conflict.extra
        values = Concretizer()
        if shape.dims is None:  # rank unknown: dims swapped by a transpose, then merged
            first, second = shape.swap
            dims = (3, 5, 7, 11, 13, 17)[: max(shape.min_rank, 3)]
            sizes = "(-1)" if new == (-1,) else f"({dims[0]}, -1)"
            program = (
                f"import torch\nx = torch.randn{dims}.transpose({first}, {second})\nx.view{sizes}\n"
            )
            what = f"dims {first} and {second}, which a transpose swapped"
        else:
            tensor = values.tensor(shape)
            program = f"import torch\nx = {tensor}\nx.view{_concrete_view(values, shape, new)}\n"
            names = ", ".join(str(d) for d in merged)
            what = f"dims {names} of a tensor of shape {shape}, whose memory order was changed"
        self.report(
            conflict.node,
            "GL401",
            headline("{call} merges {what}", call=f"`{self._written(conflict.node)}`", what=what),
            fix=self._reshape_fix(conflict.node),
            detail=(
                "A transpose / permute / `.t()` (or a piece cut by split / chunk / a slice) "
                "changed their memory order, so they are not adjacent in memory: torch raises "
                f"'{_VIEW_MESSAGE}'. Use `.reshape(...)` (copies only when needed) or "
                "`.contiguous().view(...)`."
            ),
            witness=Witness(program, _VIEW_MESSAGE),
        )

    def _written(self, node: cst.CSTNode) -> str:
        """The call as written, shortened for a one-line message."""
        text = " ".join(self.file.code_for(node).split())
        return text if len(text) <= 60 else f"...{text[-57:]}"

    def _reshape_fix(self, node: cst.CSTNode) -> Fix | None:
        if not isinstance(node, cst.Call) or not isinstance(node.func, cst.Attribute):
            return None
        attr = node.func.attr
        return fixes.replace(
            self.file,
            attr,
            attr.with_changes(value="reshape"),
            "use reshape, which copies when the layout requires it",
        )

    # -- GL402 -------------------------------------------------------------------------

    def _reshape_count(self, conflict: Conflict) -> None:
        (shape,) = conflict.operands
        sizes, (total, requested), *unflattened = conflict.extra
        values = Concretizer()
        written = ", ".join(show(s) for s in sizes)
        tensor, concrete = values.tensor(shape), _concrete(values, sizes)
        if unflattened:
            (dim,) = unflattened
            written = f"{dim}, ({written})"
            program = f"import torch\n{tensor}.unflatten({dim}, {concrete})\n"
            expect, where = "unflatten: Provided sizes", f"dim {dim} holds"
        else:
            program = f"import torch\n{tensor}.{conflict.op}{concrete}\n"
            expect, where = "shape '[", "it holds"
        if -1 in sizes:
            problem = f"{show(total)} elements cannot be split into groups of {show(requested)}"
        else:
            problem = f"{where} {show(total)} elements, the new sizes {show(requested)}"
        self.report(
            conflict.node,
            "GL402",
            headline(
                "{call} of a tensor of shape {shape} does not fit its element count",
                call=f"`.{conflict.op}({written})`",
                shape=str(shape),
            ),
            witness=Witness(program, expect),
            detail=(
                f"{problem[0].upper()}{problem[1:]}: torch raises '{expect} ...'. Make the "
                "sizes multiply to the element count (derive them from `x.shape`)."
            ),
        )

    # -- GL403 -------------------------------------------------------------------------

    def _reordered(self, conflict: Conflict) -> None:
        (shape,) = conflict.operands
        (new,) = conflict.extra
        values = Concretizer()
        remaining = list(range(len(shape.dims)))
        perm = []
        for dim in new:
            source = next(i for i in remaining if shape.dims[i] == dim)
            remaining.remove(source)
            perm.append(source)
        program = (
            f"import torch\nx = {values.tensor(shape)}\n"
            f"y = x.{conflict.op}{_concrete(values, new)}\n"
            f"if not torch.equal(y, x.permute{_tuple_text(perm)}):\n"
            "    raise RuntimeError('dims were not moved: the view mixes them')\n"
        )
        target = "(" + ", ".join(show(d) for d in new) + ")"
        self.report(
            conflict.node,
            "GL403",
            headline(
                "{call} turns shape {shape} into {target} without moving the dims",
                call=f"`{self._written(conflict.node)}`",
                shape=str(shape),
                target=target,
            ),
            witness=Witness(program, "dims were not moved"),
            detail=(
                "The same sizes in another order: the elements keep their memory order and "
                "every slice mixes what the dims held (no error is raised). Move dims with "
                "`.permute(...)` / `.transpose(...)`."
            ),
        )

    def _moved(self, conflict: Conflict) -> None:
        """GL403 clause: dims moved while others are merged or split."""
        (shape,) = conflict.operands
        new, groups = conflict.extra
        ordered = sorted(groups, key=lambda group: group[1][0])
        perm = [i for olds, _ in ordered for i in olds]
        perm += [i for i in range(len(shape.dims)) if i not in perm]  # the sizes of 1
        values = Concretizer()
        sizes = _concrete(values, new)
        program = (
            f"import torch\nx = {values.tensor(shape)}\n"
            f"y = x.{conflict.op}{sizes}\n"
            f"if not torch.equal(y, x.permute{_tuple_text(perm)}.reshape{sizes}):\n"
            "    raise RuntimeError('dims were not moved: the reshape mixes them')\n"
        )
        target = "(" + ", ".join(show(d) for d in new) + ")"
        self.report(
            conflict.node,
            "GL403",
            headline(
                "{call} turns shape {shape} into {target}, reordering dims it merges or splits",
                call=f"`{self._written(conflict.node)}`",
                shape=str(shape),
                target=target,
            ),
            witness=Witness(program, "dims were not moved"),
            detail=(
                "It takes the dims in another order while merging or splitting them (no error "
                "is raised): the elements keep their memory order, so each new dim mixes "
                f"pieces of other positions. Move the dims first (`.permute{_tuple_text(perm)}` "
                "or `.transpose(...)`), then reshape."
            ),
        )

    def _split_order(self, conflict: Conflict) -> None:
        """GL403 clause: a merged dim split back into its factors in another order."""
        (shape,) = conflict.operands
        new, position, made = conflict.extra
        target = "(" + ", ".join(show(d) for d in new) + ")"
        made_text = " * ".join(made)
        self.report(
            conflict.node,
            "GL403",
            headline(
                "{call} splits dim {position} of {shape} into {target}: factors swapped from "
                "its merge ({made})",
                call=f"`{self._written(conflict.node)}`",
                position=str(position),
                shape=str(shape),
                target=target,
                made=made_text,
            ),
            detail=(
                f"Dim {position} was made by merging ({made_text}), outermost first; splitting "
                "it with the factors swapped raises no error, but each new dim mixes pieces of "
                "the other (rows of one batch item land under another). Split in the order of "
                "the merge, then `permute` / `transpose` the dims where they belong."
            ),
        )

    def _batch_literal(self, conflict: Conflict) -> None:
        size, constant = conflict.extra
        written = f"`{constant}` ({size})" if constant else str(size)
        call = conflict.node
        sizes = _literal_sizes(call)
        sizes[0] = size
        rest = [s for s in sizes[1:] if s not in (-1, None)]
        program = (
            f"import torch\nx = torch.randn({size + 1}, {_product(rest)})\n"
            f"x.{conflict.op}{_tuple_text(sizes)}\n"
        )
        self.report(
            call,
            "GL403",
            headline(
                "{call} hard-codes the batch size {written} as the leading dim",
                call=f"`.{conflict.op}(...)`",
                written=written,
            ),
            witness=Witness(program, "shape '[") if None not in sizes else None,
            detail=(
                "The tensor's first dim is the batch (a forward() input, or rows cut into "
                "batches): any other batch size (the smaller last batch, evaluation with "
                "batch 1) raises or silently folds samples into each other. Use `x.size(0)` "
                "(e.g. `x.view(x.size(0), -1)`)."
            ),
        )

    def _test_model(self, node: cst.CSTNode) -> bool:
        """The reshape is in a model of a test file (`test_*.py`, `*_test.py`, `conftest.py`)
        that the file's tests call: they build its inputs by hand, of the size the model
        was written for."""
        path = PurePath(self.file.path)
        test_file = path.name.startswith("test_") or path.stem.endswith("_test")
        if not (test_file or path.name == "conftest.py"):
            return False
        called = self.file.dataflow.called
        return any(
            isinstance(function, cst.FunctionDef) and any(n is node for n in iter_nodes(function))
            for function in called
        )

    def _reshape_feeds_layer(self, conflict: Conflict) -> None:
        (shape,) = conflict.operands
        (in_features,) = conflict.extra
        features = shape.dims[-1]
        values = Concretizer()
        wanted = values.dim(in_features)
        sizes = _literal_sizes(conflict.node)
        explicit = [s for s in sizes if s not in (-1, None)]
        program = (
            f"import torch\nx = torch.randn(2, {_product(explicit)} * {wanted})\n"
            f"x = x.{_call_name(conflict.node)}{_tuple_text(sizes)}\n"
            f"torch.nn.functional.linear(x, torch.randn(4, {wanted}))\n"
        )
        self.report(
            conflict.node,
            "GL403",
            headline(
                "This reshape makes rows of {features} features (shape {shape}) but the next "
                "layer expects {wanted}",
                features=str(show(features)),
                shape=str(shape),
                wanted=str(show(in_features)),
            ),
            witness=Witness(program, _MATMUL_MESSAGE) if None not in sizes else None,
            detail=(
                "The `-1` folds features into the batch dim and mixes samples. Keep the batch "
                "dim (`x.reshape(x.size(0), -1)` or `x.flatten(1)`) or give the layer "
                f"{show(features)} input features."
            ),
        )

    # -- GL404 -------------------------------------------------------------------------

    def _matmul(self, conflict: Conflict) -> None:
        a, b = conflict.operands
        inner_a, inner_b = conflict.extra
        values = Concretizer()
        call = "x @ y" if conflict.op == "@" else f"torch.{conflict.op}(x, y)"
        program = f"import torch\nx = {values.tensor(a)}\ny = {values.tensor(b)}\n{call}\n"
        self.report(
            conflict.node,
            "GL404",
            headline(
                "{op} of shapes {a} and {b} contracts dims of different sizes",
                op=f"`{conflict.op}`",
                a=str(a),
                b=str(b),
            ),
            witness=Witness(program, _matmul_message(a.rank, b.rank)),
            detail=(
                f"The contracted dims differ ({show(inner_a)} vs {show(inner_b)}), so torch "
                "raises a shape error. Transpose or reshape one operand so the last dim of "
                "the first matches the second-to-last of the second."
            ),
        )

    def _linear(self, conflict: Conflict) -> None:
        (x,) = conflict.operands
        in_features, out_features = conflict.extra
        if x.origin is not None:
            return  # reported as GL403 at the reshape that produced x
        values = Concretizer()
        program = (
            f"import torch\nx = {values.tensor(x)}\n"
            f"torch.nn.functional.linear(x, torch.randn({values.dim(out_features)}, "
            f"{values.dim(in_features)}))\n"
        )
        self.report(
            conflict.node,
            "GL404",
            headline(
                "The input has shape {shape} ({features} features) but the linear layer "
                "expects {wanted} input features",
                shape=str(x),
                features=str(show(x.dims[-1])),
                wanted=str(show(in_features)),
            ),
            witness=Witness(program, _MATMUL_MESSAGE),
            detail=(
                f"Torch raises '{_MATMUL_MESSAGE}'. Flatten / reshape the input to "
                "(batch, in_features) or fix the layer's size."
            ),
        )

    def _broadcast(self, conflict: Conflict) -> None:
        a, b = conflict.operands
        dim, size_a, size_b = conflict.extra
        values = Concretizer()
        program = f"import torch\n{values.tensor(a)} + {values.tensor(b)}\n"
        self.report(
            conflict.node,
            "GL404",
            headline(
                "Elementwise {op} of shapes {a} and {b} cannot broadcast",
                op=f"`{conflict.op}`",
                a=str(a),
                b=str(b),
            ),
            witness=Witness(program, "The size of tensor a"),
            detail=(
                f"Aligned from the right, sizes {size_a} and {size_b} differ and neither is 1. "
                "Reshape or unsqueeze one operand so the dims line up."
            ),
        )


def _matmul_message(rank_a: int, rank_b: int) -> str:
    """The error torch.matmul raises for operands of these ranks."""
    if rank_a == 1 and rank_b == 1:
        return "inconsistent tensor size"
    if rank_b == 1:
        return "size mismatch"
    if rank_b >= 3:
        return "Expected size for first two dimensions of batch2 tensor"
    return _MATMUL_MESSAGE


def _concrete(values: Concretizer, sizes) -> str:
    return _tuple_text([s if s == -1 else values.dim(s) for s in sizes])


def _concrete_view(values: Concretizer, shape: Shape, sizes) -> str:
    """The sizes of a view of `shape` with each new dim that takes a run of old dims
    given their product, so the element counts match (`C` merging `h, C // h`)."""
    groups = model.merge_groups(shape.dims, list(sizes)) if -1 not in sizes else None
    if groups is None:
        return _concrete(values, sizes)
    concrete = [values.dim(s) for s in sizes]
    for olds, news in groups:
        if len(news) == 1:
            concrete[news[0]] = _product([values.dim(shape.dims[i]) for i in olds])
    return _tuple_text(concrete)


def _tuple_text(sizes) -> str:
    return "(" + ", ".join(str(s) for s in sizes) + ")"


def _product(sizes: list[int]) -> int:
    result = 1
    for size in sizes:
        result *= size
    return result


def _literal_sizes(node: cst.CSTNode) -> list[int | None]:
    """The integer literals a reshape call was written with (None for anything else)."""
    if not isinstance(node, cst.Call):
        return [None]
    args = [arg.value for arg in node.args]
    if len(args) == 1 and isinstance(args[0], cst.Tuple | cst.List):
        args = [element.value for element in args[0].elements]
    return [_int_of(arg) for arg in args]


def _int_of(expr: cst.BaseExpression) -> int | None:
    if isinstance(expr, cst.Integer):
        return int(expr.evaluated_value)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.expression, cst.Integer):
        return -int(expr.expression.evaluated_value)
    return None
