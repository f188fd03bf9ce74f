"""The abstract values the interpreter computes: what is proven about each name.

`None` everywhere means unknown, and unknown never becomes a finding. A tensor is
identified by its storage: views share their base's storage (and version counter), so an
edit of a view is an edit of the base.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass, field
from enum import Enum
from typing import TypeVar

import libcst as cst

from gradlint.analysis.context import ClassInfo
from gradlint.analysis.dataflow.graphs import GraphNode, either
from gradlint.analysis.shapes.model import Dim, Shape

_storages = itertools.count(1)
T = TypeVar("T")


def new_storage() -> int:
    return next(_storages)


# Instances are stamped with the generation of function summaries they were made in
# (summaries.py): a change of an instance older than the latest summary may change what a
# summarised function would compute.
_generation = [0]


def generation() -> int:
    return _generation[0]


def new_generation() -> None:
    _generation[0] += 1


def replace(value: T, /, **changes) -> T:
    """`dataclasses.replace` for the dataflow's records (no `__post_init__`, no init-less
    fields, no slots), without its per-field checks and keyword call: the interpreter
    derives a value this way at most expressions it evaluates."""
    new = object.__new__(type(value))
    fields = new.__dict__
    fields.update(value.__dict__)
    fields.update(changes)
    return new


@dataclass(frozen=True)
class Cut:
    """Where a value left the graph of the parameters: `code` GL201 (converted to a Python
    number or rebuilt as a new tensor), GL202 (detached, or computed under no_grad) or
    GL203 (a non-differentiable op); `node` None until the expression is known (cuts.py)."""

    code: str
    how: str
    node: cst.CSTNode | None = field(default=None, repr=False)
    integer: bool = False  # it made an integer / bool tensor (indices, a mask)
    graph: GraphNode | None = field(default=None, repr=False, compare=False)  # what it cut


class Grad(Enum):
    """What autograd knows of a tensor."""

    OFF = "off"  # requires no grad (a factory result, a detached tensor, a frozen parameter)
    LEAF = "leaf"  # a leaf that requires grad: a parameter, `requires_grad=True`
    ON = "on"  # computed from tensors that require grad: a non-leaf with a grad_fn
    UNKNOWN = "unknown"

    @property
    def requires_grad(self) -> bool | None:
        if self is Grad.UNKNOWN:
            return None
        return self is not Grad.OFF


@dataclass(frozen=True)
class Tensor:
    """A tensor and what is proven about it."""

    storage: int
    grad: Grad = Grad.UNKNOWN
    view: bool = False  # a view of the storage's base, not the base itself
    leaf_view: bool = False  # a view of a leaf that requires grad (a non-leaf itself)
    no_grad_made: bool = False  # needs no grad because no_grad was on when it was computed
    frozen_made: bool = False  # needs no grad because the parameters it came from are frozen
    multi_view: str | None = None  # one of several views chunk/split/unbind returned
    function_view: str | None = None  # an input a custom autograd.Function returned as-is
    is_tensor: bool = False  # proven to be a tensor (not a Python number)
    buffer: bool = False  # allocated to be filled (`torch.zeros(...)`, `empty_like`, ...)
    contiguous: bool = False  # proven contiguous (so `reshape` of it returns a view)
    described: str = ""  # for messages: "parameter", "leaf tensor", "forward() argument"
    forward_input: str | None = None  # the forward() argument it is
    input_of: cst.FunctionDef | None = field(default=None, repr=False)  # its forward()
    dtype: str | None = None  # "int", "bool" or "float" when proven (dtypes.py)
    graph: GraphNode | None = field(default=None, repr=False)  # its history (graphs.py)
    shape: Shape | None = None  # symbolic shape and memory layout (dataflow/shapes.py)
    # the parameters' graph reaches it only through this cut (cuts.py)
    cut: Cut | None = field(default=None, repr=False)
    # an additive term of it was cut from the parameters' graph (cuts.py)
    dropped: Cut | None = field(default=None, repr=False)
    # requires grad (unless `grad` is OFF), only through leaves that are not parameters:
    # made with `requires_grad=True` / `requires_grad_()`, or computed from such alone
    plain_leaf: bool = False
    # parameters a join merged (it is one of them, not known which): their storages
    merged: frozenset[int] = frozenset()
    # read as an item of a list holding any number of tensors (`xs[i]`): the list's
    # representative, standing for each of them, so what an op saves of it holds for one
    one_of_many: bool = False

    def derived(self, grad: Grad | None = None, is_tensor: bool | None = None) -> Tensor:
        """A new tensor computed from this one."""
        grad = self.grad_of_result() if grad is None else grad
        return Tensor(
            new_storage(),
            grad,
            is_tensor=self.is_tensor if is_tensor is None else is_tensor,
            contiguous=self.contiguous,  # elementwise results keep their input's layout
            graph=self.graph if grad is Grad.ON else None,
            frozen_made=self.frozen_made and grad is Grad.OFF,
            cut=self.cut,
            plain_leaf=self.plain_leaf and grad is Grad.ON,
        )

    def grad_of_result(self) -> Grad:
        if self.grad in (Grad.LEAF, Grad.ON):
            return Grad.ON
        return self.grad

    def as_view(self, grad: Grad | None = None) -> Tensor:
        """A view of this tensor: a view of a leaf requiring grad has a grad_fn (a non-leaf)
        but an in-place edit of it is still an edit of the leaf."""
        if grad is not None:
            graph = self.graph if grad is Grad.ON else None
            return replace(
                self,
                view=True,
                buffer=False,
                grad=grad,
                leaf_view=False,
                contiguous=False,
                graph=graph,
                shape=None,
                plain_leaf=self.plain_leaf and grad is not Grad.OFF,
            )
        of_leaf = self.grad is Grad.LEAF or self.leaf_view
        grad = Grad.ON if of_leaf else self.grad
        return replace(
            self,
            view=True,
            buffer=False,
            grad=grad,
            leaf_view=of_leaf,
            contiguous=False,
            shape=None,
        )


@dataclass(frozen=True)
class Const:
    """A Python literal: a bool, number, string or None."""

    value: object


@dataclass(frozen=True)
class Number:
    """A Python number read out of a tensor (`t.item()`, `float(t)`), with the cut that
    took it out of the parameters' graph, if any."""

    cut: Cut | None = None
    data: bool = False  # read out of data only (no cut, and no graph of the parameters)
    # may be an array or a list (`.numpy()`, `.tolist()`, numpy's), or what an operand not
    # proven a number makes it (`t.item() * reward`: reward may be a tensor)
    array: bool = False


@dataclass(frozen=True)
class Size:
    """An int known only symbolically: a dim read from a tensor (`B` of `B, L = x.shape`)."""

    dim: Dim


ANY_PARAMETER = "*"  # the parameter `for p in m.parameters()` stands for: any one of m's


@dataclass(frozen=True)
class Seq:
    """A tuple or list of values, or a homogeneous sequence (`items` of one, `any_length`)."""

    items: tuple[Value | None, ...]
    any_length: bool = False
    # a list a loop grew by the same items each pass (`layers += [conv, act]`): one pass's
    # items in order, repeated any number of times
    cycle: tuple[Value | None, ...] | None = field(default=None, compare=False)
    # a list drawn from modules' parameters (`list(m.parameters())`, `filter(lambda p:
    # p.requires_grad, m.parameters())`, their sums): the storages of the parameters in it
    parameters: frozenset[int] | None = None

    def item(self, index: int | None) -> Value | None:
        if self.any_length:
            return self.items[0] if self.items else None
        if index is None or not -len(self.items) <= index < len(self.items):
            return None
        return self.items[index]


@dataclass(frozen=True)
class Mapping:
    """A dict literal with string keys; `others`: what every other key holds (the value
    of a dict comprehension)."""

    items: tuple[tuple[str, Value | None], ...]
    others: Value | None = None

    def get(self, key: str | None) -> Value | None:
        return dict(self.items).get(key) if key is not None else None


@dataclass(eq=False)
class Obj:
    """An instance of an nn.Module (a torch layer or a class of the project), or of
    another class of the file. Attributes are one heap cell per instance."""

    kind: str  # the torch layer's qualified name, or the local class name
    info: ClassInfo | None = field(default=None, repr=False)  # the local class
    constructor: cst.Call | None = field(default=None, repr=False)
    # what its constructor was called with: (positional values, keyword values)
    arguments: tuple[list, dict] | None = field(default=None, repr=False)
    attrs: dict[str, Value | None] = field(default_factory=dict)
    frozen: bool = False  # something set requires_grad off on it or on its parameters
    grad_off: bool = False  # every parameter of it proven frozen (freezing.py)
    inplace_at: cst.CSTNode | None = field(default=None, repr=False)  # `m.inplace = True`
    torch_layer: bool = False
    parameters: tuple[str, ...] = ()  # a torch layer's parameter attributes
    layer_shape: object = field(default=None, repr=False)  # its shape transfer (shapes.py)
    _parameter_storages: dict[str, int] = field(default_factory=dict)
    born: int = field(default_factory=generation, repr=False)

    @property
    def is_module(self) -> bool:
        return self.torch_layer or (self.info is not None and self.info.is_module)

    def parameter(self, name: str) -> Tensor:
        storage = self._parameter_storages.setdefault(name, new_storage())
        return Tensor(
            storage,
            self.parameter_grad(),
            is_tensor=True,
            described="parameter",
        )

    def parameter_grad(self) -> Grad:
        if self.grad_off:
            return Grad.OFF
        return Grad.UNKNOWN if self.frozen else Grad.LEAF


@dataclass(frozen=True)
class Parameters:
    """`module.parameters()` (elements are parameters) or `named_parameters()`."""

    owner: Obj | None
    named: bool = False


@dataclass(frozen=True)
class Optimizer:
    """A `torch.optim` optimizer; `storages`: the parameters it updates, when known."""

    storages: frozenset[int] | None


@dataclass(frozen=True)
class Function:
    """A function or method of the file, bound to `self` when it is a method."""

    node: cst.FunctionDef
    owner: ClassInfo | None = None
    bound: Obj | None = None


@dataclass(frozen=True)
class ClassRef:
    """A class of the file, before it is called."""

    info: ClassInfo


@dataclass(frozen=True)
class LayerClass:
    """A torch.nn layer class, before it is called: an argument (`norm_layer=nn.BatchNorm2d`)
    or a value of a dict of constructors (`{"relu": nn.ReLU}`)."""

    qualified: str


def becomes_plain_leaf(value: Tensor, flag: bool | None) -> bool:
    """Whether `requires_grad` set to `flag` on `value` makes it a leaf requiring grad that
    is not a parameter (a tensor that needed no grad, or such a leaf already)."""
    if flag is not True:
        return False
    if value.grad is Grad.OFF:
        return value.described != "parameter"
    return value.grad is Grad.LEAF and value.plain_leaf


def flagged_leaf(value: Tensor, flag: bool | None) -> Tensor:
    """`value` after `requires_grad` is set to `flag` on it (`t.requires_grad = flag`,
    `t.requires_grad_(flag)`): a leaf requiring grad when switched on from no grad or a
    leaf, otherwise of unknown grad status."""
    leaf = flag is True and value.grad in (Grad.OFF, Grad.LEAF)
    grad = Grad.LEAF if leaf else Grad.UNKNOWN
    plain = becomes_plain_leaf(value, flag)
    return replace(value, grad=grad, buffer=False, described="leaf tensor", plain_leaf=plain)


@dataclass(frozen=True, eq=False)
class OneOf:
    """An attribute set on the arms of an undecided `if` to values that cannot be joined
    (layers of two classes): one of `options`, which one decided at run time. Reading it
    gives an unknown value; what holds of every option (each may be the module registered
    there) is what checks may use."""

    options: tuple


def one_of(old: Value | OneOf | None, new: Value | None) -> Value | OneOf | None:
    """What an attribute holding `old` holds once an undecided branch sets it to `new`."""
    options = list(old.options) if isinstance(old, OneOf) else [old]
    if not any(new is option for option in options):
        options.append(new)
    if len(options) == 1:
        return options[0]
    if not any(isinstance(option, Obj) for option in options):
        return functools.reduce(join, options)
    return OneOf(tuple(options))


def options_of(value) -> tuple:
    """The values `value` may be: its options when it is a OneOf, else itself."""
    return value.options if isinstance(value, OneOf) else (value,)


Value = (
    Tensor
    | Const
    | Number
    | Size
    | Seq
    | Mapping
    | Obj
    | Parameters
    | Optimizer
    | Function
    | ClassRef
)


def join(a: Value | None, b: Value | None) -> Value | None:
    """The value a name holds after two paths meet."""
    if a is b or a == b:
        return a
    if a is None or b is None:
        return None
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        grad = a.grad if a.grad is b.grad else Grad.UNKNOWN
        dtype = a.dtype if a.dtype == b.dtype else None
        cut = a.cut if a.cut == b.cut else None
        if a.storage == b.storage:
            return replace(
                a,
                grad=grad,
                view=a.view or b.view,
                buffer=a.buffer and b.buffer,
                leaf_view=a.leaf_view and b.leaf_view,
                dtype=dtype,
                graph=either(a.graph, b.graph) if grad is Grad.ON or a.graph is b.graph else None,
                shape=a.shape if a.shape == b.shape else None,
                cut=cut,
                dropped=a.dropped or b.dropped,
                plain_leaf=a.plain_leaf and b.plain_leaf,
            )
        described = a.described if a.described == b.described else ""
        shape = a.shape if a.shape == b.shape else None
        merged = frozenset()
        if described == "parameter":  # which parameter it may be decides whether it is registered
            merged = (a.merged or frozenset((a.storage,))) | (b.merged or frozenset((b.storage,)))
        return Tensor(
            new_storage(),
            grad,
            is_tensor=a.is_tensor and b.is_tensor,
            dtype=dtype,
            described=described,
            graph=either(a.graph, b.graph) if grad is Grad.ON else None,
            shape=shape,
            cut=cut,
            dropped=a.dropped or b.dropped,  # a term cut on one path is cut whenever present
            plain_leaf=a.plain_leaf and b.plain_leaf,
            merged=merged,
        )
    if isinstance(a, Seq) and isinstance(b, Seq):
        return _join_sequences(a, b)
    if _numeric(a) and _numeric(b):
        # `total = 0.0` then `total += t.item()` in a loop: a number, cut if either is
        cuts = {v.cut for v in (a, b) if isinstance(v, Number)}
        data = all(v.data for v in (a, b) if isinstance(v, Number))
        array = any(v.array for v in (a, b) if isinstance(v, Number))
        cut = cuts.pop() if len(cuts) == 1 else None
        return Number(cut, data=data and cuts == {None}, array=array)
    if isinstance(a, Obj) and isinstance(b, Obj) and a.kind == b.kind:
        return a
    return None


def _numeric(value: Value | None) -> bool:
    """A Python number: read out of a tensor, or a constant other than a string or None
    (two strings joined are a string, not a number)."""
    if isinstance(value, Number):
        return True
    return isinstance(value, Const) and not isinstance(value.value, str | None)


def drawn_parameters(seq: Seq) -> frozenset[int] | None:
    """The storages of the parameters a list drawn from modules' parameters holds (an
    empty list holds none); None when the list holds other things or is not known."""
    if seq.parameters is not None:
        return seq.parameters
    return frozenset() if not seq.items and not seq.any_length else None


def _join_sequences(a: Seq, b: Seq) -> Seq | None:
    if not a.any_length and not b.any_length and len(a.items) == len(b.items):
        return Seq(tuple(join(x, y) for x, y in zip(a.items, b.items, strict=True)))
    # a list that may be empty, or grown by a loop: any number of what either holds
    items = [i for s in (a, b) for i in (s.items[:1] if s.any_length else s.items)]
    if not items:
        return None
    parameters = None  # `params = []` before a loop of `params += list(m.parameters())`
    if a.parameters is not None or b.parameters is not None:
        drawn = (drawn_parameters(a), drawn_parameters(b))
        parameters = None if None in drawn else drawn[0] | drawn[1]
    item = functools.reduce(join, items)
    return Seq((item,), any_length=True, cycle=_common_cycle(a, b), parameters=parameters)


def _common_cycle(a: Seq, b: Seq) -> tuple | None:
    """The items each pass of a loop added, when both lists are repetitions of them."""
    cycles = [s.cycle for s in (a, b) if s.cycle is not None]
    exact = sorted((s.items for s in (a, b) if not s.any_length), key=len)
    if not cycles and len(exact) == 2 and len(exact[0]) < len(exact[1]):
        cycles = [exact[1][len(exact[0]) :]]  # what one more pass added
    if not cycles or not all(same_items(c, cycles[0]) for c in cycles):
        return None
    block = cycles[0]
    passes = list(cycles)
    for items in exact:
        if len(items) % len(block) or not same_items(items, block * (len(items) // len(block))):
            return None
        passes += [items[i : i + len(block)] for i in range(0, len(items), len(block))]
    return tuple(_any_pass(column) for column in zip(*passes, strict=True))


def _any_pass(items: tuple) -> Value | None:
    """What one position of a loop-grown list holds on every pass: a layer built with
    other sizes on another pass (`nn.Linear(in_width, width)`) keeps no sizes."""
    first = items[0]
    if isinstance(first, Obj) and any(
        x is not first and x.arguments != first.arguments for x in items
    ):
        return replace(first, arguments=None, layer_shape=None, _parameter_storages={})
    return first


def same_items(a: tuple, b: tuple) -> bool:
    """The same values, layers built by the same call in another pass counting as one."""
    return len(a) == len(b) and all(
        x is y
        or x == y
        or (isinstance(x, Obj) and isinstance(y, Obj) and x.constructor is y.constructor)
        for x, y in zip(a, b, strict=True)
    )
