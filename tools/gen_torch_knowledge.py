"""Derive gradlint's torch knowledge by running torch, and write it as data.

    python tools/gen_torch_knowledge.py           # write gradlint/analysis/torch_knowledge.json
    python tools/gen_torch_knowledge.py --check   # regenerate in memory and compare

Ops come from torch's own op database (`common_methods_invocations.op_db`) with its
sample inputs; layers from its module database (`common_modules.module_db`) with its
constructor and forward samples. For each op spelling (function, Tensor method, in-place
method, aliases) it records what the backward saves (the `grad_fn._saved_*` tensors of
every node the op records, matched to the inputs and the output by storage), whether the
output aliases the input, whether it is one of several views, the memory layout of the
output and the shape family. Needs the `test` extra (numpy, expecttest).
"""

from __future__ import annotations

import argparse
import contextlib
import inspect
import json
import sys
import warnings
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import torch

OUTPUT = Path(__file__).resolve().parent.parent / "gradlint" / "analysis" / "torch_knowledge.json"
SAMPLES_PER_OP = 4
MULTI_VIEW_ERROR = "returns multiple views"

# Spellings torch's op database has no entry for (it tests them through another name or
# not at all) -> a sample call building the arguments from `x`, a (4, 4) float tensor.
EXTRA_OPS: dict[str, Callable[[torch.Tensor], tuple[Callable, tuple, dict]]] = {
    # op_db covers relu only as torch.nn.functional.relu.
    "torch.relu": lambda x: (torch.relu, (x,), {}),
    "torch.Tensor.relu": lambda x: (torch.Tensor.relu, (x,), {}),
    # op_db has no entry for detach / swapaxes / swapdims (aliases it does not list).
    "torch.Tensor.detach": lambda x: (torch.Tensor.detach, (x,), {}),
    "torch.swapaxes": lambda x: (torch.swapaxes, (x, 0, 1), {}),
    "torch.Tensor.swapaxes": lambda x: (torch.Tensor.swapaxes, (x, 0, 1), {}),
    "torch.swapdims": lambda x: (torch.swapdims, (x, 0, 1), {}),
    "torch.Tensor.swapdims": lambda x: (torch.Tensor.swapdims, (x, 0, 1), {}),
    # op_db lists F.softmax / F.log_softmax only as aliases with a different signature
    # (`dim` is keyword-or-positional there too, but `_stacklevel` sits in between).
    "torch.nn.functional.softmax": lambda x: (torch.nn.functional.softmax, (x, 0), {}),
    "torch.nn.functional.log_softmax": lambda x: (torch.nn.functional.log_softmax, (x, 0), {}),
    "torch.nn.functional.tanh": lambda x: (torch.nn.functional.tanh, (x,), {}),
    # op_db has no entry for these device / dtype moves (they run `to` underneath).
    "torch.Tensor.cpu": lambda x: (torch.Tensor.cpu, (x,), {}),
    "torch.Tensor.type": lambda x: (torch.Tensor.type, (x, torch.float64), {}),
    "torch.Tensor.type_as": lambda x: (torch.Tensor.type_as, (x, x.double()), {}),
    # op_db has dropout, dropout2d and dropout3d but no dropout1d.
    "torch.nn.functional.dropout1d": lambda x: (torch.nn.functional.dropout1d, (x,), {}),
}

# Argument lists tried after a (4, 4) float input to find a call gradlint's witness
# programs can repeat (softmax needs a dim, pow an exponent); the first the op accepts and
# differentiates is kept. Its facts join the op's samples.
WITNESS_CALLS: tuple[tuple, ...] = ((), (2,), (0,), (-1,), ((4,),))

# In-place Tensor methods op_db gives no in-place sample for -> sample arguments (after
# self, a (4, 4) float tensor `x`). Whether each edits self is still decided by running.
EXTRA_INPLACE_METHODS: dict[str, Callable[[torch.Tensor], tuple]] = {
    "copy_": lambda x: (x.clone(),),
    "bernoulli_": lambda x: (0.5,),
    "exponential_": lambda x: (),
    "random_": lambda x: (),
    "normal_": lambda x: (),
    "clamp_max_": lambda x: (1.0,),
    "clamp_min_": lambda x: (0.0,),
    "fill_diagonal_": lambda x: (0.0,),
    "masked_scatter_": lambda x: (x > 0, x.clone()),
    "put_": lambda x: (torch.tensor([0]), torch.tensor([1.0])),
    "relu_": lambda x: (),
    "squeeze_": lambda x: (),
    "unsqueeze_": lambda x: (0,),
    "t_": lambda x: (),
    "transpose_": lambda x: (0, 1),
    "requires_grad_": lambda x: (),
    "share_memory_": lambda x: (),
}

# torch.nn layers torch's module database has no sample for -> (constructor arguments,
# positional, or by keyword when a dict; forward input shape).
EXTRA_LAYERS: dict[str, tuple[tuple | dict, tuple[int, ...]]] = {
    "Dropout": ((0.5,), (4, 4)),
    "Dropout1d": ((0.5,), (2, 4, 4)),
    "Dropout2d": ((0.5,), (2, 4, 4, 4)),
    "Dropout3d": ((0.5,), (2, 4, 4, 4, 4)),
    "AlphaDropout": ((0.5,), (4, 4)),
    "FeatureAlphaDropout": ((0.5,), (2, 4, 4, 4)),
    "Identity": ((), (4, 4)),
    "Flatten": ((), (2, 4, 4)),
    "Unflatten": ((1, (2, 2)), (4, 4)),
    "Hardsigmoid": ((), (4, 4)),
    "PixelShuffle": ((2,), (1, 4, 2, 2)),
    "PixelUnshuffle": ((2,), (1, 1, 4, 4)),
    "ChannelShuffle": ((2,), (1, 4, 2, 2)),
    "Upsample": ({"scale_factor": 2.0}, (1, 1, 4, 4)),
    "UpsamplingBilinear2d": ({"scale_factor": 2}, (1, 1, 4, 4)),
    "UpsamplingNearest2d": ({"scale_factor": 2}, (1, 1, 4, 4)),
    "Unfold": ((2,), (1, 1, 4, 4)),
    "RReLU": ((), (4, 4)),
    "Softmax2d": ((), (1, 2, 4, 4)),
    "CosineSimilarity": ((), (4, 4)),
    "PairwiseDistance": ((), (4, 4)),
    "EmbeddingBag": ((10, 3), (2, 4)),
}

# torch.nn submodule (torch's own grouping of layers) -> shape family.
_LAYER_FAMILIES = {
    "activation": "elementwise",
    "dropout": "elementwise",
    "linear": "linear",
    "conv": "conv",
    "pooling": "pool",
    "batchnorm": "norm",
    "instancenorm": "norm",
    "normalization": "norm",
    "flatten": "flatten",
    "sparse": "embedding",
    "rnn": "rnn",
}


# -- running an op ---------------------------------------------------------------------


def _storage(t: torch.Tensor) -> int:
    return t.untyped_storage().data_ptr()


def _tensors(value: Any) -> list[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _tensors(v)]
    return []


def _floating(value: Any) -> bool:
    tensors = _tensors(value)
    return bool(tensors) and all(t.is_floating_point() for t in tensors)


def _saved_storages(outputs: list[torch.Tensor], stop: set[int]) -> set[int]:
    """Storages of every tensor saved by the graph nodes between `outputs` and the nodes
    in `stop` (the inputs' own grad_fn / AccumulateGrad)."""
    seen: set[int] = set()
    storages: set[int] = set()
    todo = [t.grad_fn for t in outputs if t.grad_fn is not None]
    while todo:
        node = todo.pop()
        if node is None or id(node) in seen or id(node) in stop:
            continue
        seen.add(id(node))
        for name in dir(node):
            if not name.startswith("_saved_"):
                continue
            try:
                value = getattr(node, name)
            except Exception:  # noqa: BLE001 - an undefined saved variable
                continue
            storages.update(_storage(t) for t in _tensors(value) if t.layout == torch.strided)
        todo.extend(next_node for next_node, _ in node.next_functions)
    return storages


class Run:
    """One call of an op on fresh copies of a sample, some inputs requiring grad."""

    def __init__(self, fn: Callable, args: list, kwargs: dict, requires: set[int]):
        self.inputs = [_fresh(a, i in requires) for i, a in enumerate(args)]
        kw = {k: _fresh(v, False) for k, v in kwargs.items()}
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            self.result = fn(*self.inputs, **kw)
        self.warned = bool(caught)  # a deprecated call (softmin without dim)
        self.outputs = _tensors(self.result)
        grads = [t for t in self.outputs if t.grad_fn is not None]
        self.differentiable = any(t.requires_grad for t in self.outputs)
        input_storages = {
            i: {_storage(t) for t in _tensors(a)} for i, a in enumerate(self.inputs) if _tensors(a)
        }
        stop = {id(t.grad_fn) for a in self.inputs for t in _tensors(a) if t.grad_fn}
        saved = _saved_storages(grads, stop)
        self.saved = {i for i, s in input_storages.items() if s & saved}
        all_inputs = set().union(*input_storages.values()) if input_storages else set()
        # the first output (max / sort / topk save their indices, not their values)
        first = self.outputs[:1]
        self.output_saved = bool(({_storage(t) for t in first} - all_inputs) & saved)


def _fresh(value: Any, requires: bool) -> Any:
    if isinstance(value, torch.Tensor):
        copy = value.detach().clone()
        if not value.is_contiguous() and _transposable(value):
            copy = _noncontiguous(value.detach())
        return copy.requires_grad_(requires) if requires and copy.is_floating_point() else copy
    if isinstance(value, list):
        return [_fresh(v, requires) for v in value]
    if isinstance(value, tuple):
        return tuple(_fresh(v, requires) for v in value)
    return value


def _noncontiguous(t: torch.Tensor) -> torch.Tensor:
    """`t` laid out column-major in its last two dims (no reshape can view it flat)."""
    return t.transpose(-1, -2).contiguous().transpose(-1, -2)


def _transposable(t: torch.Tensor) -> bool:
    return t.layout == torch.strided and t.dim() >= 2 and t.shape[-1] > 1 and t.shape[-2] > 1


# -- one sample ------------------------------------------------------------------------


def _sample_facts(fn: Callable, args: list, kwargs: dict) -> dict | None:
    tracked = [i for i, a in enumerate(args) if _floating(a)]
    if not tracked or 0 not in tracked:
        return None
    full = Run(fn, args, kwargs, set(tracked))
    if not full.differentiable:
        return {"differentiable": False, **_layout_facts(fn, args, kwargs, full)}
    singles = {k: Run(fn, args, kwargs, {k}) for k in tracked} if len(tracked) > 1 else {}
    singles = singles or {tracked[0]: full}
    facts = {
        "differentiable": True,
        "tensors": [i for i, a in enumerate(args) if _tensors(a)],
        "tracked": tracked,
        "saved": {
            j: {k for k, run in singles.items() if j in run.saved} for j in sorted(full.saved)
        },
        "output_saved": full.output_saved,
        "warned": full.warned,
        "output_triggers": {k for k, run in singles.items() if run.output_saved},
        "multi_view": _multi_view(fn, args, kwargs, full),
        "gradient": _gradient(full),
    }
    return facts | _layout_facts(fn, args, kwargs, full)


def _gradient(run: Run) -> str | None:
    """What reaches input 0 for a random output gradient: "zero" (round, sign), "raises"
    (the backward is not implemented: floor_divide, heaviside), else None."""
    outputs = [t for t in run.outputs if t.requires_grad and t.is_floating_point()]
    source = _tensors(run.inputs[0])
    if not outputs or len(source) != 1 or not source[0].requires_grad:
        return None
    generator = torch.Generator().manual_seed(0)
    weights = [torch.randn(t.shape, generator=generator, dtype=t.dtype) for t in outputs]
    try:
        (grad,) = torch.autograd.grad(outputs, source, weights, allow_unused=True)
    except (RuntimeError, NotImplementedError):
        return "raises"
    return "zero" if grad is None or not bool(grad.any()) else None


def _layout_facts(fn: Callable, args: list, kwargs: dict, run: Run) -> dict:
    first = _tensors(run.inputs[0])
    out = run.outputs[0] if run.outputs else None
    facts: dict[str, Any] = {
        "shape": _shape_family(fn, run),
        "tuple": isinstance(run.result, (tuple, list)),
        "real": bool(run.outputs) and run.outputs[0].is_floating_point(),
        "integer": bool(run.outputs)
        and not (run.outputs[0].is_floating_point() or run.outputs[0].is_complex()),
    }
    if out is None or len(first) != 1:
        return facts
    base = first[0]
    facts["view"] = out._is_view() and _storage(out) == _storage(base)
    facts["alias"] = _storage(out) == _storage(base)
    inputs_contiguous = all(t.is_contiguous() for a in run.inputs for t in _tensors(a))
    if inputs_contiguous:
        facts["contiguous"] = out.is_contiguous()
        facts["alias_contiguous"] = facts["alias"]
    if _transposable(base):
        try:
            other = Run(fn, [_noncontiguous(base), *args[1:]], kwargs, set())
        except Exception:  # noqa: BLE001 - the op refuses a non-contiguous input
            return facts
        if other.outputs:
            facts["view_noncontiguous"] = (
                _storage(other.outputs[0]) == _storage(other.inputs[0])
                and other.outputs[0]._is_view()
            )
            if "memory_format" not in kwargs:  # `x.double(memory_format=...)` asks for one
                facts["same_strides"] = other.outputs[0].stride() == other.inputs[0].stride()
    return facts


def _multi_view(fn: Callable, args: list, kwargs: dict, run: Run) -> bool:
    if not isinstance(run.result, (tuple, list)) or len(run.outputs) < 1:
        return False
    base = _tensors(run.inputs[0])
    if len(base) != 1 or not all(
        t._is_view() and _storage(t) == _storage(base[0]) for t in run.outputs
    ):
        return False
    # in-place on one output of a multi-view op raises while grad is recorded
    inputs = [_fresh(a, i == 0) for i, a in enumerate(args)]
    inputs[0] = inputs[0] * 1
    outputs = _tensors(fn(*inputs, **kwargs))
    try:
        outputs[0].add_(1)
    except RuntimeError as error:
        return MULTI_VIEW_ERROR in str(error)
    return False


def _shape_family(fn: Callable, run: Run) -> str:
    if not run.outputs:
        return "other"
    out = run.outputs[0]
    first = run.inputs[0]
    tensors = [a for a in run.inputs if isinstance(a, torch.Tensor)]
    if isinstance(first, (list, tuple)) and _tensors(first):
        parts = _tensors(first)
        if out.dim() == parts[0].dim() + 1 and out.numel() == sum(p.numel() for p in parts):
            return "stack"
        if out.dim() == parts[0].dim() and out.numel() == sum(p.numel() for p in parts):
            return "cat"
        return "other"
    if not tensors:
        return "other"
    x = tensors[0]
    if x.numel() <= 1:
        # a one-element input tells no family apart, unless the rank grows (atleast_1d)
        return "unknown" if out.dim() <= x.dim() else "other"
    if out._is_view() and _storage(out) == _storage(x):
        return "view"
    name = getattr(fn, "__name__", "")
    if "conv" in name and out.dim() == x.dim():
        return "conv"
    if "pool" in name and out.dim() == x.dim():
        return "pool"
    if any(not t.is_floating_point() and not t.is_complex() for t in tensors[1:]):
        return "index"
    floats = [t for t in tensors if t.is_floating_point()]
    if len(floats) == 1 and out.shape == x.shape:
        return "elementwise"
    if len(floats) > 1:
        try:
            broadcast = torch.broadcast_shapes(*(t.shape for t in floats))
        except RuntimeError:
            broadcast = None
        if out.shape == broadcast:
            return "broadcast"
        if _matmul_shaped(floats[-2], floats[-1], out):
            return "matmul"
    if len(floats) == 1 and _reduction_shaped(x.shape, out.shape):
        return "reduction"
    return "other"


def _matmul_shaped(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor) -> bool:
    if a.dim() < 1 or b.dim() < 1:
        return False
    inner = b.shape[-2] if b.dim() >= 2 else b.shape[0]
    if a.shape[-1] != inner:
        return False
    tail = ((a.shape[-2],) if a.dim() >= 2 else ()) + ((b.shape[-1],) if b.dim() >= 2 else ())
    return tuple(out.shape[len(out.shape) - len(tail) :]) == tail


def _reduction_shaped(shape: torch.Size, out: torch.Size) -> bool:
    """`out` is `shape` with some dims removed (or kept as 1), and smaller."""
    if len(out) == len(shape):
        return out != shape and all(o in (s, 1) for o, s in zip(out, shape, strict=True))
    rest = list(shape)
    for size in out:
        while rest and rest[0] != size:
            rest.pop(0)
        if not rest:
            return False
        rest.pop(0)
    return len(out) < len(shape)


# -- one op spelling over its samples --------------------------------------------------


def _merge(samples: list[dict]) -> dict | None:
    """What holds in every sample (precision: a fact one sample contradicts is dropped)."""
    samples = [s for s in samples if s is not None]
    if not samples:
        return None
    grads = [s for s in samples if s["differentiable"]]
    row: dict[str, Any] = {"differentiable": bool(grads) and len(grads) == len(samples)}
    if grads:
        # j is saved when input k requires grad if that holds in every sample where both
        # are tensors (a sample passing a number at k says nothing about k)
        saves: dict[int, list[int]] = {}
        for j in sorted({j for s in grads for j in s["saved"]}):
            holders = [s for s in grads if j in s["tensors"]]
            triggers = [
                k
                for k in sorted({k for s in holders for k in s["tracked"]})
                if all(k in s["saved"].get(j, ()) for s in holders if k in s["tracked"])
            ]
            if triggers:
                saves[j] = triggers
        if saves:
            row["saves_args"] = sorted(saves)
            row["save_triggers"] = [saves[j] for j in sorted(saves)]
            if any(j not in t for j, t in saves.items()):
                row["if_other"] = True
        output_triggers = [
            k
            for k in sorted({k for s in grads for k in s["tracked"]})
            if all(k in s["output_triggers"] for s in grads if k in s["tracked"])
        ]
        if output_triggers:
            row["saves_output"] = True
            row["output_triggers"] = output_triggers
        if all(s["multi_view"] for s in grads):
            row["multi_view"] = True
        gradients = {s["gradient"] for s in grads}
        if gradients == {"zero"}:
            row["zero_gradient"] = True
        if gradients == {"raises"}:
            row["backward_raises"] = True
    views = [s["view"] for s in samples if "view" in s]
    if views and all(views):
        if all(s.get("view_noncontiguous", True) for s in samples):
            row["view"] = True
        else:
            row["may_view"] = True
    elif any(s.get("alias") for s in samples) or any(s.get("view_noncontiguous") for s in samples):
        row["may_view"] = True
    aliased = {s["alias_contiguous"] for s in samples if "alias_contiguous" in s}
    if row.get("may_view") and aliased == {True, False}:
        row["alias_by_arguments"] = True
    if any(s["tuple"] for s in samples):
        row["returns_tuple"] = True
    if all(s["integer"] for s in samples):
        row["integer_output"] = True
    strides = [s["same_strides"] for s in samples if "same_strides" in s]
    if strides and all(strides):
        row["keeps_strides"] = True
    layouts = [s["contiguous"] for s in samples if "contiguous" in s]
    if layouts and all(layouts):
        row["keeps_layout"] = True
    if layouts and not all(layouts):
        row["noncontiguous"] = True
    families = {s["shape"] for s in samples} - {"unknown"}
    if families == {"elementwise", "broadcast"}:
        families = {"broadcast"}  # a number or a same-shape tensor as the other operand
    if families == {"elementwise", "reduction"}:
        families = {"reduction"}  # a reduction over size-1 dims, or keepdim
    row["shape"] = families.pop() if len(families) == 1 else "other"
    return row


def _derive(
    fn: Callable, samples: Iterable[tuple[list, dict]], witness: bool = True
) -> dict | None:
    """Facts holding in every sample; with `witness`, also in the first of WITNESS_CALLS
    the op accepts and differentiates to a real tensor on a (4, 4) float tensor, kept as
    `call` (the argument list after the input, for gradlint's witness programs)."""
    facts = []
    for args, kwargs in samples:
        try:
            facts.append(_sample_facts(fn, args, kwargs))
        except Exception:  # noqa: BLE001 - a sample this spelling refuses
            continue
    call = None
    for extra in WITNESS_CALLS if witness else ():
        try:
            found = _sample_facts(fn, [torch.randn(4, 4), *extra], {})
        except Exception:  # noqa: BLE001 - not a call this op accepts
            continue
        if found and found["differentiable"] and found["real"] and not found["warned"]:
            facts.append(found)
            call = extra
            break
    row = _merge(facts)
    if row is not None and call is not None:
        row["call"] = "".join(f", {a!r}" for a in call)
    if row is not None and row.get("zero_gradient") and not _zero_everywhere(fn, call):
        del row["zero_gradient"]
    if row is not None and row["shape"] == "elementwise" and not _keeps_any_shape(fn, call):
        row["shape"] = "other"
    return row


def _keeps_any_shape(fn: Callable, call: tuple | None) -> bool:
    """An op the samples saw keep the shape keeps it on a (2, 3, 5) and a 0-dim input too:
    square samples hide `pinverse` and `rot90`. Without a witness call, the samples
    stand."""
    if call is None:
        return True
    for x in (torch.randn(2, 3, 5), torch.tensor(2.0)):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out = _tensors(fn(x, *call))
        except Exception:  # noqa: BLE001 - square matrices only (inverse): kept shape
            continue
        if not out or out[0].shape != x.shape:
            return False  # `pinverse` of (3, 5), `atleast_1d` of a 0-dim tensor
    return True


def _zero_everywhere(fn: Callable, call: tuple | None) -> bool:
    """A zero gradient seen in every sample holds for the witness call too, and for a
    complex input when the op takes one (`angle` and `sgn` of a real tensor have a zero
    gradient, of a complex tensor not). Samples may hit a flat region by chance (`cdist`
    with p=0, `index_fill` over every row): an op with no witness call is not trusted."""
    if call is None:
        return False
    try:
        z = torch.randn(4, 4, dtype=torch.complex64, requires_grad=True)
        out = _tensors(fn(z, *call))[0]
    except Exception:  # noqa: BLE001 - a real-only op
        return True
    if not out.requires_grad:
        return True
    (grad,) = torch.autograd.grad(out, z, torch.randn_like(out), allow_unused=True)
    return grad is None or not bool(grad.any())


def _op_samples(info: Any, dtype: torch.dtype) -> list[tuple[list, dict]]:
    """Up to SAMPLES_PER_OP samples, first one of each kind (which arguments are tensors,
    whether the input is one element) so that overloads taking a number are seen."""
    kinds: dict[tuple, tuple[list, dict]] = {}
    rest = []
    for n, sample in enumerate(info.sample_inputs("cpu", dtype, requires_grad=False)):
        tensors = _tensors([sample.input, list(sample.args), list(sample.kwargs.values())])
        if any(t.numel() == 0 for t in tensors):
            continue
        args = [sample.input, *sample.args]
        kind = (
            tuple(bool(_tensors(a)) for a in args),
            tuple(sorted(k for k, v in sample.kwargs.items() if _tensors(v))),
        )
        pair = (args, dict(sample.kwargs))
        if kind not in kinds:
            kinds[kind] = pair
        elif len(rest) < SAMPLES_PER_OP:
            rest.append(pair)
        if n > 40:
            break
    samples = [*kinds.values(), *rest][: max(SAMPLES_PER_OP, len(kinds))]
    return samples + _number_variants(samples)


def _number_variants(samples: list[tuple[list, dict]]) -> list[tuple[list, dict]]:
    """The first sample again with each tensor argument after the input replaced by a
    Python number: many ops have a number overload that saves less (`x.pow(2)` does not
    save its output, `x * 2` does not save `x`). An op refusing the number drops it."""
    for args, kwargs in samples:
        positions = [i for i, a in enumerate(args) if i and isinstance(a, torch.Tensor)]
        if positions and isinstance(args[0], torch.Tensor):
            return [
                ([*args[:i], 2.0, *args[i + 1 :]], kwargs)
                for i in positions
                if args[i].is_floating_point()
            ]
    return []


def _resolve(dotted: str) -> Any:
    obj: Any = torch
    for part in dotted.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def _function_name(name: str, fn: Any) -> str | None:
    """`torch.<name>` when it is the op info's function (not a private or aten op)."""
    name = name.removeprefix("torch.")
    if fn is None or any(part.startswith("_") or part == "ops" for part in name.split(".")):
        return None
    return f"torch.{name}" if _resolve(name) is fn else None


def _method_name(fn: Any) -> str | None:
    name = getattr(fn, "__name__", None)
    return f"torch.Tensor.{name}" if name and getattr(torch.Tensor, name, None) is fn else None


def _edits_self(fn: Callable, args: list, kwargs: dict) -> bool:
    target = _fresh(args[0], False)
    before = target._version
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = fn(target, *[_fresh(a, False) for a in args[1:]], **kwargs)
    return result is target and target._version > before


def _flag_edits(fn: Callable, samples: list[tuple[list, dict]]) -> bool:
    """`inplace=True` with every other argument at its default edits the input; the op's
    samples when it needs more. A `training` flag is set too: alpha_dropout's defaults to
    False, and out of training the op returns its input untouched whatever `inplace` says."""
    flags = _flags(fn)
    x = torch.randn(4, 4)
    try:
        fn(x, **flags)
    except TypeError:  # required arguments: the samples give them
        return any(_sample_flag_edits(fn, args, kwargs, flags) for args, kwargs in samples)
    return x._version > 0


def _flags(fn: Callable) -> dict[str, bool]:
    names = inspect.signature(fn).parameters
    return {"inplace": True, **({"training": True} if "training" in names else {})}


def _sample_flag_edits(fn: Callable, args: list, kwargs: dict, flags: dict) -> bool:
    target = _fresh(args[0], False)
    try:
        fn(target, *args[1:], **{**kwargs, **flags})
    except Exception:  # noqa: BLE001 - a sample refusing the flag
        return False
    return target._version > 0


def _inplace_arg(fn: Any) -> list | None:
    try:
        names = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return None
    return [names.index("inplace"), "inplace"] if "inplace" in names else None


def derive_ops(names: set[str] | None = None) -> dict[str, Any]:
    """Ops, aliases, in-place methods and functions (only the op infos in `names`, when
    given: a bounded re-derivation for the fast test)."""
    from torch.testing._internal.common_methods_invocations import op_db

    ops: dict[str, dict] = {}
    aliases: dict[str, str] = {}
    inplace_methods: dict[str, str] = {}
    inplace_functions: set[str] = set()
    for info in op_db:
        if names is not None and info.name not in names:
            continue
        torch.manual_seed(0)
        dtype = torch.float32 if info.supports_dtype(torch.float32, "cpu") else torch.float64
        if not info.supports_dtype(dtype, "cpu"):
            continue
        try:
            samples = _op_samples(info, dtype)
        except Exception:  # noqa: BLE001 - a sample generator that needs a device
            continue
        if not samples:
            continue
        spellings = []
        function = _function_name(info.name, info.op)
        if function is not None:
            spellings.append((function, info.op))
        method = _method_name(info.method_variant)
        if method is not None:
            spellings.append((method, info.method_variant))
        if not spellings and getattr(info.op, "__name__", "") == "<lambda>":
            # op_db calls some ops through a lambda (T, mT, einsum, dropout, embedding)
            if callable(_resolve(info.name)) and _function_name(info.name, _resolve(info.name)):
                spellings.append((f"torch.{info.name}", info.op))
            elif isinstance(getattr(torch.Tensor, info.name, None), property) or (
                inspect.isgetsetdescriptor(getattr(torch.Tensor, info.name, None))
            ):
                spellings.append((f"torch.Tensor.{info.name}", info.op))
        owned = []
        for qualname, fn in spellings:
            if qualname in ops:
                continue  # an earlier variant of the same op (op_db lists the default first)
            real = fn is _resolve(qualname.removeprefix("torch.")) or fn is info.method_variant
            row = _derive(fn, samples, witness=real)
            if row is None:
                continue
            real_fn = _resolve(qualname.removeprefix("torch.")) or fn
            if not callable(real_fn):
                row["attribute"] = True  # a Tensor property (`x.T`, `x.mH`), not a method
            arg = _inplace_arg(real_fn)
            if arg is not None and _flag_edits(real_fn, samples):
                row["inplace_arg"] = arg
            ops[qualname] = row
            owned.append(qualname)
            if qualname.startswith("torch.Tensor."):
                continue
            module, _, bare = qualname.rpartition(".")
            inplace_fn = _resolve(f"{module[len('torch.') :]}.{bare}_".lstrip("."))
            if inplace_fn is not None and _edits_any(inplace_fn, samples):
                inplace_functions.add(f"{qualname}_")
        inplace = info.inplace_variant
        bare = getattr(inplace, "__name__", None)
        if bare and getattr(torch.Tensor, bare, None) is inplace and _edits_any(inplace, samples):
            target = method or f"torch.Tensor.{bare}"
            inplace_methods[bare] = target
            for qualname, _ in spellings:
                if qualname in ops:
                    ops[qualname]["inplace"] = bare
        for alias in info.aliases:
            for canonical, fn, kind in (
                (function, alias.op, "function"),
                (method, alias.method_variant, "method"),
            ):
                name = _function_name(alias.name, fn) if kind == "function" else _method_name(fn)
                if canonical in owned and name is not None and name != canonical:
                    aliases[name] = canonical
            alias_bare = getattr(alias.inplace_variant, "__name__", None)
            if alias_bare and bare in inplace_methods and method in owned:
                inplace_methods[alias_bare] = inplace_methods[bare]
    _extra_ops(ops, names)
    _extra_inplace_methods(inplace_methods, names)
    return {
        "aliases": dict(sorted(aliases.items())),
        "ops": dict(sorted(ops.items())),
        "inplace_methods": dict(sorted((k, v) for k, v in inplace_methods.items() if v)),
        "inplace_functions": sorted(inplace_functions),
    }


def _edits_any(fn: Callable, samples: list[tuple[list, dict]]) -> bool:
    for args, kwargs in samples:
        with contextlib.suppress(Exception):
            return _edits_self(fn, args, kwargs)
    return False


def _extra_ops(ops: dict[str, dict], names: set[str] | None) -> None:
    for qualname, make in EXTRA_OPS.items():
        if qualname in ops or (names is not None and qualname not in names):
            continue
        fn, args, kwargs = make(torch.randn(4, 4))
        row = _derive(fn, [(list(args), kwargs)], witness=False)
        if row is not None:
            if not _tensors(list(args[1:])):  # a witness spells its arguments out
                row["call"] = "".join(f", {a!r}" for a in args[1:])
            arg = _inplace_arg(fn)
            if arg is not None:
                row["inplace_arg"] = arg
            ops[qualname] = row


def _extra_inplace_methods(inplace_methods: dict[str, str], names: set[str] | None) -> None:
    for bare, make in EXTRA_INPLACE_METHODS.items():
        if bare in inplace_methods or (names is not None and bare not in names):
            continue
        x = torch.randn(4, 4)
        fn = getattr(torch.Tensor, bare)
        if _edits_self(fn, [x, *make(x)], {}):
            base = bare[:-1]
            has_base = getattr(torch.Tensor, base, None) is not None
            inplace_methods[bare] = f"torch.Tensor.{base if has_base else bare}"


# -- reductions ------------------------------------------------------------------------


def _positional(schema: Any, name: str) -> int | None:
    """Where `name` sits among a schema's positional arguments after `self`."""
    names = [a.name for a in schema.arguments if not a.kwarg_only]
    return names.index(name) - 1 if name in names[1:] else None


def _reduction(method: Callable, dim: int, keepdim: int | None, fill: list) -> dict | None:
    """The facts of a reduction whose `dim` is positional argument `dim` (after `self`),
    when torch confirms them on a (2, 3, 4) tensor: `dim` 1 or -1 drops that dim (giving
    one tensor, or (values, indices) both of the reduced shape); `keepdim=True`, and True
    at positional argument `keepdim`, keep it as 1; no dim gives one 0-dim tensor (or
    raises: the dim is required)."""
    x = torch.randn(2, 3, 4)

    def shapes(*args: Any, **kwargs: Any) -> list[tuple[int, ...]] | None:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                result = method(x, *fill[:dim], *args, **kwargs)
        except Exception:  # noqa: BLE001 - a call this op refuses
            return None
        if isinstance(result, tuple) and len(result) != 2:
            return None
        return [tuple(t.shape) for t in _tensors(result)]

    reduced = shapes(1)
    if reduced not in ([(2, 4)], [(2, 4)] * 2) or shapes(-1) != [(2, 3)] * len(reduced):
        return None
    row: dict[str, Any] = {"dim": dim}
    if len(reduced) == 2:
        row["values_indices"] = True
    whole = shapes()
    if whole is None:
        row["dim_required"] = True
    elif whole != [()]:
        return None
    kept = [(2, 1, 4)] * len(reduced)
    by_keyword = shapes(1, keepdim=True)
    if by_keyword is not None and by_keyword != kept:
        return None
    between = fill[dim + 1 : keepdim] if keepdim is not None else []
    if keepdim is not None and by_keyword == kept and shapes(1, *between, True) == kept:
        row["keepdim"] = keepdim
    return row


def derive_reductions(ops: dict[str, dict]) -> dict[str, dict]:
    """Tensor methods reducing over a `dim` argument -> where `dim` and `keepdim` sit among
    the positional arguments (the function forms take the same after the input); an
    argument before `dim` (`x.norm(p, dim)`) is filled with 2 while checking."""
    found = {}
    for qualname in ops:
        name = qualname.removeprefix("torch.Tensor.")
        method = getattr(torch.Tensor, name, None)
        if name == qualname or not callable(method):
            continue
        schemas = torch._C._jit_get_schemas_for_operator(f"aten::{name}")
        positions = {_positional(s, "dim") for s in schemas} - {None}
        if len(positions) != 1:
            continue
        dim = positions.pop()
        keepdims = {_positional(s, "keepdim") for s in schemas if _positional(s, "dim") == dim}
        keepdims.discard(None)  # an overload taking it by keyword only (`std(correction=)`)
        keepdim = keepdims.pop() if len(keepdims) == 1 else None
        schema = next(
            s
            for s in schemas
            if _positional(s, "dim") == dim and _positional(s, "keepdim") == keepdim
        )
        defaults = [a.default_value for a in schema.arguments[1:] if not a.kwarg_only]
        fill = [2] * dim + defaults[dim:]
        row = _reduction(method, dim, keepdim, fill)
        if row is not None:
            found[name] = row
    return dict(sorted(found.items()))


# -- binary ops ------------------------------------------------------------------------


def _binary_schema(schema: Any) -> bool:
    """`(Tensor self, Tensor other, <arguments with defaults>)`."""
    args = [a for a in schema.arguments if a.name != "out"]
    return (
        len(args) >= 2
        and args[0].name == "self"
        and all(str(a.type) == "Tensor" for a in args[:2])
        and all(a.has_default_value() for a in args[2:])
    )


def derive_binary() -> list[str]:
    """Tensor methods of two tensors, `x.name(other)`, whose result is the broadcast of
    both shapes (on float operands, or integer ones for the bitwise ops)."""
    found = []
    for name in dir(torch.Tensor):
        if name.startswith("_") or name.endswith("_") or not callable(getattr(torch.Tensor, name)):
            continue
        schemas = torch._C._jit_get_schemas_for_operator(f"aten::{name}")
        if not any(_binary_schema(s) for s in schemas):
            continue
        method = getattr(torch.Tensor, name)
        for make in (torch.randn, lambda *shape: torch.randint(0, 5, shape)):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    result = method(make(2, 3, 1), make(3, 4))
            except Exception:  # noqa: BLE001 - the other dtype, or not broadcasting
                continue
            if isinstance(result, torch.Tensor) and result.shape == (2, 3, 4):
                found.append(name)
                break
    return sorted(found)


def derive_masked() -> list[str]:
    """Tensor methods `x.name(mask, value)` of a boolean mask and a scalar whose result is
    the broadcast of both shapes (`masked_fill`); laid out anew, not like `x`."""
    found = []
    for name in dir(torch.Tensor):
        if name.startswith("_") or name.endswith("_") or not callable(getattr(torch.Tensor, name)):
            continue
        schemas = torch._C._jit_get_schemas_for_operator(f"aten::{name}")
        if not any(
            [(a.name, str(a.type)) for a in s.arguments[:3]]
            == [("self", "Tensor"), ("mask", "Tensor"), ("value", "number")]
            for s in schemas
        ):
            continue
        try:
            result = getattr(torch.Tensor, name)(torch.randn(2, 3, 1), torch.rand(3, 4) > 0.5, 0.0)
        except Exception:  # noqa: BLE001 - not broadcasting
            continue
        if isinstance(result, torch.Tensor) and result.shape == (2, 3, 4):
            found.append(name)
    return sorted(found)


# -- windows: convolutions and pools ------------------------------------------------------


def _window_kind(build: Callable[[tuple, dict], Callable], spatial: int) -> str | None:
    """Which output-size formula a conv / pool follows on (1, 2, 9, ...) inputs: "conv"
    (out = (in + 2p - d(k - 1) - 1) // s + 1, stride 1 by default, 3 output channels of
    (in_channels, out_channels, kernel)), "window" (the same, stride = kernel by default),
    "adaptive" (out = output_size)."""
    x = torch.randn(1, 2, *[9] * spatial)
    cases = {
        "conv": [((2, 3, 3), {}, (1, 3, *[7] * spatial)),
                 ((2, 3, 3), {"stride": 2, "padding": 1}, (1, 3, *[5] * spatial)),
                 ((2, 3, 3), {"dilation": 2}, (1, 3, *[5] * spatial))],
        "window": [((3,), {}, (1, 2, *[3] * spatial)),
                   ((3,), {"stride": 2, "padding": 1}, (1, 2, *[5] * spatial))],
        "adaptive": [((2,), {}, (1, 2, *[2] * spatial)), ((4,), {}, (1, 2, *[4] * spatial))],
    }  # fmt: skip
    for kind, checks in cases.items():
        try:
            with torch.no_grad(), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                shapes = [tuple(_tensors(build(a, k)(x))[0].shape) for a, k, _ in checks]
        except Exception:  # noqa: BLE001 - not this kind of window
            continue
        if shapes == [expected for _, _, expected in checks]:
            return kind
    return None


def derive_windows(layers: dict[str, dict]) -> dict[str, list]:
    """Conv / pool layers and functions whose output size follows a window formula ->
    [kind, number of spatial dims] (`_window_kind`)."""
    found: dict[str, list] = {}
    functions = [f"torch.nn.functional.{n}" for n in dir(torch.nn.functional) if "pool" in n]
    candidates = [n for n, row in layers.items() if row["shape"] in ("conv", "pool")] + functions
    for qualname in candidates:
        target = _resolve(qualname.removeprefix("torch."))
        if not callable(target) or qualname.rpartition(".")[2].startswith("_"):
            continue
        if qualname[-2:] not in ("1d", "2d", "3d"):
            continue
        spatial = int(qualname[-2])
        if isinstance(target, type):

            def build(a: tuple, k: dict, cls: Any = target) -> Callable:
                return cls(*a, **k)
        else:

            def build(a: tuple, k: dict, fn: Any = target) -> Callable:
                return lambda x: fn(x, *a[-1:], **k)

        kind = _window_kind(build, spatial)
        if kind is not None:
            found[qualname] = [kind, spatial]
    return dict(sorted(found.items()))


# -- layers ----------------------------------------------------------------------------


def _layer_samples() -> Iterator[tuple[type, tuple, dict, list, bool]]:
    """(class, constructor args, kwargs, forward inputs, whether the build is the sample's
    own: a layer that cannot be built by default, such as Upsample, keeps its keywords)."""
    from torch.testing._internal.common_modules import module_db

    for info in module_db:
        try:
            inputs = info.module_inputs_func(
                info, device="cpu", dtype=torch.float32, requires_grad=False, training=True
            )
        except Exception:  # noqa: BLE001 - a sample generator that needs a device
            continue
        for module_input in inputs:
            forward = list(module_input.forward_input.args)
            if forward and isinstance(forward[0], torch.Tensor):
                ctor = module_input.constructor_input
                yield info.module_cls, tuple(ctor.args), dict(ctor.kwargs), forward, False
                break
    for name, (ctor_args, shape) in EXTRA_LAYERS.items():
        cls = getattr(torch.nn, name)
        forward = [torch.randint(0, 10, shape) if name == "EmbeddingBag" else torch.randn(shape)]
        if name in ("CosineSimilarity", "PairwiseDistance"):
            forward.append(torch.randn(shape))
        if isinstance(ctor_args, dict):
            yield cls, (), ctor_args, forward, True
        else:
            yield cls, ctor_args, {}, forward, False


def _constructor_args(cls: type) -> list[str]:
    parameters = list(inspect.signature(cls.__init__).parameters.values())[1:]
    return [p.name for p in parameters if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD]


def _required(cls: type, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """The sample's required constructor arguments, positional (the layer as built by
    default otherwise); the sample as given when __init__ takes *args."""
    parameters = list(inspect.signature(cls.__init__).parameters.values())[1:]
    if any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in parameters):
        return args, kwargs
    required = [
        p.name
        for p in parameters
        if p.default is inspect.Parameter.empty
        and p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    ]
    values = list(args[: len(required)])
    for name in required[len(values) :]:
        if name not in kwargs:
            return args, kwargs
        values.append(kwargs[name])
    return tuple(values), {}


def _parameter_shapes(cls: type, args: tuple, ctor_names: list[str]) -> dict[str, list]:
    """Each parameter dim as a constructor argument (`"out_features"`, `"3*hidden_size"`)
    or a fixed int, learned by doubling one int argument at a time; a parameter with a dim
    this cannot explain is left out."""
    base = {n: tuple(p.shape) for n, p in cls(*args).named_parameters(recurse=False)}
    scaled: dict[int, dict[str, tuple]] = {}
    for i, value in enumerate(args):
        if type(value) is not int or i >= len(ctor_names):
            continue
        try:
            module = cls(*args[:i], value * 2, *args[i + 1 :])
        except Exception:  # noqa: BLE001 - the doubled argument is not a valid choice
            return {}
        scaled[i] = {n: tuple(p.shape) for n, p in module.named_parameters(recurse=False)}
    if len(scaled) != len(args):
        return {}  # a tuple or other argument: a dim that does not move may still depend on it
    shapes = {}
    for name, shape in base.items():
        if any(len(s.get(name, ())) != len(shape) for s in scaled.values()):
            continue
        dims: list = []
        for d, size in enumerate(shape):
            movers = [i for i, s in scaled.items() if s[name][d] != size]
            if not movers:
                dims.append(size)
                continue
            if len(movers) != 1:
                break
            i = movers[0]
            factor, rest = divmod(size, args[i])
            if rest or scaled[i][name][d] != factor * args[i] * 2:
                break
            dims.append(ctor_names[i] if factor == 1 else f"{factor}*{ctor_names[i]}")
        else:
            shapes[name] = dims
    return shapes


def _layer_saves(module: torch.nn.Module, forward: list) -> tuple[bool, bool, bool]:
    """(saves its input when only its parameters require grad, saves its input, saves its
    output) for one forward call."""

    def run(input_grad: bool, param_grad: bool) -> tuple[set[int], set[int]]:
        for p in module.parameters():
            p.requires_grad_(param_grad)
        inputs = [_fresh(a, input_grad and i == 0) for i, a in enumerate(forward)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            outputs = _tensors(module(*inputs))
        stop = {id(t.grad_fn) for t in _tensors(inputs) if t.grad_fn}
        saved = _saved_storages([t for t in outputs if t.grad_fn], stop)
        ins = {_storage(t) for t in _tensors(inputs[0])}
        outs = {_storage(t) for t in outputs} - ins
        return saved & ins, saved & outs

    has_params = any(True for _ in module.parameters())
    params_only = bool(run(False, True)[0]) if has_params else False
    floating = _floating(forward[0])
    saved_in, saved_out = run(True, has_params) if floating else (set(), set())
    return params_only, params_only or bool(saved_in), bool(saved_out)


def _other_keywords(cls: type) -> dict[str, Any]:
    """What the constructor takes by keyword besides `constructor_args`: its keyword-only
    parameters, and whether it takes any keyword (`**kwargs`)."""
    parameters = list(inspect.signature(cls.__init__).parameters.values())[1:]
    row: dict[str, Any] = {}
    keyword_only = [p.name for p in parameters if p.kind is inspect.Parameter.KEYWORD_ONLY]
    if keyword_only:
        row["keyword_only"] = keyword_only
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
        row["any_keyword"] = True
    return row


# words in a layer class's source that may give an instance state or a train/eval switch
_STATE_WORDS = ("register_buffer", "register_parameter", "Parameter", "training")


def _stateless(cls: type, module: torch.nn.Module) -> bool:
    """Nothing of the layer is registered state and nothing switches with train() /
    eval(): the sample has no parameter, buffer or sub-module, and no class of its MRO
    below nn.Module mentions buffers, parameters or the training flag in its source (so
    no other constructor argument can add them either)."""
    if next(module.parameters(), None) is not None or next(module.buffers(), None) is not None:
        return False
    if next(module.children(), None) is not None:
        return False
    for klass in cls.__mro__:
        if klass is torch.nn.Module:
            return True
        try:
            source = inspect.getsource(klass)
        except (OSError, TypeError):
            return False
        if any(word in source for word in _STATE_WORDS):
            return False
    return False


def _layer_family(cls: type, module: torch.nn.Module, forward: list) -> str:
    family = _LAYER_FAMILIES.get(cls.__module__.rpartition(".")[2], "other")
    if family == "elementwise":
        with torch.no_grad():
            out = module(*forward)
        if not isinstance(out, torch.Tensor) or out.shape != forward[0].shape:
            return "other"
    return family


def _keeps_shape(cls: type, args: tuple, kwargs: dict, forward: list) -> bool:
    """The output has the input's shape, as built from the sample and with each int
    constructor argument doubled in turn (Linear(4, 4) keeps a (2, 4) shape by chance;
    Linear(4, 8) does not)."""
    variants = [args] + [
        (*args[:i], value * 2, *args[i + 1 :]) for i, value in enumerate(args) if type(value) is int
    ]
    kept = []
    for variant in variants:
        try:
            with torch.no_grad(), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out = cls(*variant, **kwargs)(*[_fresh(a, False) for a in forward])
        except Exception:  # noqa: BLE001 - a doubled argument the layer refuses
            continue
        kept.append(isinstance(out, torch.Tensor) and out.shape == forward[0].shape)
    return bool(kept) and kept[0] and all(kept)


def _layer_flag_edits(cls: type, args: tuple, kwargs: dict, forward: list) -> bool:
    """Built with `inplace=True`, the layer writes into its input (AlphaDropout takes the
    flag and ignores it)."""
    index = _constructor_args(cls).index("inplace")
    if len(args) > index:
        args, kwargs = (*args[:index], True, *args[index + 1 :]), kwargs
    else:
        kwargs = {**kwargs, "inplace": True}
    target = _fresh(forward[0], False)
    try:
        with torch.no_grad():
            cls(*args, **kwargs)(target, *forward[1:])
    except Exception:  # noqa: BLE001 - a sample refusing the flag
        return False
    return target._version > 0


def _layer_inplace_saves(cls: type, args: tuple, kwargs: dict, forward: list) -> bool:
    """Built with `inplace=True` and called on a tensor requiring grad, the layer's backward
    saves the tensor it edited (`LeakyReLU(inplace=True)` keeps its result where the
    out-of-place one keeps its input): a later in-place edit of that tensor breaks it."""
    index = _constructor_args(cls).index("inplace")
    if len(args) > index:
        args = (*args[:index], True, *args[index + 1 :])
    else:
        kwargs = {**kwargs, "inplace": True}
    if not _floating(forward[0]):
        return False
    leaf = _fresh(forward[0], True)
    target = leaf * 1  # not a leaf: torch refuses an in-place edit of a leaf
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            outputs = _tensors(cls(*args, **kwargs)(target, *forward[1:]))
    except Exception:  # noqa: BLE001 - a sample refusing the flag
        return False
    saved = _saved_storages([t for t in outputs if t.grad_fn], {id(leaf.grad_fn)})
    return _storage(target) in saved


def derive_layers(names: set[str] | None = None) -> dict[str, Any]:
    layers: dict[str, Any] = {}
    for cls, args, kwargs, forward, exact in _layer_samples():
        qualname = f"torch.nn.{cls.__name__}"
        if getattr(torch.nn, cls.__name__, None) is not cls or qualname in layers:
            continue
        if names is not None and cls.__name__ not in names:
            continue
        torch.manual_seed(0)
        try:
            ctor_names = _constructor_args(cls)
            if not exact:
                args, kwargs = _required(cls, args, kwargs)
            module = cls(*args, **kwargs)
            if isinstance(module, torch.nn.modules.lazy.LazyModuleMixin):
                continue  # parameters appear only at the first forward
            params_only, saves_input, saves_output = _layer_saves(module, forward)
            row: dict[str, Any] = {
                "constructor_args": ctor_names,
                "parameters": [n for n, _ in module.named_parameters(recurse=False)],
                "parameter_shapes": {} if kwargs else _parameter_shapes(cls, args, ctor_names),
                "shape": _layer_family(cls, module, forward),
            }
        except Exception:  # noqa: BLE001 - the sample does not fit this build
            continue
        if "inplace" in ctor_names and _layer_flag_edits(cls, args, kwargs, forward):
            row["inplace_arg"] = [ctor_names.index("inplace"), "inplace"]
            if _layer_inplace_saves(cls, args, kwargs, forward):
                row["inplace_saves"] = True
        if _keeps_shape(cls, args, kwargs, forward):
            row["keeps_shape"] = True
        if params_only:
            row["saves_input_for_params"] = True
        if saves_input:
            row["saves_input"] = True
        if saves_output:
            row["saves_output"] = True
        if _stateless(cls, module):
            row["stateless"] = True
        row.update(_other_keywords(cls))
        layers[qualname] = row
    return dict(sorted(layers.items()))


# -- the data file ---------------------------------------------------------------------


def derive_nn_non_modules() -> list[str]:
    """The capitalised names of `torch.nn` that are not nn.Module subclasses (Parameter,
    Buffer, ...): every other `torch.nn.<Capitalised>` call builds a module."""
    return sorted(
        f"torch.nn.{name}"
        for name in dir(torch.nn)
        if name[:1].isupper()
        and not (
            isinstance(getattr(torch.nn, name), type)
            and issubclass(getattr(torch.nn, name), torch.nn.Module)
        )
    )


def derive_tuple_overloads(ops: dict[str, Any]) -> dict[str, list[list[int]]]:
    """Torch functions the op database has no facts for whose overloads include one
    returning several tensors or a list (`torch.where(condition)`, the one-argument form of
    `torch.where(condition, x, y)`): name -> [required, total] positional arguments of each
    such overload, from torch's operator schemas (a call taking that many is no tensor)."""
    known = set(ops["ops"]) | set(ops["aliases"])
    found = {}
    for name in dir(torch):
        if name.startswith("_") or f"torch.{name}" in known:
            continue
        function = getattr(torch, name)
        if isinstance(function, type) or not callable(function):
            continue
        counts = set()
        for schema in torch._C._jit_get_schemas_for_operator(f"aten::{name}"):
            returns = schema.returns
            if len(returns) > 1 or (returns and isinstance(returns[0].type, torch._C.ListType)):
                positional = [a for a in schema.arguments if not a.kwarg_only]
                required = [a for a in positional if not a.has_default_value()]
                counts.add((len(required), len(positional)))
        if counts:
            found[f"torch.{name}"] = [list(c) for c in sorted(counts)]
    return dict(sorted(found.items()))


BACKWARD_ENTRIES = ("torch.Tensor.backward", "torch.autograd.backward", "torch.autograd.grad")


def derive_backward_keywords() -> dict[str, list[str]]:
    """The keywords each backward entry point takes (any other raises TypeError, such as
    `retain_variables=`, the pre-0.4 name of `retain_graph=`)."""
    found = {}
    for name in BACKWARD_ENTRIES:
        parameters = inspect.signature(_resolve(name.removeprefix("torch."))).parameters.values()
        if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
            continue  # takes any keyword: nothing to tell
        found[name] = sorted(p.name for p in parameters if p.name != "self")
    return found


def generate() -> dict[str, Any]:
    torch.manual_seed(0)
    ops = derive_ops()
    layers = derive_layers()
    return {
        "torch_version": torch.__version__.split("+")[0],
        **ops,
        "reductions": derive_reductions(ops["ops"]),
        "binary": derive_binary(),
        "masked": derive_masked(),
        "layers": layers,
        "windows": derive_windows(layers),
        "nn_non_modules": derive_nn_non_modules(),
        "backward_keywords": derive_backward_keywords(),
        "tuple_overloads": derive_tuple_overloads(ops),
    }


def dump(data: dict[str, Any]) -> str:
    """One line per entry: small, diffable and quick to parse."""
    lines = ["{", f'"torch_version": {json.dumps(data["torch_version"])},']
    keys = [k for k in data if k != "torch_version"]
    for n, key in enumerate(keys):
        value = data[key]
        if isinstance(value, dict):
            lines.append(f"{json.dumps(key)}: {{")
            items = list(value.items())
            for m, (name, row) in enumerate(items):
                comma = "," if m < len(items) - 1 else ""
                lines.append(f"{json.dumps(name)}: {json.dumps(row, separators=(',', ':'))}{comma}")
            lines.append("}" + ("," if n < len(keys) - 1 else ""))
        else:
            comma = "," if n < len(keys) - 1 else ""
            lines.append(f"{json.dumps(key)}: {json.dumps(value)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def differences(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    out = []
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if isinstance(a, dict) and isinstance(b, dict):
            for name in sorted(set(a) | set(b)):
                if a.get(name) != b.get(name):
                    out.append(f"{key}[{name}]: shipped {a.get(name)!r}, torch {b.get(name)!r}")
        elif a != b:
            out.append(f"{key}: shipped {a!r}, torch {b!r}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the shipped file")
    options = parser.parse_args(argv)
    data = json.loads(dump(generate()))
    summary = f"{len(data['ops'])} ops, {len(data['layers'])} modules"
    if options.check:
        shipped = json.loads(OUTPUT.read_text("utf-8"))
        diff = differences(shipped, data)
        if diff:
            print("\n".join(diff))
            return 1
        print(f"ok: {summary}")
        return 0
    OUTPUT.write_text(dump(data), "utf-8")
    print(f"wrote {OUTPUT.name}: {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
