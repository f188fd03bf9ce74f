"""Whether a saved output edited in place is ever differentiated afterwards.

An op that saves its own output (`amax`, `softmax`, `exp`, `sigmoid`) is reached by
backward only through that output and what is computed from it. When a function edits
such a fresh local output in place before any other use, the edit breaks backward only if
the edited tensor later reaches a differentiable use. Reads that cannot carry a gradient
are not uses: comparisons, non-differentiable ops (`argmax`, `eq`, `multinomial`), metadata
(`.shape`, `.size()`), and the indices of `topk` / `sort` / `max(dim)` (their values are
followed). Any other read of the tensor or of the values derived from it is a use; an edit
whose tensor is never used again is reported without its saver (backward never runs the
op's backward, so nothing raises).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from gradlint.analysis import knowledge
from gradlint.analysis.dataflow.events import InplaceEdit

# metadata attributes: reading them is no use of the values
METADATA_ATTRIBUTES = frozenset({"shape", "dtype", "device", "ndim", "is_cuda", "layout"})
# ops returning (values, indices): the values stay differentiable, the indices do not
VALUES_AND_INDICES = frozenset({"topk", "sort", "kthvalue", "mode", "cummax", "cummin"})
VALUES_AND_INDICES_WITH_DIM = frozenset({"max", "min", "median"})
# ops without a knowledge row whose results carry no gradient
_NO_GRADIENT = frozenset(
    {"multinomial", "argmax", "argmin", "argsort", "size", "dim", "numel", "item", "tolist"}
)


NO_GRADIENT = "no gradient"  # the expression's result carries none: its reads are no use
FOLLOW = "follow"  # a (values, indices) op: its values carry the receiver's gradient


@dataclass
class SavedUses:
    """Per state: `fresh` output storages an op saved, each with the statement of its first
    use (None while unused); `watch` storages of edited fresh outputs (and values computed
    from them) with the edits a differentiable use would confirm; `quiet` while evaluating
    an expression whose reads are no use (NO_GRADIENT) or are followed (FOLLOW)."""

    fresh: dict[int, cst.CSTNode | None] = field(default_factory=dict)
    watch: dict[int, tuple[InplaceEdit, ...]] = field(default_factory=dict)
    quiet: str | None = None
    # while evaluating `name = expr`: the watched storages it read differentiably, whose
    # edits the bound result carries (shared by the copies branches make meanwhile)
    carried: set[int] | None = None

    def copy(self) -> SavedUses:
        return SavedUses(dict(self.fresh), dict(self.watch), self.quiet, self.carried)

    def join(self, other: SavedUses) -> None:
        """After two paths meet: fresh only if fresh alike on both, watched if on either."""
        self.fresh = {
            storage: first
            for storage, first in self.fresh.items()
            if storage in other.fresh and other.fresh[storage] is first
        }
        for storage, edits in other.watch.items():
            self._watch_also(storage, edits)

    def saved_output(self, storage: int) -> None:
        self.fresh.setdefault(storage, None)

    def read(self, storage: int, statement: cst.CSTNode | None) -> None:
        """A read of `storage` in `statement`: the first use of a fresh output is recorded
        (an edit in that same statement is still its first use); a differentiable read of
        a watched tensor confirms its edits."""
        if self.quiet == NO_GRADIENT:
            return
        if storage in self.fresh:
            first = self.fresh[storage]
            if first is None:
                self.fresh[storage] = statement
            elif first is not statement:
                del self.fresh[storage]
        if self.quiet is None and storage in self.watch:
            if self.carried is not None:
                self.carried.add(storage)
            else:
                self._confirm(storage)

    def carry(self) -> set[int] | None:
        """Start evaluating the value of `name = expr`; the set being carried before."""
        outer, self.carried = self.carried, set()
        return outer

    def carried_into(self, outer: set[int] | None, result: int | None) -> None:
        """`name = expr` evaluated: the watched tensors it read reach backward only if the
        result bound does (`y = net(x)`, `z = torch.min(y, w)`): the result's storage is
        watched for their edits. `result` None (not one tensor, or the evaluation changed
        instances, which may keep what it read): each read is a use."""
        read, self.carried = self.carried or set(), outer
        if outer is not None:
            outer |= read
            return
        for storage in read:
            if result is None:
                self._confirm(storage)
            else:
                self._watch_also(result, self.watch.get(storage, ()))

    def _confirm(self, storage: int) -> None:
        """A use of the watched tensor: its edits break backward after all."""
        for edit in self.watch.pop(storage, ()):
            edit.unused = False

    def _watch_also(self, storage: int, edits: tuple[InplaceEdit, ...]) -> None:
        mine = self.watch.get(storage, ())
        self.watch[storage] = mine + tuple(e for e in edits if e not in mine)

    def edited(self, edit: InplaceEdit, storage: int, statement: cst.CSTNode | None) -> None:
        """An in-place edit of a tensor an op saved: watched when it is a fresh output
        whose only use so far is this statement."""
        if edit.saver is None or storage not in self.fresh:
            return
        if self.fresh[storage] not in (None, statement):
            return
        edit.unused = True
        self.watch[storage] = (*self.watch.get(storage, ()), edit)

    def follow(self, source: int, result: int) -> bool:
        """`result` carries the gradient of `source` (topk's values): watched alike."""
        if source not in self.watch:
            return False
        self.watch[result] = self.watch[source]
        return True


def carries_no_gradient(method: str | None, qualified: str | None) -> bool:
    """A call whose result carries no gradient: reading its operands is no use."""
    if method is not None:
        if method in _NO_GRADIENT:
            return True
        facts = knowledge.method(method)
        return facts is not None and not facts.differentiable
    if qualified is not None and qualified.startswith("torch."):
        name = qualified.rpartition(".")[2]
        if name in _NO_GRADIENT:
            return True
        facts = knowledge.op(qualified)
        return facts is not None and not facts.differentiable
    return False


def values_and_indices(method: str, call: cst.Call) -> bool:
    """`t.topk(k)`, `t.sort()`, `t.max(dim)`: a (values, indices) pair."""
    if method in VALUES_AND_INDICES:
        return True
    if method not in VALUES_AND_INDICES_WITH_DIM or not call.args:
        return False
    first = call.args[0]
    value = first.value
    if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus):
        value = value.expression
    return (first.keyword is not None and first.keyword.value == "dim") or isinstance(
        value, cst.Integer
    )
